import Foundation
import ParleyCore

/// How the on-device model sees tools and writes calls: the format of Qwen2.5's chat template
/// (the tools listed as JSON inside `<tools></tools>` in the system message, each call as
/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, results as `<tool_response>` in a
/// user turn). Models whose template has no tool format get the same text as plain
/// instructions: it is explicit enough to follow, and the grammar keeps every call well-formed.
enum ToolCallFormat {
    /// The text that opens a call.
    static let open = ToolCallMarker.open
    /// The text that closes a call.
    static let close = ToolCallMarker.close

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
        text +=
            "\n\nCall a function yourself whenever one can help; never tell the user to call it. For general knowledge and small talk, answer directly in words."
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
