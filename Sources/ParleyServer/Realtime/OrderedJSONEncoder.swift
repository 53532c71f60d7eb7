import ParleyCore

/// Encodes an `Encodable` value into a ``JSONValue`` whose object members are in the order the
/// value encoded them (a synthesized `Encodable` encodes its stored properties in declaration
/// order), so that ``JSONValue/text`` writes them in that order: what the realtime server
/// events need to read the same from one release to the next.
///
/// Keys are written in snake case (`previousItemID` → `previous_item_id`: an underscore before
/// an upper-case letter that follows a lower-case letter or a digit, then all lower case). A
/// ``JSONValue`` inside the value is taken as it is, its keys unchanged: types with their own
/// key spellings are embedded as ``JSONValue``.
struct OrderedJSONEncoder {
    /// The JSON of `value`.
    func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Node()
        try Self.encode(value, into: root)
        return root.json
    }

    fileprivate static func encode(_ value: some Encodable, into node: Node) throws {
        if let json = value as? JSONValue {
            node.content = .value(json)
        } else {
            try value.encode(to: NodeEncoder(node: node, codingPath: []))
        }
    }

    /// `name` in snake case.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { result.append("_") }
            result += character.lowercased()
            previous = character
        }
        return result
    }
}

/// A value being encoded: a finished JSON value, an object whose members are still being
/// encoded, or an array.
private final class Node {
    enum Content {
        case value(JSONValue)
        case object([(key: String, node: Node)])
        case array([Node])
    }

    var content = Content.value(.null)

    var json: JSONValue {
        switch content {
        case .value(let value): value
        case .object(let members): .object(JSONObject(members.map { ($0.key, $0.node.json) }))
        case .array(let elements): .array(elements.map(\.json))
        }
    }

    /// The member `key`, made (at the end) when it is not there yet.
    func member(_ key: String) -> Node {
        guard case .object(var members) = content else {
            let made = Node()
            content = .object([(key, made)])
            return made
        }
        if let existing = members.first(where: { $0.key == key }) { return existing.node }
        let made = Node()
        members.append((key, made))
        content = .object(members)
        return made
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func appendElement() -> Node {
        let made = Node()
        if case .array(var elements) = content {
            elements.append(made)
            content = .array(elements)
        } else {
            content = .array([made])
        }
        return made
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    private func child(_ key: Key) -> Node { node.member(OrderedJSONEncoder.snakeCase(key.stringValue)) }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).content = .value(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key).content = .value(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { child(key).content = .value(.number(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).content = .value(.number(Double(value))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try OrderedJSONEncoder.encode(value, into: child(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = child(key)
        nested.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = child(key)
        nested.content = .array([])
        return UnkeyedNodeContainer(node: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: child(key), codingPath: codingPath + [key]) }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendElement().content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.appendElement().content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.appendElement().content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.appendElement().content = .value(.number(value)) }
    mutating func encode(_ value: Int) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: Float) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { node.appendElement().content = .value(.number(Double(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try OrderedJSONEncoder.encode(value, into: node.appendElement()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = node.appendElement()
        nested.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: nested, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = node.appendElement()
        nested.content = .array([])
        return UnkeyedNodeContainer(node: nested, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendElement(), codingPath: codingPath) }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.number(value)) }
    mutating func encode(_ value: Float) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { node.content = .value(.number(Double(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try OrderedJSONEncoder.encode(value, into: node) }
}

/// An optional member written as `null` when it has no value (a synthesized `Encodable` leaves
/// a `nil` optional out).
@propertyWrapper
struct ExplicitNull<Value: Encodable & Sendable & Equatable>: Encodable, Sendable, Equatable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
