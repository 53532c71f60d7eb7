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
    var tools: [JSONValue]?
    /// OpenAI's end-user id: a request that names one is personal and never cached.
    var user: String?
    /// OpenAI's "keep this completion"; `false` keeps the request out of the cache too.
    var store: Bool?

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

        enum CodingKeys: String, CodingKey { case role, content }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            role = try container.decode(String.self, forKey: .role)
            content = try container.decodeIfPresent(Content.self, forKey: .content) ?? .parts([])
        }
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
        if let tools, !tools.isEmpty { throw .invalidRequest("Tools are not supported by this server.", param: "tools") }
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
            guard limit >= 1 else { throw .invalidRequest("'\(name)' must be at least 1.", param: name) }
            sampling.maxTokens = limit
        }
        if let stop {
            guard stop.sequences.count <= 4 else { throw .invalidRequest("'stop' holds at most 4 sequences.", param: "stop") }
            sampling.stop = stop.sequences.filter { !$0.isEmpty }
        }
        if let seed { sampling.seed = UInt32(truncatingIfNeeded: seed) }

        var system: [String] = []
        var conversation: [ChatMessage] = []
        for (index, message) in messages.enumerated() {
            let parts = try Self.parts(of: message.content, at: index)
            switch message.role {
            case "system", "developer":
                system.append(ChatMessage(role: .system, parts: parts).text)
            case "user":
                conversation.append(ChatMessage(role: .user, parts: parts))
            case "assistant":
                conversation.append(ChatMessage(role: .assistant, parts: parts))
            default:
                throw .invalidRequest("Invalid role '\(message.role)': use system, developer, user or assistant.", param: "messages[\(index)].role")
            }
        }
        // Models read one system message, first.
        let instructions = system.filter { !$0.isEmpty }.joined(separator: "\n\n")
        if !instructions.isEmpty { conversation.insert(.system(instructions), at: 0) }
        guard conversation.contains(where: { $0.role != .system }) else {
            throw .invalidRequest("'messages' must hold a user message.", param: "messages")
        }

        var request = ChatRequest(messages: conversation, sampling: sampling)
        if let format = response_format {
            switch format.type {
            case "text", "json_object":
                break
            case "json_schema":
                guard let schema = format.json_schema?.schema else {
                    throw .invalidRequest("'response_format.json_schema.schema' is required.", param: "response_format")
                }
                request.responseSchema = ResponseSchema(name: format.json_schema?.name ?? "response", schema: schema,
                                                        strict: format.json_schema?.strict ?? true)
                request.task = .structuredOutput
            default:
                throw .invalidRequest("Invalid 'response_format.type' \(format.type): use text, json_object or json_schema.", param: "response_format")
            }
        }
        if request.hasImages { request.task = .vision }
        return request
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
            throw .invalidRequest("Images must be sent as data: URLs (data:image/png;base64,…); this server does not fetch remote images.",
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
