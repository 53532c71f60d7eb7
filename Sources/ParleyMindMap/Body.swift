/// A box in the simulation: its centre moves, its size does not. The central topic is at the
/// origin until the layout is translated onto the page.
struct Body: Sendable, Equatable {
    var x: Double
    var y: Double
    let halfWidth: Double
    let halfHeight: Double

    /// How far apart the centres of two boxes must be, along a direction (ux, uy) of unit length,
    /// for the boxes to be `gap` apart: the nearer of the distances at which they clear
    /// horizontally or vertically.
    func separation(from other: Body, ux: Double, uy: Double, gap: Double) -> Double {
        let clearX = halfWidth + other.halfWidth + gap
        let clearY = halfHeight + other.halfHeight + gap
        let ax = abs(ux), ay = abs(uy)
        if ax < 1e-9 { return clearY }
        if ay < 1e-9 { return clearX }
        return min(clearX / ax, clearY / ay)
    }
}
