import Foundation

extension MindMapLayout {
    /// Moves every node but the central topic under springs along edges, repulsion between
    /// all pairs and a weak pull to the centre; each step moves a node at most a "temperature"
    /// that cools to nothing, so the map settles.
    static func simulate(_ nodes: [Node], _ bodies: inout [Body], options: Options) {
        let count = bodies.count
        guard count > 1, options.iterations > 0 else { return }
        let edges = nodes.compactMap { node in node.parent.map { ($0, node.id) } }
        let forces = Forces.standard
        let hottest = 2 * max(options.fontSize, 1)
        var forceX = Array(repeating: 0.0, count: count)
        var forceY = Array(repeating: 0.0, count: count)

        for step in 0..<options.iterations {
            for index in 0..<count {
                forceX[index] = -forces.gravityX * bodies[index].x
                forceY[index] = -forces.gravityY * bodies[index].y
            }
            // Repulsion: as strong as the pair's separation when just touching, fading with
            // the square of the distance.
            for i in 0..<count {
                for j in (i + 1)..<count {
                    let (ux, uy, distance) = direction(from: bodies[i], to: bodies[j], i: i, j: j)
                    let needed = bodies[i].separation(from: bodies[j], ux: ux, uy: uy, gap: options.spacing)
                    let push = forces.repulsion * needed * needed * needed / (distance * distance)
                    forceX[i] -= ux * push
                    forceY[i] -= uy * push
                    forceX[j] += ux * push
                    forceY[j] += uy * push
                }
            }
            // Springs: rest length is the separation plus the edge length.
            for (parent, child) in edges {
                let (ux, uy, distance) = direction(from: bodies[parent], to: bodies[child], i: parent, j: child)
                let rest =
                    bodies[parent].separation(from: bodies[child], ux: ux, uy: uy, gap: options.spacing)
                    + options.edgeLength
                let pull = forces.stiffness * (distance - rest)
                forceX[parent] += ux * pull
                forceY[parent] += uy * pull
                forceX[child] -= ux * pull
                forceY[child] -= uy * pull
            }
            // Children grow away from the centre: a node behind its parent, seen from the
            // grandparent, is pushed out past it (its edge would otherwise run back under boxes).
            for node in nodes {
                guard let parent = node.parent, let grandparent = nodes[parent].parent else { continue }
                var outX = bodies[parent].x - bodies[grandparent].x, outY = bodies[parent].y - bodies[grandparent].y
                let length = (outX * outX + outY * outY).squareRoot()
                guard length > 1e-6 else { continue }
                outX /= length
                outY /= length
                let ahead = (bodies[node.id].x - bodies[parent].x) * outX + (bodies[node.id].y - bodies[parent].y) * outY
                guard ahead < 0 else { continue }
                forceX[node.id] -= outX * ahead * forces.outward
                forceY[node.id] -= outY * ahead * forces.outward
            }
            // Boxes keep off edges they are not on, so no line runs under a label.
            for (parent, child) in edges {
                for index in 0..<count where index != parent && index != child {
                    pushOffEdge(
                        index, parent, child, bodies, &forceX, &forceY, gap: options.spacing,
                        strength: forces.edgeRepulsion)
                }
            }
            let temperature = hottest * (1 - Double(step) / Double(options.iterations))
            for index in 1..<count {
                let magnitude = (forceX[index] * forceX[index] + forceY[index] * forceY[index]).squareRoot()
                guard magnitude > 0 else { continue }
                let factor = min(magnitude, temperature) / magnitude
                bodies[index].x += forceX[index] * factor
                bodies[index].y += forceY[index] * factor
            }
        }
    }

    /// If box `index` is closer to the edge from `parent` to `child` than its own half size plus
    /// `gap`, pushes it away from the edge, and the edge's ends the other way.
    ///
    /// The edge is drawn as a curve (``edgeControl(fromX:fromY:toX:toY:)``); here it is the
    /// two straight lines through the curve's midpoint, which stay within a pixel or two of it.
    private static func pushOffEdge(
        _ index: Int, _ parent: Int, _ child: Int, _ bodies: [Body],
        _ forceX: inout [Double], _ forceY: inout [Double], gap: Double,
        strength: Double
    ) {
        let from = bodies[parent], to = bodies[child], box = bodies[index]
        let control = edgeControl(fromX: from.x, fromY: from.y, toX: to.x, toY: to.y)
        let middleX = (from.x + 2 * control.x + to.x) / 4, middleY = (from.y + 2 * control.y + to.y) / 4
        let first = closest(toX: box.x, toY: box.y, fromX: from.x, fromY: from.y, toX: middleX, toY: middleY)
        let second = closest(toX: box.x, toY: box.y, fromX: middleX, fromY: middleY, toX: to.x, toY: to.y)
        let nearest = first.distance <= second.distance ? first : second
        let along = first.distance <= second.distance ? first.along / 2 : 0.5 + second.along / 2
        // Near an end, the repulsion between the boxes themselves does the work.
        guard along > 0, along < 1 else { return }

        var awayX = box.x - nearest.x, awayY = box.y - nearest.y
        let distance = nearest.distance
        if distance < 1e-6 {
            // Exactly on the line: step off to its left.
            let edgeX = to.x - from.x, edgeY = to.y - from.y
            let length = max((edgeX * edgeX + edgeY * edgeY).squareRoot(), 1e-9)
            awayX = -edgeY / length
            awayY = edgeX / length
        } else {
            awayX /= distance
            awayY /= distance
        }
        let clearX = box.halfWidth + gap, clearY = box.halfHeight + gap
        let needed = abs(awayX) < 1e-9 ? clearY : abs(awayY) < 1e-9 ? clearX : min(clearX / abs(awayX), clearY / abs(awayY))
        guard distance < needed else { return }
        let push = strength * (needed - distance)
        // Off the line and out of the fan of edges leaving the parent: a box caught between two
        // such edges feels the sideways pushes cancel, and moves out to where the fan is wider.
        var outX = box.x - from.x, outY = box.y - from.y
        let outLength = (outX * outX + outY * outY).squareRoot()
        if outLength > 1e-6 {
            outX /= outLength
            outY /= outLength
        }
        forceX[index] += (awayX + 2 * outX) * push
        forceY[index] += (awayY + 2 * outY) * push
        forceX[parent] -= awayX * push * (1 - along)
        forceY[parent] -= awayY * push * (1 - along)
        forceX[child] -= awayX * push * along
        forceY[child] -= awayY * push * along
    }

    /// The point of a segment nearest to a point, how far along the segment it is (0 to 1),
    /// and its distance.
    private static func closest(
        toX x: Double, toY y: Double, fromX ax: Double, fromY ay: Double,
        toX bx: Double, toY by: Double
    ) -> (x: Double, y: Double, along: Double, distance: Double) {
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        let along = lengthSquared > 1e-12 ? min(max(((x - ax) * dx + (y - ay) * dy) / lengthSquared, 0), 1) : 0
        let px = ax + along * dx, py = ay + along * dy
        return (px, py, along, ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot())
    }

    /// How far an edge's curve bends to one side, as a fraction of its length, at the control
    /// point (the curve itself bows half as far).
    static let edgeBend = 0.12

    /// The control point of the quadratic Bézier curve an edge is drawn as: beside the
    /// midpoint, always on the same side, so edges curve gently and alike.
    static func edgeControl(fromX: Double, fromY: Double, toX: Double, toY: Double) -> (x: Double, y: Double) {
        let dx = toX - fromX, dy = toY - fromY
        return (fromX + dx / 2 - dy * edgeBend, fromY + dy / 2 + dx * edgeBend)
    }

    /// The unit direction and distance from one body to another; bodies on the same spot get a
    /// fixed direction from their ids, so nothing divides by zero and nothing is random.
    static func direction(from a: Body, to b: Body, i: Int, j: Int) -> (Double, Double, Double) {
        var dx = b.x - a.x, dy = b.y - a.y
        var distance = (dx * dx + dy * dy).squareRoot()
        if distance < 1e-6 {
            let angle = Double(i * 31 + j * 17)
            dx = cos(angle)
            dy = sin(angle)
            distance = 1e-6
            return (dx, dy, distance)
        }
        return (dx / distance, dy / distance, distance)
    }
}
