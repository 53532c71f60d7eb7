/// A model's request to run a function: which one, with what arguments, under which id (the
/// id the result answers).
public struct ToolCall: Sendable, Equatable, Hashable, Codable {
    /// The call's id, unique within the conversation (e.g. `call_3f9a…`); the tool's result
    /// names it.
    public var id: String
    /// The function's name.
    public var name: String
    /// The arguments as JSON text (an object), as the model wrote them.
    public var arguments: String

    /// Creates a call.
    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    /// The arguments parsed (an empty object for empty text).
    public var parsedArguments: JSONValue? {
        try? JSONValue(parsing: arguments.isEmpty ? "{}" : arguments)
    }

    /// A new call id in OpenAI's style: `call_` and 24 random letters and digits.
    public static func newID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return "call_" + String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}

/// A piece of a tool call as it streams: the call's position among the reply's calls, and
/// the id and name (in its first piece) or more of the arguments' text. Providers send the
/// pieces of a call and then the whole ``ToolCall`` (``ChatEvent/toolCall(_:)``).
public struct ToolCallDelta: Sendable, Equatable {
    /// The call's position among this reply's calls, from 0.
    public var index: Int
    /// The call's id, in its first piece.
    public var id: String?
    /// The function's name, in its first piece.
    public var name: String?
    /// More of the arguments' JSON text.
    public var arguments: String

    /// Creates a piece.
    public init(index: Int, id: String? = nil, name: String? = nil, arguments: String = "") {
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

/// Assembles tool calls from streamed pieces that carry an index (OpenAI's `delta.tool_calls`,
/// Anthropic's content blocks), in the order their indexes first appeared.
public struct ToolCallAssembler: Sendable {
    private var calls: [Int: ToolCall] = [:]
    private var order: [Int] = []

    /// Creates an empty assembler.
    public init() {}

    /// Adds a piece; returns the piece with the call's position among the calls (which may
    /// differ from the provider's index, e.g. Anthropic's content-block index).
    public mutating func add(index: Int, id: String?, name: String?, arguments: String?) -> ToolCallDelta {
        if calls[index] == nil {
            calls[index] = ToolCall(id: "", name: "", arguments: "")
            order.append(index)
        }
        if let id, !id.isEmpty { calls[index]?.id = id }
        if let name, !name.isEmpty { calls[index]?.name += name }
        if let arguments { calls[index]?.arguments += arguments }
        let position = order.firstIndex(of: index) ?? 0
        return ToolCallDelta(index: position, id: id, name: name, arguments: arguments ?? "")
    }

    /// Whether any piece came.
    public var isEmpty: Bool { order.isEmpty }

    /// The calls assembled so far, in order; a call that came without an id gets one.
    public var assembled: [ToolCall] {
        order.compactMap { index in
            guard var call = calls[index] else { return nil }
            if call.id.isEmpty { call.id = ToolCall.newID() }
            return call
        }
    }

    /// Takes the assembled calls (ids filled in) and empties the assembler.
    public mutating func finish() -> [ToolCall] {
        defer {
            calls = [:]
            order = []
        }
        return assembled
    }
}
