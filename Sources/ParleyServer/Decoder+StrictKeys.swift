/// Any key of a JSON object, to see every key a body sent.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses an object with a key that `Keys` does not name, as OpenAI does ("Unrecognized
    /// request argument supplied"), so a misspelt field is an error and not silently ignored.
    func rejectUnknownKeys<Keys: CodingKey>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyKey.self)
        for key in container.allKeys where Keys(stringValue: key.stringValue) == nil {
            let path = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            let name = String((path + "." + key.stringValue).drop { $0 == "." })
            throw OpenAIError.invalidRequest("Unrecognized request argument supplied: \(name).", param: name, code: "unknown_parameter")
        }
    }
}

extension KeyedDecodingContainer {
    /// A field that may be absent (outer `nil`: keep the value), `null` (inner `nil`: clear it)
    /// or a value.
    func decodeNullable<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T?? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) { return .some(nil) }
        return .some(try decode(T.self, forKey: key))
    }
}
