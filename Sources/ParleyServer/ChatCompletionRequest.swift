import Foundation
import ParleyCore

/// The body of `POST /v1/chat/completions` as OpenAI documents it, and its translation into a
/// ``ChatRequest``. Fields Parley cannot honour are refused with a 400 naming them rather than
/// silently ignored.
struct ChatCompletionRequest: Decodable, Sendable {
    var model: String?
    var messages: [Message]
    var stream: Bool?
    var stream_options: StreamOptions?
    var max_tokens: Int?
    var max_completion_tokens: Int?
    var temperature: Double?
    var top_p: Double?
    var stop: Stop?
    var seed: Int64?
    var n: Int?
    var response_format: ResponseFormat?
    /// `[{"type": "function", "function": {"name", "description", "parameters", "strict"}}]`.
    var tools: [JSONValue]?
    /// `"auto"`, `"none"`, `"required"` or `{"type": "function", "function": {"name": …}}`.
    var tool_choice: JSONValue?
    var parallel_tool_calls: Bool?
    /// OpenAI's end-user id: a request that names one is personal and never cached.
    var user: String?
    /// OpenAI's "keep this completion"; `false` keeps the request out of the cache too.
    var store: Bool?
    /// Parley's extensions, in an object of their own (the SDKs send it with `extra_body`).
    var parley: ParleyOptions?

    /// `parley`: `{"builtin_tools": true}` lets the model look things up with the server's
    /// built-in tools (the user's materials, assignments, the date) before it answers; the
    /// server runs them, and only calls to the client's own `tools` come back.
    struct ParleyOptions: Decodable, Sendable {
        var builtin_tools: Bool?
    }

    /// Whether the request asks for the built-in tools.
    var wantsBuiltinTools: Bool { parley?.builtin_tools ?? false }

    struct StreamOptions: Decodable, Sendable {
        var include_usage: Bool?
    }

    /// `stop`: one string or up to four.
    struct Stop: Decodable, Sendable {
        var sequences: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                sequences = []
            } else if let one = try? container.decode(String.self) {
                sequences = [one]
            } else {
                sequences = try container.decode([String].self)
            }
        }
    }

    struct ResponseFormat: Decodable, Sendable {
        struct Schema: Decodable, Sendable {
            var name: String?
            var schema: JSONValue?
            var strict: Bool?
        }
        var type: String
        var json_schema: Schema?
    }

    struct Message: Decodable, Sendable {
        var role: String
        var content: Content
        /// An assistant message's calls.
        var tool_calls: [ToolCallItem]?
        /// A tool message's call.
        var tool_call_id: String?

        enum CodingKeys: String, CodingKey { case role, content, tool_calls, tool_call_id }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            role = try container.decode(String.self, forKey: .role)
            content = try container.decodeIfPresent(Content.self, forKey: .content) ?? .parts([])
            tool_calls = try container.decodeIfPresent([ToolCallItem].self, forKey: .tool_calls)
            tool_call_id = try container.decodeIfPresent(String.self, forKey: .tool_call_id)
        }
    }

    /// One call in an assistant message's `tool_calls`.
    struct ToolCallItem: Decodable, Sendable {
        struct Function: Decodable, Sendable {
            var name: String
            var arguments: String?
        }
        var id: String
        var type: String?
        var function: Function
    }

    /// A message's content: a string, or an array of parts.
    enum Content: Decodable, Sendable {
        case text(String)
        case parts([Part])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .parts([])
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .parts(try container.decode([Part].self))
            }
        }
    }

    struct Part: Decodable, Sendable {
        struct ImageURL: Decodable, Sendable {
            var url: String

            enum CodingKeys: String, CodingKey { case url }

            init(from decoder: any Decoder) throws {
                // Some clients send the URL itself rather than an object.
                if let url = try? decoder.singleValueContainer().decode(String.self) {
                    self.url = url
                } else {
                    url = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .url)
                }
            }
        }
        var type: String
        var text: String?
        var image_url: ImageURL?
    }

    /// The reply length when the client sets none.
    static let defaultMaxTokens = 512
    /// The reply lengths a client may ask for: a bound, so that no sum of lengths overflows.
    static let maxTokensRange = 1...1_000_000

    /// Whether the reply is streamed.
    var streams: Bool { stream ?? false }

    /// Whether a streamed reply ends with a usage chunk.
    var includesUsage: Bool { stream_options?.include_usage ?? false }

    /// The request for a language model; throws a 400 for what cannot be served.
    func chatRequest() throws(OpenAIError) -> ChatRequest {
        guard !messages.isEmpty else {
            throw .invalidRequest("'messages' must hold at least one message.", param: "messages")
        }
        if let n, n != 1 { throw .invalidRequest("Only n=1 is supported.", param: "n") }
        let definitions = try Self.definitions(tools ?? [])
        let choice = try Self.choice(tool_choice, among: definitions)
        var sampling = SamplingOptions(temperature: 1, topP: 1, maxTokens: Self.defaultMaxTokens)
        if let temperature {
            guard (0...2).contains(temperature) else { throw .invalidRequest("'temperature' must be between 0 and 2.", param: "temperature") }
            sampling.temperature = temperature
        }
        if let top_p {
            guard top_p > 0, top_p <= 1 else { throw .invalidRequest("'top_p' must be above 0 and at most 1.", param: "top_p") }
            sampling.topP = top_p
        }
        if let limit = max_completion_tokens ?? max_tokens {
            let name = max_completion_tokens != nil ? "max_completion_tokens" : "max_tokens"
            guard Self.maxTokensRange.contains(limit) else {
                throw .invalidRequest("'\(name)' must be from 1 to \(Self.maxTokensRange.upperBound).", param: name)
            }
            sampling.maxTokens = limit
        }
        if let stop {
            guard stop.sequences.count <= 4 else { throw .invalidRequest("'stop' holds at most 4 sequences.", param: "stop") }
            sampling.stop = stop.sequences.filter { !$0.isEmpty }
        }
        if let seed { sampling.seed = UInt32(truncatingIfNeeded: seed) }

        var system: [String] = []
        var conversation: [ChatMessage] = []
        var callsMade: [String: String] = [:]
        for (index, message) in messages.enumerated() {
            let parts = try Self.parts(of: message.content, at: index)
            switch message.role {
            case "system", "developer":
                system.append(ChatMessage(role: .system, parts: parts).text)
            case "user":
                conversation.append(ChatMessage(role: .user, parts: parts))
            case "assistant":
                let calls = (message.tool_calls ?? []).map { ToolCall(id: $0.id, name: $0.function.name, arguments: $0.function.arguments ?? "{}") }
                for (position, call) in calls.enumerated() {
                    guard !call.id.isEmpty else {
                        throw .invalidRequest("A tool call needs an 'id'.", param: "messages[\(index)].tool_calls[\(position)].id")
                    }
                    callsMade[call.id] = call.name
                }
                conversation.append(ChatMessage(role: .assistant, parts: parts.filter { $0 != .text("") }, toolCalls: calls))
            case "tool":
                guard let id = message.tool_call_id, !id.isEmpty else {
                    throw .invalidRequest("A tool message needs 'tool_call_id', the id of the call it answers.", param: "messages[\(index)].tool_call_id")
                }
                guard let name = callsMade[id] else {
                    throw .invalidRequest(
                        "The tool message answers '\(id.prefix(64))', which no earlier assistant message called.",
                        param: "messages[\(index)].tool_call_id")
                }
                let content = ChatMessage(role: .tool, parts: parts).text
                guard content.utf8.count <= Self.toolResultLimit else {
                    throw .invalidRequest(
                        "The tool result is \(content.utf8.count) bytes; at most \(Self.toolResultLimit) are accepted.",
                        param: "messages[\(index)].content")
                }
                conversation.append(.tool(callID: id, name: name, content: content))
            default:
                throw .invalidRequest("Invalid role '\(message.role)': use system, developer, user, assistant or tool.", param: "messages[\(index)].role")
            }
        }
        // Models read one system message, first.
        let instructions = system.filter { !$0.isEmpty }.joined(separator: "\n\n")
        if !instructions.isEmpty { conversation.insert(.system(instructions), at: 0) }
        // Instructions alone are a request too, as OpenAI takes them (an assistant that speaks
        // first); only empty messages are not.
        guard !conversation.isEmpty else {
            throw .invalidRequest("'messages' holds no text: send a user message, or instructions to answer.", param: "messages")
        }

        var request = ChatRequest(
            messages: conversation, sampling: sampling, tools: definitions, toolChoice: choice,
            parallelToolCalls: parallel_tool_calls ?? true)
        if let format = response_format {
            switch format.type {
            case "text":
                break
            case "json_object":
                // Any JSON object: the structured generator makes it one (grammar-constrained on
                // the on-device model), rather than hoping the model writes JSON.
                request.responseSchema = ResponseSchema(name: "json_object", schema: ["type": "object"], strict: false)
                request.task = .structuredOutput
            case "json_schema":
                guard let schema = format.json_schema?.schema else {
                    throw .invalidRequest("'response_format.json_schema.schema' is required.", param: "response_format")
                }
                request.responseSchema = ResponseSchema(
                    name: format.json_schema?.name ?? "response", schema: schema,
                    strict: format.json_schema?.strict ?? true)
                request.task = .structuredOutput
            default:
                throw .invalidRequest("Invalid 'response_format.type' \(format.type): use text, json_object or json_schema.", param: "response_format")
            }
        }
        if request.hasImages { request.task = .vision }
        return request
    }

    /// The largest tool result accepted in a message: 256 KB.
    static let toolResultLimit = 256 * 1024

    /// `tools` read into definitions; a malformed tool is a 400 naming it.
    static func definitions(_ tools: [JSONValue]) throws(OpenAIError) -> [ToolDefinition] {
        do {
            return try ToolDefinition.openAI(tools)
        } catch {
            switch error.reason {
            case .notAFunction:
                throw .invalidRequest(
                    "Each tool must be {\"type\": \"function\", \"function\": {\"name\": …, \"parameters\": {…}}}.",
                    param: "tools[\(error.index)]")
            case .definition(let problem):
                throw .invalidRequest("\(problem)", param: "tools[\(error.index)].function")
            }
        }
    }

    /// `tool_choice` read against the declared tools; a choice naming an undeclared tool, or
    /// requiring a call with no tools, is a 400.
    static func choice(_ value: JSONValue?, among tools: [ToolDefinition]) throws(OpenAIError) -> ToolChoice {
        let choice: ToolChoice
        switch value {
        case nil, .null?, .string("auto")?: choice = .auto
        case .string("none")?: choice = .none
        case .string("required")?: choice = .required
        case .object(let members)?:
            guard members["type"]?.string == "function", let name = members["function"]?["name"]?.string else {
                throw .invalidRequest(
                    "'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": …}}.",
                    param: "tool_choice")
            }
            guard tools.contains(where: { $0.name == name }) else {
                throw .invalidRequest("'tool_choice' names the function '\(name.prefix(64))', which is not among 'tools'.", param: "tool_choice")
            }
            choice = .function(name)
        default:
            throw .invalidRequest(
                "'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": …}}.",
                param: "tool_choice")
        }
        if choice.forcesCall, tools.isEmpty {
            throw .invalidRequest("'tool_choice' requires a call, but no 'tools' were given.", param: "tool_choice")
        }
        return choice
    }

    private static func parts(of content: Content, at index: Int) throws(OpenAIError) -> [ChatMessage.Part] {
        switch content {
        case .text(let text):
            return [.text(text)]
        case .parts(let parts):
            var converted: [ChatMessage.Part] = []
            for (position, part) in parts.enumerated() {
                let param = "messages[\(index)].content[\(position)]"
                switch part.type {
                case "text":
                    guard let text = part.text else { throw .invalidRequest("A text part needs 'text'.", param: param) }
                    converted.append(.text(text))
                case "image_url":
                    guard let url = part.image_url?.url else { throw .invalidRequest("An image part needs 'image_url.url'.", param: param) }
                    converted.append(try image(fromDataURL: url, param: param))
                default:
                    throw .invalidRequest("Unsupported content part type '\(part.type)': use text or image_url.", param: param)
                }
            }
            return converted
        }
    }

    /// An image from a `data:` URL (`data:image/png;base64,…`). Remote URLs are refused: the
    /// server does not fetch from addresses a client names.
    static func image(fromDataURL url: String, param: String) throws(OpenAIError) -> ChatMessage.Part {
        guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ",") else {
            throw .invalidRequest(
                "Images must be sent as data: URLs (data:image/png;base64,…); this server does not fetch remote images.",
                param: param, code: "invalid_image_url")
        }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        let attributes = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let mimeType = attributes.first.flatMap { $0.contains("/") ? $0 : nil } ?? "image/png"
        guard mimeType.hasPrefix("image/"), attributes.contains("base64") else {
            throw .invalidRequest("An image data URL must be base64-encoded and of an image/* type.", param: param, code: "invalid_image_url")
        }
        guard let data = Data(base64Encoded: String(url[url.index(after: comma)...]), options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw .invalidRequest("The image data URL does not hold valid base64.", param: param, code: "invalid_image_url")
        }
        // The bytes say what the image is (and whether it is whole), not the URL's header.
        do {
            return try ImageAttachment.validated(data, name: "in \(param)").part
        } catch {
            throw .invalidRequest(error.description, param: param, code: "invalid_image")
        }
    }
}
