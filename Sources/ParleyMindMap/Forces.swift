/// The strengths of the simulation's forces, tuned on random maps of 4 to 50 nodes for few
/// edges under boxes, no crossing edges and a compact page.
struct Forces: Sendable {
    /// Repulsion between two boxes just touching, as a fraction of the distance that separates
    /// them; it falls with the square of the distance.
    var repulsion: Double
    /// How much of an edge's stretch beyond its rest length a step undoes.
    var stiffness: Double
    /// The pull to the centre per pixel away from it, across; stronger than up and down, since
    /// boxes are wide and pages are wider than tall.
    var gravityX: Double
    /// The pull to the centre per pixel away from it, up and down.
    var gravityY: Double
    /// The push on a box per pixel it is too close to an edge.
    var edgeRepulsion: Double
    /// The push out on a node that is behind its parent, per pixel behind.
    var outward: Double

    static let standard = Forces(
        repulsion: 0.1, stiffness: 0.4, gravityX: 0.06, gravityY: 0.04,
        edgeRepulsion: 4, outward: 0.5)
}
