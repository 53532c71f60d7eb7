import Foundation

/// One message of a conversation sent to a language model.
public struct ChatMessage: Sendable, Equatable, Codable {
    /// Who wrote the message.
    public enum Role: String, Sendable, Codable, CaseIterable {
        /// Instructions that open the conversation.
        case system
        /// The person: a spoken or typed turn.
        case user
        /// The model's reply.
        case assistant
    }

    /// A piece of a message's content.
    public enum Part: Sendable, Equatable, Codable {
        /// Plain text.
        case text(String)
        /// An image, for vision-capable models.
        case image(data: Data, mimeType: String)
    }

    /// Who wrote the message.
    public var role: Role
    /// The content, in order.
    public var parts: [Part]

    /// Creates a message from parts.
    public init(role: Role, parts: [Part]) {
        self.role = role
        self.parts = parts
    }

    /// Creates a text message.
    public init(role: Role, text: String) {
        self.init(role: role, parts: [.text(text)])
    }

    /// A system message.
    public static func system(_ text: String) -> ChatMessage { ChatMessage(role: .system, text: text) }
    /// A user message.
    public static func user(_ text: String) -> ChatMessage { ChatMessage(role: .user, text: text) }
    /// An assistant message.
    public static func assistant(_ text: String) -> ChatMessage { ChatMessage(role: .assistant, text: text) }

    /// The text parts joined together.
    public var text: String {
        parts.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
    }

    /// Whether any part is an image.
    public var hasImages: Bool {
        parts.contains { if case .image = $0 { true } else { false } }
    }
}

/// How a language model picks tokens.
public struct SamplingOptions: Sendable, Equatable {
    /// Softmax temperature; 0 picks the most likely token (greedy).
    public var temperature: Double
    /// Nucleus sampling mass.
    public var topP: Double
    /// Keep only the `topK` most likely tokens; 0 disables.
    public var topK: Int
    /// The most tokens to generate.
    public var maxTokens: Int
    /// Seed for reproducible sampling; `nil` for a random seed.
    public var seed: UInt32?
    /// Stop when the output ends with any of these strings (not included in the output).
    public var stop: [String]

    /// Creates options. The defaults suit short spoken answers.
    public init(
        temperature: Double = 0.2, topP: Double = 0.9, topK: Int = 40,
        maxTokens: Int = 256, seed: UInt32? = nil, stop: [String] = []
    ) {
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.maxTokens = maxTokens
        self.seed = seed
        self.stop = stop
    }
}

/// A request to a language model.
public struct ChatRequest: Sendable, Equatable {
    /// The conversation so far, oldest first; a system message, if any, comes first.
    public var messages: [ChatMessage]
    /// Sampling settings.
    public var sampling: SamplingOptions
    /// What the request is for; routing picks providers by it.
    public var task: TaskKind
    /// Private requests never leave the machine.
    public var isPrivate: Bool
    /// A provider that overrides automatic routing, by name.
    public var forcedProvider: String?
    /// A JSON schema the reply must follow, for structured output.
    public var responseSchema: ResponseSchema?

    /// Creates a request.
    public init(messages: [ChatMessage], sampling: SamplingOptions = SamplingOptions(), task: TaskKind = .conversation,
                isPrivate: Bool = false, forcedProvider: String? = nil, responseSchema: ResponseSchema? = nil) {
        self.messages = messages
        self.sampling = sampling
        self.task = task
        self.isPrivate = isPrivate
        self.forcedProvider = forcedProvider
        self.responseSchema = responseSchema
    }

    /// Whether any message carries an image.
    public var hasImages: Bool { messages.contains(where: \.hasImages) }
}

/// What a language-model request is for.
public enum TaskKind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case conversation
    case vision
    case structuredOutput = "structured_output"
    case mindMap = "mind_map"
    case simplification
    case taskBreakdown = "task_breakdown"
    case longDocument = "long_document"
    case entityExtraction = "entity_extraction"
    case summary
    /// Recall's resolve: a request in its context → the intent → an answer with candidates.
    case resolve
}

/// Token and time accounting for one request, in a shape shared by every provider.
///
/// Encoded with snake_case keys: `input_tokens`, `cached_input_tokens`, `output_tokens`.
public struct Usage: Sendable, Equatable, Codable {
    /// Tokens read (the prompt), including any served from a cache.
    public var inputTokens: Int
    /// Prompt tokens that were reused from a cache and not processed again.
    public var cachedInputTokens: Int
    /// Tokens generated.
    public var outputTokens: Int

    /// Creates usage figures.
    public init(inputTokens: Int = 0, cachedInputTokens: Int = 0, outputTokens: Int = 0) {
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case cachedInputTokens = "cached_input_tokens"
        case outputTokens = "output_tokens"
    }
}

/// Why generation ended.
public enum FinishReason: String, Sendable, Equatable, Codable {
    /// The model ended its answer.
    case stop
    /// The token limit was reached.
    case length
    /// The caller cancelled.
    case cancelled
}

/// An event of a streamed chat completion.
public enum ChatEvent: Sendable, Equatable {
    /// A piece of the reply's text (whole UTF-8 characters).
    case text(String)
    /// The end of the reply.
    case finished(FinishReason, Usage)
    /// Which provider is answering (sent by chains before the text of the provider that
    /// serves, so callers can report who answered).
    case provider(ProviderIdentity)
}

/// Generates text from a conversation.
public protocol LanguageModelProvider: Provider {
    /// What the provider can do with a request (images, JSON schema, tools, context size).
    /// Declared truthfully: a request that needs more fails with ``UnsupportedCapabilityError``
    /// instead of losing part of its content.
    var capabilities: LanguageModelCapabilities { get }

    /// Streams the reply to `request`. Cancelling the consuming task stops generation
    /// promptly; the stream then ends without an error. A request that needs a capability the
    /// provider lacks ends the stream with ``UnsupportedCapabilityError``.
    func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error>
}

extension LanguageModelProvider {
    /// Runs `request` to the end and returns the whole reply and its usage.
    public func completeText(_ request: ChatRequest) async throws -> (text: String, usage: Usage, finish: FinishReason) {
        var text = ""
        var usage = Usage()
        var finish = FinishReason.stop
        for try await event in complete(request) {
            switch event {
            case .text(let piece): text += piece
            case .finished(let reason, let reported):
                usage = reported
                finish = reason
            case .provider:
                break
            }
        }
        return (text, usage, finish)
    }
}
