import Foundation

/// One message of a conversation sent to a language model.
public struct ChatMessage: Sendable, Equatable, Codable {
    /// Who wrote the message.
    public enum Role: String, Sendable, Codable, CaseIterable {
        /// Instructions that open the conversation.
        case system
        /// The person: a spoken or typed turn.
        case user
        /// The model's reply (text, tool calls, or both).
        case assistant
        /// The result of a tool the model called (``ChatMessage/toolCallID`` names the call).
        case tool
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
    /// The tools an assistant message calls, in order (empty for other messages).
    public var toolCalls: [ToolCall]
    /// For a tool message, the id of the call it answers.
    public var toolCallID: String?
    /// For a tool message, the name of the function that answered, when known (Ollama and
    /// some templates want it).
    public var toolName: String?
    /// For a tool message, whether the tool failed (its text then says how).
    public var isToolError: Bool

    /// Creates a message from parts.
    public init(
        role: Role, parts: [Part], toolCalls: [ToolCall] = [], toolCallID: String? = nil, toolName: String? = nil,
        isToolError: Bool = false
    ) {
        self.role = role
        self.parts = parts
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.toolName = toolName
        self.isToolError = isToolError
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
    /// An assistant message that calls tools (with the text it wrote before the calls, if any).
    public static func assistant(_ text: String = "", toolCalls: [ToolCall]) -> ChatMessage {
        ChatMessage(role: .assistant, parts: text.isEmpty ? [] : [.text(text)], toolCalls: toolCalls)
    }
    /// A tool's result (or, with `isError`, what went wrong), answering the call `callID`.
    public static func tool(callID: String, name: String? = nil, content: String, isError: Bool = false) -> ChatMessage {
        ChatMessage(role: .tool, parts: [.text(content)], toolCallID: callID, toolName: name, isToolError: isError)
    }

    /// The text parts joined together.
    public var text: String {
        parts.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
    }

    /// Whether any part is an image.
    public var hasImages: Bool {
        parts.contains { if case .image = $0 { true } else { false } }
    }

    /// Whether the message belongs to a tool exchange: an assistant's calls or a tool's result.
    public var isToolExchange: Bool { role == .tool || !toolCalls.isEmpty }

    enum CodingKeys: String, CodingKey {
        case role, parts
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
        case toolName = "tool_name"
        case isToolError = "is_tool_error"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(Role.self, forKey: .role)
        parts = try container.decode([Part].self, forKey: .parts)
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
        toolName = try container.decodeIfPresent(String.self, forKey: .toolName)
        isToolError = try container.decodeIfPresent(Bool.self, forKey: .isToolError) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(parts, forKey: .parts)
        if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
        try container.encodeIfPresent(toolName, forKey: .toolName)
        if isToolError { try container.encode(isToolError, forKey: .isToolError) }
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
    /// The functions the model may call.
    public var tools: [ToolDefinition]
    /// Whether and which of ``tools`` the model may call.
    public var toolChoice: ToolChoice
    /// Whether the model may call several tools in one reply (providers that can choose).
    public var parallelToolCalls: Bool

    /// Creates a request.
    public init(
        messages: [ChatMessage], sampling: SamplingOptions = SamplingOptions(), task: TaskKind = .conversation,
        isPrivate: Bool = false, forcedProvider: String? = nil, responseSchema: ResponseSchema? = nil,
        tools: [ToolDefinition] = [], toolChoice: ToolChoice = .auto, parallelToolCalls: Bool = true
    ) {
        self.messages = messages
        self.sampling = sampling
        self.task = task
        self.isPrivate = isPrivate
        self.forcedProvider = forcedProvider
        self.responseSchema = responseSchema
        self.tools = tools
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
    }

    /// Whether any message carries an image.
    public var hasImages: Bool { messages.contains(where: \.hasImages) }

    /// Whether the model may call tools: some are declared and the choice is not ``ToolChoice/none``.
    public var offersTools: Bool { !tools.isEmpty && toolChoice != .none }

    /// The tools the model may call under ``toolChoice`` (only the named one for a named choice).
    public var callableTools: [ToolDefinition] {
        switch toolChoice {
        case .none: []
        case .auto, .required: tools
        case .function(let name): tools.filter { $0.name == name }
        }
    }

    /// The declared tool named `name`.
    public func tool(named name: String) -> ToolDefinition? {
        tools.first { $0.name == name }
    }
}

/// What a language-model request is for.
public enum TaskKind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// A turn of a conversation, spoken or typed.
    case conversation
    /// A request with images, for a model that sees them.
    case vision
    /// A reply that must be JSON valid against a schema.
    case structuredOutput = "structured_output"
    /// A mind map of a text.
    case mindMap = "mind_map"
    /// A text rewritten to be easier to read.
    case simplification
    /// An assignment broken into steps.
    case taskBreakdown = "task_breakdown"
    /// A document longer than a small model's context.
    case longDocument = "long_document"
    /// The people, places, dates and terms a text names.
    case entityExtraction = "entity_extraction"
    /// A text's summary.
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

    /// Tokens read and generated together; `Int.max` rather than a trap when a provider
    /// reports counts whose sum does not fit.
    public var totalTokens: Int {
        let (sum, overflowed) = inputTokens.addingReportingOverflow(outputTokens)
        return overflowed ? (outputTokens < 0 ? Int.min : Int.max) : sum
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
    /// The model called tools; the caller runs them and sends the results back.
    case toolCalls = "tool_calls"
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
    /// A piece of a tool call as it streams (its whole form follows as ``toolCall(_:)``).
    case toolCallDelta(ToolCallDelta)
    /// A whole tool call, its arguments complete.
    case toolCall(ToolCall)
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

    /// Whether the model runs in this process on this machine's engine (llama.cpp), where a
    /// prompt costs nothing but time: the runtime orders it last, evaluates prompts ahead and
    /// starts replies early on it. By default `false`.
    var runsOnDevice: Bool { get }

    /// What evaluates the prompt of a reply while the user still speaks, when this model can
    /// (the on-device model); `nil` by default.
    var promptPrefiller: (any PromptPrefiller)? { get }

    /// What scores whether the user's words are a whole turn, when this model can (the
    /// on-device model); `nil` by default.
    var turnPredictor: (any TurnPredictor)? { get }

    /// The providers that may answer `request`, in the order they are tried: a chain's
    /// members, a wrapper's inner model (the one for images when `request` has some), or
    /// itself, the default. Callers report these as the chain, and the member that answers
    /// names itself with a ``ChatEvent/provider(_:)`` event.
    func members(for request: ChatRequest) -> [any LanguageModelProvider]

    /// How the chain that answers `request` fails over, for a caller that sends the request
    /// to its first member itself: a chain's (a wrapper's inner chain's); `nil` by default.
    func failover(for request: ChatRequest) -> LanguageModelFailover?

    /// The provider that would answer a request without images now: a chain's first ready
    /// member (as that member would answer), a wrapper's inner model, or itself, the default.
    func answerer() async -> any LanguageModelProvider
}

/// A whole reply: its text, the tools it calls, why it ended, its usage and who answered.
public struct ChatReply: Sendable, Equatable {
    /// The reply's text.
    public var text: String
    /// The tools the reply calls, in order.
    public var toolCalls: [ToolCall]
    /// Why the reply ended.
    public var finish: FinishReason
    /// The accounting.
    public var usage: Usage
    /// The provider that answered, when a chain said.
    public var provider: ProviderIdentity?

    /// Creates a reply.
    public init(
        text: String = "", toolCalls: [ToolCall] = [], finish: FinishReason = .stop, usage: Usage = Usage(),
        provider: ProviderIdentity? = nil
    ) {
        self.text = text
        self.toolCalls = toolCalls
        self.finish = finish
        self.usage = usage
        self.provider = provider
    }

    /// The reply as a message for the conversation's history.
    public var message: ChatMessage { .assistant(text, toolCalls: toolCalls) }
}

extension LanguageModelProvider {
    /// Runs `request` to the end and returns the whole reply and its usage.
    public func completeText(_ request: ChatRequest) async throws -> (text: String, usage: Usage, finish: FinishReason) {
        let reply = try await completeReply(request)
        return (reply.text, reply.usage, reply.finish)
    }

    /// Runs `request` to the end and returns the whole reply: text, tool calls, usage.
    public func completeReply(_ request: ChatRequest) async throws -> ChatReply {
        var reply = ChatReply()
        for try await event in complete(request) {
            switch event {
            case .text(let piece): reply.text += piece
            case .finished(let reason, let reported):
                reply.usage = reported
                reply.finish = reason
            case .provider(let identity):
                reply.provider = identity
            case .toolCall(let call):
                reply.toolCalls.append(call)
            case .toolCallDelta:
                break
            }
        }
        return reply
    }
}
