/// A mind map of a text: a central topic with branches, each of which may have children.
///
/// Its JSON form is what a language model is asked to produce:
///
/// ```json
/// {"title": "Photosynthesis",
///  "branches": [{"label": "Light reactions", "children": [{"label": "Chlorophyll"}]}]}
/// ```
///
/// `children` may be left out of a node, and `branches` of the map; both then decode as empty.
public struct MindMap: Codable, Sendable, Equatable, Hashable {
    /// One idea on the map, with the ideas that hang off it.
    public struct Node: Codable, Sendable, Equatable, Hashable {
        /// The text shown for the idea.
        public var label: String
        /// Ideas under this one, in reading order.
        public var children: [Node]

        /// Creates a node.
        public init(_ label: String, children: [Node] = []) {
            self.label = label
            self.children = children
        }

        /// The number of nodes in this subtree, this node included.
        public var nodeCount: Int {
            children.reduce(1) { $0 + $1.nodeCount }
        }

        /// The number of levels below this node: 0 for a leaf.
        public var depth: Int {
            children.map { $0.depth + 1 }.max() ?? 0
        }

        private enum CodingKeys: String, CodingKey {
            case label, children
        }

        /// Decodes a node; a missing `children` key means no children.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            label = try container.decode(String.self, forKey: .label)
            children = try container.decodeIfPresent([Node].self, forKey: .children) ?? []
        }
    }

    /// The central topic.
    public var title: String
    /// The main ideas around the central topic, in reading order.
    public var branches: [Node]

    /// Creates a mind map.
    public init(title: String, branches: [Node] = []) {
        self.title = title
        self.branches = branches
    }

    /// The number of nodes, the central topic included.
    public var nodeCount: Int {
        branches.reduce(1) { $0 + $1.nodeCount }
    }

    /// The number of levels below the central topic: 0 with no branches, 1 when no branch has
    /// children, and so on.
    public var depth: Int {
        branches.map { $0.depth + 1 }.max() ?? 0
    }

    private enum CodingKeys: String, CodingKey {
        case title, branches
    }

    /// Decodes a map; a missing `branches` key means no branches.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        branches = try container.decodeIfPresent([Node].self, forKey: .branches) ?? []
    }
}
