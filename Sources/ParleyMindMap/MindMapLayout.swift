/// Where every idea of a ``MindMap`` goes on the page: boxes sized to their wrapped labels,
/// placed by a deterministic force-directed simulation, with no two boxes overlapping.
///
/// The central topic sits in the middle; branches spread around it and their children around
/// them. The same map and ``Options/seed`` give bit-identical coordinates on every run, so a
/// drawing can be cached, compared and tested. All coordinates are in pixels, positive, inside
/// ``width`` × ``height``.
public struct MindMapLayout: Sendable, Equatable, Hashable {
    /// How a layout is made and how big its text is.
    public struct Options: Sendable, Equatable, Hashable {
        /// The seed of the random jitter of the starting positions. Another seed gives another,
        /// equally valid arrangement.
        public var seed: UInt64
        /// Steps of the force simulation; more settle the map better, and take longer.
        public var iterations: Int
        /// The font size of labels in pixels. Large by default: 20 px reads well for a reader
        /// with dyslexia; smaller sizes are not recommended.
        public var fontSize: Double
        /// How much bigger the central topic's font is than the others'.
        public var rootFontScale: Double
        /// The distance between baselines of a wrapped label, in ems (1.5 is the usual advice
        /// for readers with dyslexia).
        public var lineHeight: Double
        /// Extra space between letters, in ems; a little more than usual helps readers with
        /// dyslexia tell letters apart.
        public var letterSpacing: Double
        /// About how many characters a label line may have before it wraps.
        public var maxLineCharacters: Int
        /// Empty space around the map, in pixels.
        public var padding: Double
        /// The smallest gap between two boxes, in pixels.
        public var spacing: Double
        /// How much longer an edge is than the shortest line that keeps its two boxes apart, in
        /// pixels.
        public var edgeLength: Double

        /// Creates options; the defaults suit a map of up to about fifty ideas.
        public init(
            seed: UInt64 = 0x5EED_0F_1DEA5, iterations: Int = 300, fontSize: Double = 20,
            rootFontScale: Double = 1.3, lineHeight: Double = 1.5, letterSpacing: Double = 0.05,
            maxLineCharacters: Int = 18,
            padding: Double = 32, spacing: Double = 18, edgeLength: Double = 40
        ) {
            self.seed = seed
            self.iterations = iterations
            self.fontSize = fontSize
            self.rootFontScale = rootFontScale
            self.lineHeight = lineHeight
            self.letterSpacing = letterSpacing
            self.maxLineCharacters = maxLineCharacters
            self.padding = padding
            self.spacing = spacing
            self.edgeLength = edgeLength
        }
    }

    /// An idea placed on the page, with its label box centred on (``x``, ``y``).
    public struct Node: Sendable, Equatable, Hashable, Identifiable {
        /// The position in a depth-first walk of the map: 0 is the central topic, then the first
        /// branch, its children, and so on.
        public var id: Int
        /// The node this one hangs off; `nil` for the central topic.
        public var parent: Int?
        /// The label as given.
        public var label: String
        /// The label wrapped into lines, each drawn on its own.
        public var lines: [String]
        /// 0 for the central topic, 1 for branches, 2 for their children, and so on.
        public var depth: Int
        /// The index of the branch this node belongs to (a branch belongs to itself); `nil` for
        /// the central topic. Nodes of one branch share its colour.
        public var branch: Int?
        /// The centre of the box, in pixels from the left.
        public var x: Double
        /// The centre of the box, in pixels from the top.
        public var y: Double
        /// The box's width in pixels.
        public var width: Double
        /// The box's height in pixels.
        public var height: Double
        /// The label's font size in pixels.
        public var fontSize: Double

        /// Whether this is the central topic.
        public var isRoot: Bool { parent == nil }
        /// The left edge of the box.
        public var minX: Double { x - width / 2 }
        /// The right edge of the box.
        public var maxX: Double { x + width / 2 }
        /// The top edge of the box.
        public var minY: Double { y - height / 2 }
        /// The bottom edge of the box.
        public var maxY: Double { y + height / 2 }
    }

    /// A line from an idea to one under it, drawn as a gentle curve: a quadratic Bézier from
    /// the parent's centre to the child's, bent by its control point. The layout keeps boxes
    /// off these curves.
    public struct Edge: Sendable, Equatable, Hashable {
        /// The parent's ``Node/id``.
        public var from: Int
        /// The child's ``Node/id``.
        public var to: Int
        /// The curve's control point, in pixels from the left.
        public var controlX: Double
        /// The curve's control point, in pixels from the top.
        public var controlY: Double
    }

    /// Every node, indexed by its ``Node/id``; the central topic first.
    public let nodes: [Node]
    /// One edge per node but the central topic, from its parent.
    public let edges: [Edge]
    /// The width of the page in pixels.
    public let width: Double
    /// The height of the page in pixels.
    public let height: Double
    /// The distance between baselines of wrapped lines, in ems.
    public let lineHeight: Double
    /// Extra space between letters, in ems.
    public let letterSpacing: Double
    /// The smallest gap kept between boxes, in pixels.
    public let spacing: Double

    /// The central topic.
    public var root: Node { nodes[0] }

    /// The branches' labels, in order.
    public var branchLabels: [String] {
        nodes.filter { $0.depth == 1 }.map(\.label)
    }

    /// Lays a map out.
    ///
    /// Starts from a radial placement (branches around the centre in sectors as wide as their
    /// share of leaves, children further out in their parent's sector) with seeded jitter, runs
    /// a cooling simulation of springs along edges, repulsion between all boxes and a weak pull
    /// to the centre, with the central topic fixed, and then pushes apart any boxes that still
    /// overlap.
    public static func make(_ map: MindMap, options: Options = .init()) -> MindMapLayout {
        var options = options
        options.lineHeight = max(options.lineHeight, 1)
        options.spacing = max(options.spacing, 0)
        options.padding = max(options.padding, 0)
        var nodes = flatten(map, options: options)
        var bodies = nodes.map { Body(x: 0, y: 0, halfWidth: $0.width / 2, halfHeight: $0.height / 2) }
        var random = SplitMix64(seed: options.seed)
        placeRadially(nodes, &bodies, options: options, random: &random)
        simulate(nodes, &bodies, options: options)
        removeOverlaps(&bodies, margin: options.spacing)

        let minX = bodies.map { $0.x - $0.halfWidth }.min() ?? 0
        let maxX = bodies.map { $0.x + $0.halfWidth }.max() ?? 0
        let minY = bodies.map { $0.y - $0.halfHeight }.min() ?? 0
        let maxY = bodies.map { $0.y + $0.halfHeight }.max() ?? 0
        let padding = options.padding
        for index in nodes.indices {
            nodes[index].x = bodies[index].x - minX + padding
            nodes[index].y = bodies[index].y - minY + padding
        }
        let edges = nodes.compactMap { node in
            node.parent.map { parent in
                let control = edgeControl(fromX: nodes[parent].x, fromY: nodes[parent].y, toX: node.x, toY: node.y)
                return Edge(from: parent, to: node.id, controlX: control.x, controlY: control.y)
            }
        }
        return MindMapLayout(
            nodes: nodes, edges: edges, width: maxX - minX + 2 * padding,
            height: maxY - minY + 2 * padding, lineHeight: options.lineHeight,
            letterSpacing: options.letterSpacing, spacing: options.spacing)
    }

    /// The nodes in depth-first order with wrapped labels and box sizes, not yet placed.
    private static func flatten(_ map: MindMap, options: Options) -> [Node] {
        let fontSize = max(options.fontSize, 1)
        var nodes: [Node] = []
        func add(_ label: String, parent: Int?, depth: Int, branch: Int?) -> Int {
            let isRoot = parent == nil
            let size = isRoot ? fontSize * max(options.rootFontScale, 1) : fontSize
            let lines = LabelText.wrap(label, maxCharacters: options.maxLineCharacters)
            // The central topic is drawn bold, which is about a tenth wider.
            let ems = lines.map { LabelText.width(of: $0) + options.letterSpacing * Double($0.count) }.max() ?? 0
            let textWidth = ems * size * (isRoot ? 1.1 : 1)
            let width = max(textWidth + 1.6 * size, 3 * size)
            let height = Double(lines.count) * options.lineHeight * size + 0.9 * size
            let id = nodes.count
            nodes.append(
                Node(
                    id: id, parent: parent, label: label, lines: lines, depth: depth, branch: branch,
                    x: 0, y: 0, width: width, height: height, fontSize: size))
            return id
        }
        func addSubtree(_ node: MindMap.Node, parent: Int, depth: Int, branch: Int) {
            let id = add(node.label, parent: parent, depth: depth, branch: branch)
            for child in node.children {
                addSubtree(child, parent: id, depth: depth + 1, branch: branch)
            }
        }
        let root = add(map.title, parent: nil, depth: 0, branch: nil)
        for (index, branch) in map.branches.enumerated() {
            addSubtree(branch, parent: root, depth: 1, branch: index)
        }
        return nodes
    }
}
