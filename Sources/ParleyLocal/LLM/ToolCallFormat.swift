import Foundation
import ParleyCore

/// How the on-device model sees tools and writes calls: the format of Qwen2.5's chat template
/// (the tools listed as JSON inside `<tools></tools>` in the system message, each call as
/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, results as `<tool_response>` in a
/// user turn). Models whose template has no tool format get the same text as plain
/// instructions: it is explicit enough to follow, and the grammar keeps every call well-formed.
enum ToolCallFormat {
    /// The text that opens a call.
    static let open = "<tool_call>"
    /// The text that closes a call.
    static let close = "</tool_call>"

    /// The system prompt's tool section, as Qwen2.5's template writes it.
    static func toolSection(_ tools: [ToolDefinition]) -> String {
        var text = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        text += "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
        for tool in tools {
            var function: JSONObject = ["name": .string(tool.name)]
            if let description = tool.description { function["description"] = .string(description) }
            function["parameters"] = tool.parameters
            text += "\n" + spaced(.object(["type": "function", "function": .object(function)]))
        }
        text += "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
        text += "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
        // Small models call a function for every question unless told not to.
        text += "\n\nCall a function yourself whenever one can help; never tell the user to call it. For general knowledge and small talk, answer directly in words."
        return text
    }

    /// `messages` as plain system, user and assistant messages for a chat template: the tool
    /// section joins the system message (`defaultSystem` when there is none), assistant calls
    /// are written out as calls, and each run of tool results becomes one user message of
    /// `<tool_response>` blocks.
    static func render(_ messages: [ChatMessage], tools: [ToolDefinition], defaultSystem: String?) -> [ChatMessage] {
        var rendered: [ChatMessage] = []
        // Every system message before the conversation is instructions (a client's context
        // given as system items after the prompt, say): one system message of them all.
        let leading = messages.prefix(while: { $0.role == .system }).map(\.text).filter { !$0.isEmpty }
        var system: String? = leading.isEmpty ? (messages.first?.role == .system ? "" : defaultSystem) : leading.joined(separator: "\n\n")
        if !tools.isEmpty {
            let section = toolSection(tools)
            system = system.map { $0.isEmpty ? section : $0 + "\n\n" + section } ?? section
        }
        if let system { rendered.append(.system(system)) }
        var pendingResults: [String] = []
        let lastQuestion = messages.last(where: { $0.role == .user })?.text ?? ""
        func flushResults(last: Bool = false) {
            guard !pendingResults.isEmpty else { return }
            // Results the model now answers from: small models otherwise often call the same
            // function again, or tell the user where to look, instead of saying what was found.
            if last { pendingResults.append(resultsHint(question: lastQuestion)) }
            rendered.append(.user(pendingResults.joined(separator: "\n")))
            pendingResults = []
        }
        for message in messages.drop(while: { $0.role == .system }) {
            switch message.role {
            case .tool:
                pendingResults.append("<tool_response>\n\(message.text)\n</tool_response>")
                continue
            case .system:
                flushResults()
                rendered.append(.system(message.text))
            case .user:
                flushResults()
                rendered.append(ChatMessage(role: .user, parts: message.parts))
            case .assistant:
                flushResults()
                guard !message.toolCalls.isEmpty else {
                    rendered.append(ChatMessage(role: .assistant, parts: message.parts))
                    continue
                }
                let calls = message.toolCalls.map { call in
                    let arguments = call.parsedArguments.map(spaced) ?? call.arguments
                    return "\(open)\n{\"name\": \(JSONValue.string(call.name).text), \"arguments\": \(arguments)}\n\(close)"
                }
                let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
                rendered.append(.assistant((text.isEmpty ? "" : text + "\n") + calls.joined(separator: "\n")))
            }
        }
        flushResults(last: true)
        return rendered
    }

    /// What follows the results the model answers from next: the question again, beside them.
    static func resultsHint(question: String) -> String {
        let question = question.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !question.isEmpty else { return "Answer from these results, in plain words." }
        let quoted = question.count > 300 ? String(question.prefix(300)) + "…" : question
        return "Using these results, answer my question in plain words: \(quoted)"
    }

    /// The schema of one call's JSON: `{"name": <one of the tools>, "arguments": <its parameters>}`.
    static func callSchema(_ tools: [ToolDefinition]) -> JSONSchema {
        let options = tools.map { tool in
            JSONSchema.object([.init("name", JSONSchema(.constant(.string(tool.name)))), .init("arguments", tool.schema)])
        }
        return options.count == 1 ? options[0] : JSONSchema(.anyOf(options))
    }

    /// Reads one call's JSON text into a call with a new id; `nil` when it is not a call.
    static func parseCall(_ text: String) -> ToolCall? {
        guard let value = try? JSONValue(parsing: text), let name = value["name"]?.string else { return nil }
        let arguments = value["arguments"] ?? value["parameters"] ?? .object([:])
        return ToolCall(id: ToolCall.newID(), name: name, arguments: arguments.text)
    }

    /// JSON with Python's `json.dumps` spacing (`", "` and `": "`), as Qwen2.5's template
    /// writes tools and arguments.
    static func spaced(_ value: JSONValue) -> String {
        switch value {
        case .array(let items): return "[" + items.map(spaced).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.map { JSONValue.string($0.0).text + ": " + spaced($0.1) }.joined(separator: ", ") + "}"
        default: return value.text
        }
    }
}

/// Finds where a JSON value that streams in ends: feed it text, and it says how many of the
/// fed characters complete the value (the closing brace of the outermost object).
struct JSONValueEnd: Sendable {
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var started = false

    /// Feeds `text`; returns the offset (in characters) just past the value's end when it ends
    /// in `text`, else `nil`.
    mutating func feed(_ text: String) -> Int? {
        for (offset, character) in text.enumerated() {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{", "[":
                depth += 1
                started = true
            case "}", "]":
                depth -= 1
                if started, depth == 0 { return offset + 1 }
            default: break
            }
        }
        return nil
    }
}

/// Watches free text for the start of a tool call: text goes out as it comes, except what
/// could be the start of ``ToolCallFormat/open``, which is held until it is clearly not.
struct ToolCallTrigger: Sendable {
    private var held = ""

    /// What `piece` releases as text, and whether the call marker was found (the text before
    /// it is released; what follows the marker is returned as `after`).
    mutating func push(_ piece: String) -> (text: String, triggered: Bool, after: String) {
        held += piece
        if let range = held.range(of: ToolCallFormat.open) {
            let before = String(held[..<range.lowerBound])
            let after = String(held[range.upperBound...])
            held = ""
            return (before, true, after)
        }
        // Keep the longest tail that is a prefix of the marker.
        let marker = ToolCallFormat.open
        var keep = 0
        for length in stride(from: min(marker.count - 1, held.count), to: 0, by: -1) where marker.hasPrefix(held.suffix(length)) {
            keep = length
            break
        }
        let released = String(held.dropLast(keep))
        held = String(held.suffix(keep))
        return (released, false, "")
    }

    /// The held text at the end of the reply.
    mutating func flush() -> String {
        defer { held = "" }
        return held
    }
}

/// Turns the text of one call, as the model writes it (`{"name": "…", "arguments": {…}}`),
/// into stream pieces: the call's id and name once the name is written, then the arguments'
/// text as it grows, then the whole call. The pieces' arguments put together are the whole
/// call's arguments.
struct ToolCallStreamer {
    /// The call's position among the reply's calls.
    let index: Int
    private let id = ToolCall.newID()
    private var text = ""
    private var end = JSONValueEnd()
    private var name: String?
    /// Where the arguments start in `text`, once known.
    private var argumentsStart: String.Index?
    /// How much of `text` went out as arguments.
    private var sent: String.Index?

    init(index: Int) {
        self.index = index
    }

    /// What `piece` adds: pieces to stream, and the whole call when `piece` completes it.
    /// - Throws: when the completed text is not a call.
    mutating func feed(_ piece: String) throws(ProviderError) -> (pieces: [ToolCallDelta], call: ToolCall?) {
        let completes = end.feed(piece)
        text += completes.map { String(piece.prefix($0)) } ?? piece
        var pieces: [ToolCallDelta] = []
        if name == nil, let (found, start) = Self.head(of: text) {
            name = found
            argumentsStart = start
            sent = start
            pieces.append(ToolCallDelta(index: index, id: id, name: found))
        }
        guard let name, let argumentsStart, let from = sent else {
            if completes != nil { throw .invalidInput("the model wrote a tool call that could not be read: \(text.prefix(200))") }
            return (pieces, nil)
        }
        // The arguments run to the end of the text, less the call's own closing brace.
        var upTo = text.endIndex
        if completes != nil, let close = text.lastIndex(of: "}") {
            upTo = close
            while upTo > from, text[text.index(before: upTo)].isWhitespace { upTo = text.index(before: upTo) }
        }
        if upTo > from {
            pieces.append(ToolCallDelta(index: index, arguments: String(text[from..<upTo])))
            sent = upTo
        }
        guard completes != nil else { return (pieces, nil) }
        let arguments = String(text[argumentsStart..<upTo])
        guard (try? JSONValue(parsing: arguments))?.object != nil else {
            throw .invalidInput("the model wrote tool arguments that are not a JSON object: \(arguments.prefix(200))")
        }
        return (pieces, ToolCall(id: id, name: name, arguments: arguments))
    }

    /// The name, and where the arguments' value starts, once `text` has both: `{"name":
    /// "NAME", "arguments": ` and the first character of the value.
    private static func head(of text: String) -> (String, String.Index)? {
        guard let key = text.range(of: "\"arguments\":") else { return nil }
        guard let start = text[key.upperBound...].firstIndex(where: { !$0.isWhitespace }) else { return nil }
        let before = String(text[..<key.lowerBound])
        guard let nameKey = before.range(of: "\"name\":"),
              let value = try? JSONValue(parsing: before[nameKey.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines.union([","]))),
              let name = value.string else { return nil }
        return (name, start)
    }
}

/// Watches the start of a reply for a call written without the marker, in the shapes small
/// models write: bare JSON (`{"name": …`), JSON in a code block (```` ```json ````), other
/// templates' tags (`<tools>`, `<function…`, `<functioncall>`, `<tool_call` misspelt), or a
/// declared tool's name called like a function (`set_timer(minutes=12)`, bare or in a code
/// block). The start is held until it is clearly one or the other; a call's arguments are
/// then written under the call grammar, so they follow the tool's schema.
struct CallOpening: Sendable {
    /// What the start of the reply is.
    enum Verdict: Equatable {
        /// Not known yet: the text is held.
        case undecided
        /// A call: the held text is to be taken back and the call opened properly.
        case call
        /// Text: the held text goes out.
        case text(String)
    }

    /// Starts that open a call whatever the tools are called.
    static let patterns = ["{\"", "```json\n{", "```json\n {", "```\n{", "```JSON\n{",
                           "<tools>", "<tool>", "<function", "<functioncall>", "<tool_call", "<toolcall>"]
    /// The starts that open a call: ``patterns``, and each tool's name called as a function.
    let starts: [String]
    private var held = ""

    /// Watches for calls of the tools named `toolNames` (and the JSON and tag shapes).
    init(toolNames: [String] = []) {
        var starts = Self.patterns
        for name in toolNames where !name.isEmpty {
            starts += [name + "(", "```python\n" + name + "(", "```\n" + name + "("]
        }
        self.starts = starts
    }

    /// Adds a piece of the reply's start.
    mutating func push(_ piece: String) -> Verdict {
        held += piece
        let start = String(held.drop(while: \.isWhitespace))
        if start.isEmpty { return .undecided }
        if starts.contains(where: { start.hasPrefix($0) }) { return .call }
        if starts.contains(where: { $0.hasPrefix(start) }) { return .undecided }
        defer { held = "" }
        return .text(held)
    }

    /// The held text, at the end of the reply.
    mutating func flush() -> String {
        defer { held = "" }
        return held
    }
}
