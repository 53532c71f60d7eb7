extension MindMapLayout {
    /// Sweeps over all pairs, in a fixed order, pushing any two boxes closer than `margin` apart
    /// along the axis where they overlap least (the central topic stays put; otherwise both
    /// move half the way), until a sweep finds nothing to do.
    ///
    /// Should sweeps keep undoing each other, the positions are spread out from the centre by
    /// the smallest factor that clears every remaining pair, which always succeeds: scaling
    /// multiplies every distance between centres and no box grows.
    static func removeOverlaps(_ bodies: inout [Body], margin: Double, maxSweeps: Int = 200) {
        let count = bodies.count
        guard count > 1 else { return }
        // A hair more than the overlap, so rounding cannot leave two boxes touching.
        let extra = 1e-3
        for _ in 0..<maxSweeps {
            var moved = false
            for i in 0..<count {
                for j in (i + 1)..<count {
                    let dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y
                    let overlapX = bodies[i].halfWidth + bodies[j].halfWidth + margin - abs(dx)
                    let overlapY = bodies[i].halfHeight + bodies[j].halfHeight + margin - abs(dy)
                    guard overlapX > 0, overlapY > 0 else { continue }
                    moved = true
                    // The root (index 0) is fixed: the other box takes the whole push.
                    let shareI = i == 0 ? 0.0 : 0.5, shareJ = i == 0 ? 1.0 : 0.5
                    if overlapX < overlapY {
                        let sign: Double = dx < 0 ? -1 : 1
                        bodies[i].x -= sign * (overlapX + extra) * shareI
                        bodies[j].x += sign * (overlapX + extra) * shareJ
                    } else {
                        let sign: Double = dy < 0 ? -1 : 1
                        bodies[i].y -= sign * (overlapY + extra) * shareI
                        bodies[j].y += sign * (overlapY + extra) * shareJ
                    }
                }
            }
            if !moved { return }
        }
        // Each pass clears every pair it finds; only boxes it had to set side by side can need
        // another.
        var passes = 0
        while passes < 8, spreadIfOverlapping(&bodies, margin: margin) {
            passes += 1
        }
    }

    /// Scales all positions about the centre by the smallest factor that separates every
    /// overlapping pair (boxes on the same spot are first set side by side). Returns whether
    /// anything overlapped.
    private static func spreadIfOverlapping(_ bodies: inout [Body], margin: Double) -> Bool {
        let count = bodies.count
        var factor = 1.0, overlapped = false
        for i in 0..<count {
            for j in (i + 1)..<count {
                let dx = bodies[j].x - bodies[i].x
                let dy = bodies[j].y - bodies[i].y
                let clearX = bodies[i].halfWidth + bodies[j].halfWidth + margin
                let clearY = bodies[i].halfHeight + bodies[j].halfHeight + margin
                guard abs(dx) < clearX, abs(dy) < clearY else { continue }
                if dx == 0, dy == 0 {
                    bodies[j].x += clearX
                    overlapped = true
                    continue
                }
                let needX = dx == 0 ? Double.infinity : clearX / abs(dx)
                let needY = dy == 0 ? Double.infinity : clearY / abs(dy)
                factor = max(factor, min(needX, needY))
                overlapped = true
            }
        }
        guard factor > 1 else { return overlapped }
        let spread = factor * (1 + 1e-6) + 1e-6
        for index in bodies.indices {
            bodies[index].x *= spread
            bodies[index].y *= spread
        }
        return true
    }
}
