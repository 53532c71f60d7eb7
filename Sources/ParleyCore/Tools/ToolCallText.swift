/// The text that opens and closes a call in the on-device tool format (Qwen2.5's:
/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>`).
package enum ToolCallMarker {
    /// The text that opens a call.
    package static let open = "<tool_call>"
    /// The text that closes a call.
    package static let close = "</tool_call>"
}

/// Finds where a JSON value that streams in ends: feed it text, and it says how many of the
/// fed characters complete the value (the closing brace of the outermost object).
package struct JSONValueEnd: Sendable {
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var started = false

    /// Watches a value that has not started yet.
    package init() {}

    /// Feeds `text`; returns the offset (in characters) just past the value's end when it ends
    /// in `text`, else `nil`.
    package mutating func feed(_ text: String) -> Int? {
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
/// could be the start of ``ToolCallMarker/open``, which is held until it is clearly not.
package struct ToolCallTrigger: Sendable {
    private var held = ""

    /// Watches text that has not started yet.
    package init() {}

    /// What `piece` releases as text, and whether the call marker was found (the text before
    /// it is released; what follows the marker is returned as `after`).
    package mutating func push(_ piece: String) -> (text: String, triggered: Bool, after: String) {
        held += piece
        if let range = held.range(of: ToolCallMarker.open) {
            let before = String(held[..<range.lowerBound])
            let after = String(held[range.upperBound...])
            held = ""
            return (before, true, after)
        }
        // Keep the longest tail that is a prefix of the marker.
        let marker = ToolCallMarker.open
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
    package mutating func flush() -> String {
        defer { held = "" }
        return held
    }
}

/// Turns the text of one call, as the model writes it (`{"name": "…", "arguments": {…}}`),
/// into stream pieces: the call's id and name once the name is written, then the arguments'
/// text as it grows, then the whole call. The pieces' arguments put together are the whole
/// call's arguments.
package struct ToolCallStreamer: Sendable {
    /// The call's position among the reply's calls.
    package let index: Int
    private let id = ToolCall.newID()
    private var text = ""
    private var end = JSONValueEnd()
    private var name: String?
    /// Where the arguments start in `text`, once known.
    private var argumentsStart: String.Index?
    /// How much of `text` went out as arguments.
    private var sent: String.Index?

    package init(index: Int) {
        self.index = index
    }

    /// What `piece` adds: pieces to stream, and the whole call when `piece` completes it.
    /// - Throws: when the completed text is not a call.
    package mutating func feed(_ piece: String) throws(ProviderError) -> (pieces: [ToolCallDelta], call: ToolCall?) {
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
            let name = value.string
        else { return nil }
        return (name, start)
    }
}

/// Watches the start of a reply for a call written without the marker, in the shapes small
/// models write: bare JSON (`{"name": …`), JSON in a code block (```` ```json ````), other
/// templates' tags (`<tools>`, `<function…`, `<functioncall>`, `<tool_call` misspelt), or a
/// declared tool's name called like a function (`set_timer(minutes=12)`, bare or in a code
/// block). The start is held until it is clearly one or the other; a call's arguments are
/// then written under the call grammar, so they follow the tool's schema.
package struct CallOpening: Sendable {
    /// What the start of the reply is.
    package enum Verdict: Sendable, Equatable {
        /// Not known yet: the text is held.
        case undecided
        /// A call: the held text is to be taken back and the call opened properly.
        case call
        /// Text: the held text goes out.
        case text(String)
    }

    /// Starts that open a call whatever the tools are called.
    package static let patterns = [
        "{\"", "```json\n{", "```json\n {", "```\n{", "```JSON\n{",
        "<tools>", "<tool>", "<function", "<functioncall>", "<tool_call", "<toolcall>",
    ]
    /// The starts that open a call: ``patterns``, and each tool's name called as a function.
    package let starts: [String]
    private var held = ""

    /// Watches for calls of the tools named `toolNames` (and the JSON and tag shapes).
    package init(toolNames: [String] = []) {
        var starts = Self.patterns
        for name in toolNames where !name.isEmpty {
            starts += [name + "(", "```python\n" + name + "(", "```\n" + name + "("]
        }
        self.starts = starts
    }

    /// Adds a piece of the reply's start.
    package mutating func push(_ piece: String) -> Verdict {
        held += piece
        let start = String(held.drop(while: \.isWhitespace))
        if start.isEmpty { return .undecided }
        if starts.contains(where: { start.hasPrefix($0) }) { return .call }
        if starts.contains(where: { $0.hasPrefix(start) }) { return .undecided }
        defer { held = "" }
        return .text(held)
    }

    /// The held text, at the end of the reply.
    package mutating func flush() -> String {
        defer { held = "" }
        return held
    }
}
