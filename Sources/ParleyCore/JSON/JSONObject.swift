/// The members of a JSON object, in the order they were written.
///
/// Order matters for structured output: a schema's properties are generated in the order the
/// schema lists them (a "reasoning" field before an "answer"), and a reply reads best with its
/// fields in that order. Lookups by key are as cheap as in a dictionary.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, RandomAccessCollection {
    /// One member.
    public typealias Element = (key: String, value: JSONValue)

    private var entries: [String: JSONValue] = [:]
    /// The keys in order.
    public private(set) var keys: [String] = []

    /// An empty object.
    public init() {}

    /// Members in the given order; a repeated key keeps its first position and its last value.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        for (key, value) in members { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The value of `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { entries[key] }
        set {
            if let newValue {
                if entries.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if entries.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public var startIndex: Int { keys.startIndex }
    public var endIndex: Int { keys.endIndex }

    public subscript(position: Int) -> Element {
        let key = keys[position]
        return (key, entries[key] ?? .null)
    }

    /// These members followed by `other`'s; a key in both takes `other`'s value and keeps its place.
    public func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }

    /// The values in order.
    public var values: [JSONValue] { keys.map { entries[$0] ?? .null } }

    /// The members as a dictionary (order dropped).
    public var dictionary: [String: JSONValue] { entries }

    /// Two objects are equal when they have the same members, whatever their order (as JSON says).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.entries == rhs.entries }

    public func hash(into hasher: inout Hasher) { hasher.combine(entries) }
}
