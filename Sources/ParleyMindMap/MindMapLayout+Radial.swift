import Foundation

extension MindMapLayout {
    /// The children of every node, in order (ids are depth-first, so a parent precedes them).
    static func children(of nodes: [Node]) -> [[Int]] {
        var children = Array(repeating: [Int](), count: nodes.count)
        for node in nodes {
            if let parent = node.parent { children[parent].append(node.id) }
        }
        return children
    }

    /// The starting positions: each node at the middle of its sector on the ring of its depth,
    /// sectors as wide as their share of the leaves, the first branch just clockwise of 12
    /// o'clock, and a little seeded jitter.
    static func placeRadially(
        _ nodes: [Node], _ bodies: inout [Body], options: Options,
        random: inout SplitMix64
    ) {
        guard nodes.count > 1 else { return }
        let children = children(of: nodes)
        var leaves = Array(repeating: 0.0, count: nodes.count)
        for id in nodes.indices.reversed() {
            leaves[id] = children[id].isEmpty ? 1 : children[id].reduce(0) { $0 + leaves[$1] }
        }

        // Each ring clears the one inside it, and is long enough for its boxes side by side.
        let deepest = nodes.map(\.depth).max() ?? 0
        var reach = Array(repeating: 0.0, count: deepest + 1)
        var circumference = Array(repeating: 0.0, count: deepest + 1)
        for (node, body) in zip(nodes, bodies) {
            let halfDiagonal = (body.halfWidth * body.halfWidth + body.halfHeight * body.halfHeight).squareRoot()
            reach[node.depth] = max(reach[node.depth], halfDiagonal)
            circumference[node.depth] += 2 * halfDiagonal + options.spacing
        }
        var radius = Array(repeating: 0.0, count: deepest + 1)
        for depth in stride(from: 1, through: deepest, by: 1) {
            let clear = radius[depth - 1] + reach[depth - 1] + reach[depth] + options.spacing
            radius[depth] = max(clear, circumference[depth] / (2 * Double.pi))
        }

        let jitter = max(options.fontSize, 1)
        func place(_ id: Int, from start: Double, to end: Double) {
            var angle = start
            for child in children[id] {
                let span = (end - start) * leaves[child] / leaves[id]
                let middle = angle + span / 2
                let ring = radius[nodes[child].depth]
                bodies[child].x = ring * cos(middle) + jitter * random.signedUnit()
                bodies[child].y = ring * sin(middle) + jitter * random.signedUnit()
                place(child, from: angle, to: angle + span)
                angle += span
            }
        }
        let start = -Double.pi / 2 + 0.25 * random.signedUnit()
        place(0, from: start, to: start + 2 * Double.pi)
    }
}
