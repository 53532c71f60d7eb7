import Logging

/// A request for a value that follows a schema.
public struct StructuredRequest: Sendable, Equatable {
    /// The conversation, ending with what to produce; the schema instruction is added to it.
    public var messages: [ChatMessage]
    /// The schema the value must follow.
    public var schema: JSONSchema
    /// A short name for the schema.
    public var name: String
    /// Sampling settings.
    public var sampling: SamplingOptions
    /// What the request is for; it picks the providers' order.
    public var task: TaskKind
    /// Private requests stay on the machine.
    public var isPrivate: Bool

    /// Creates a request. The sampling defaults suit extraction: low temperature, room for
    /// a few hundred tokens of JSON.
    public init(
        messages: [ChatMessage], schema: JSONSchema, name: String = "response",
        sampling: SamplingOptions = SamplingOptions(temperature: 0.1, maxTokens: 768),
        task: TaskKind = .structuredOutput, isPrivate: Bool = false
    ) {
        self.messages = messages
        self.schema = schema
        self.name = name
        self.sampling = sampling
        self.task = task
        self.isPrivate = isPrivate
    }
}

/// A value that follows its schema, and who made it.
public struct StructuredResult: Sendable, Equatable {
    /// The value; it follows the request's schema.
    public var value: JSONValue
    /// The provider whose answer this is.
    public var provider: ProviderIdentity
    /// Why that provider: the order the task uses and what happened to those before it.
    public var reason: String
    /// Whether a repair round was needed.
    public var repaired: Bool
    /// The providers tried before, and why each did not serve.
    public var attempts: [ChainExhaustedError.Attempt]
    /// Tokens used, over every attempt.
    public var usage: Usage
}

/// What a structured generation reports while it runs.
public enum StructuredUpdate: Sendable, Equatable {
    /// A provider starts; partial values that follow are its own (earlier ones are void).
    case started(ProviderIdentity)
    /// The value so far, as the provider streams it (strings cut where they stop).
    case partial(JSONValue)
    /// The answer broke the schema and the provider is asked to correct it.
    case repairing(ProviderIdentity, [String])
    /// The provider's answer was not used, and why; the next provider follows.
    case discarded(ProviderIdentity, reason: String)
    /// The final value.
    case completed(StructuredResult)
}

/// No provider produced a value that follows the schema.
public struct StructuredGenerationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every provider considered, in order, and why it did not serve.
    public var attempts: [ChainExhaustedError.Attempt]

    public var description: String {
        guard !attempts.isEmpty else {
            return "No language model can produce structured output; configure one (the on-device model needs its GGUF file: run scripts/setup)."
        }
        return "No provider produced JSON that follows the schema: "
            + attempts.map { "\($0.provider): \($0.reason)" + ($0.remedy.map { " (\($0))" } ?? "") }.joined(separator: "; ") + "."
    }
}

/// Produces values that follow a JSON schema from whichever provider can.
///
/// Providers are tried in the order given (the generator's own, or one per request, such as
/// a task's). Each gets the schema natively (OpenAI `response_format`, Anthropic's forced
/// tool, Ollama `format`, a llama.cpp grammar) and as an instruction. Every answer is parsed
/// and validated; an invalid one gets `repairRounds` chances to be corrected, then the next
/// provider is tried, as is one that fails, lacks structured output, or is unavailable.
/// A private request is served only by on-device providers.
public struct StructuredGenerator<C: Clock>: Sendable where C.Duration == Duration {
    /// The providers, in the order used when a request brings none.
    public let providers: [any LanguageModelProvider]
    /// How many times an invalid answer is sent back for correction.
    public let repairRounds: Int
    private let failover: Failover<C>
    private let logger: Logger

    /// Creates a generator over `providers`, most preferred first.
    public init(
        providers: [any LanguageModelProvider], health: ProviderHealth<C>,
        repairRounds: Int = 1, logger: Logger = Logger(label: "parley.structured")
    ) {
        self.providers = providers
        self.repairRounds = max(0, repairRounds)
        self.failover = Failover(capability: "structured output", health: health, logger: logger)
        self.logger = logger
    }

    /// Produces one value that follows `request.schema`, from the providers in `order` when given.
    public func generate(
        _ request: StructuredRequest, order: [any LanguageModelProvider]? = nil, rules: [String] = [],
        check: (@Sendable (JSONValue) -> [String])? = nil
    ) async throws -> StructuredResult {
        // Nobody reads partial values here: the stream skips parsing them.
        for try await update in updates(request, order: order, rules: rules, check: check, partials: false) {
            if case .completed(let result) = update { return result }
        }
        throw CancellationError()
    }

    /// Produces a value of `type`.
    public func generate<T: StructuredOutput>(
        _ type: T.Type, messages: [ChatMessage], task: TaskKind = .structuredOutput,
        sampling: SamplingOptions = SamplingOptions(temperature: 0.1, maxTokens: 768),
        isPrivate: Bool = false
    ) async throws -> (value: T, result: StructuredResult) {
        let result = try await generate(
            StructuredRequest(
                messages: messages, schema: T.schema, name: T.schemaName,
                sampling: sampling, task: task, isPrivate: isPrivate))
        return (try T(json: result.value), result)
    }

    /// Streams the generation: partial values as they arrive, then the result. `order`
    /// (with the `rules` that made it, for the result's reason) replaces the generator's own.
    /// `check` adds rules a schema cannot state (a text must get simpler, say): what it
    /// returns is treated like schema violations (a repair round, then the next provider).
    public func stream(
        _ request: StructuredRequest, order: [any LanguageModelProvider]? = nil, rules: [String] = [],
        check: (@Sendable (JSONValue) -> [String])? = nil
    ) -> AsyncThrowingStream<StructuredUpdate, any Error> {
        updates(request, order: order, rules: rules, check: check, partials: true)
    }

    private func updates(
        _ request: StructuredRequest, order: [any LanguageModelProvider]?, rules: [String],
        check: (@Sendable (JSONValue) -> [String])?, partials: Bool
    ) -> AsyncThrowingStream<StructuredUpdate, any Error> {
        .producing { output in
            try await run(
                request, order ?? providers, rules.isEmpty && order == nil ? ["the configured order"] : rules,
                check, partials, output)
        }
    }

    private func run(
        _ request: StructuredRequest, _ ordered: [any LanguageModelProvider], _ rules: [String],
        _ check: (@Sendable (JSONValue) -> [String])?, _ partials: Bool,
        _ output: AsyncThrowingStream<StructuredUpdate, any Error>.Continuation
    ) async throws {
        var attempts: [ChainExhaustedError.Attempt] = []
        var usage = Usage()
        let messages = Self.instructed(request.messages, schema: request.schema)
        for (index, provider) in ordered.enumerated() {
            try Task.checkCancellation()
            let next = ordered.dropFirst(index + 1).first
            let name = provider.identity.description
            guard provider.capabilities.jsonSchema else {
                attempts.append(.init(provider: name, reason: "cannot follow a JSON schema"))
                continue
            }
            guard !request.isPrivate || provider.identity.isLocal else {
                attempts.append(.init(provider: name, reason: "the request is private and stays on this machine"))
                continue
            }
            guard await failover.admits(provider, next: next, attempts: &attempts) else { continue }
            output.yield(.started(provider.identity))
            var conversation = messages
            var repaired = false
            do {
                for round in 0...repairRounds {
                    let answer = try await ask(provider, chatRequest(request, messages: conversation), partials ? output : nil)
                    usage.add(answer.usage)
                    var problems = Self.problems(in: answer.text, schema: request.schema)
                    if case .success(let value) = problems, let complaints = check?(value), !complaints.isEmpty {
                        problems = .failure(Complaints(complaints: complaints))
                    }
                    if case .success(let value) = problems {
                        await failover.succeeded(provider)
                        let why = (rules + attempts.map { "\($0.provider): \($0.reason)" }).joined(separator: "; ")
                        output.yield(
                            .completed(
                                StructuredResult(
                                    value: value, provider: provider.identity, reason: why,
                                    repaired: repaired, attempts: attempts, usage: usage)))
                        return
                    }
                    guard case .failure(let complaints) = problems else { break }
                    let summary = complaints.complaints.prefix(5).joined(separator: "; ")
                    guard round < repairRounds else {
                        attempts.append(.init(provider: name, reason: "its answer broke the schema (\(summary))"))
                        logger.warning(
                            "[structured output] \(name) broke the schema (\(summary)), \(next.map { "trying \($0.identity.description)" } ?? "no provider left")"
                        )
                        output.yield(.discarded(provider.identity, reason: summary))
                        break
                    }
                    repaired = true
                    output.yield(.repairing(provider.identity, complaints.complaints))
                    conversation += [.assistant(answer.text), .user(Self.repairPrompt(complaints.complaints))]
                }
            } catch {
                try await failover.failed(provider, next: next, error: error, attempts: &attempts)
                output.yield(.discarded(provider.identity, reason: "\(error)"))
            }
        }
        throw StructuredGenerationError(attempts: attempts)
    }

    private struct Answer {
        var text: String
        var usage: Usage
    }

    /// Runs one request, yielding partial values as the text grows.
    private func ask(
        _ provider: any LanguageModelProvider, _ request: ChatRequest,
        _ output: AsyncThrowingStream<StructuredUpdate, any Error>.Continuation?
    ) async throws -> Answer {
        var text = ""
        var usage = Usage()
        var last: JSONValue?
        for try await event in provider.complete(request) {
            switch event {
            case .text(let piece):
                text += piece
                if let output, let partial = JSONValue.prefix(of: Self.jsonStart(of: text)), partial != last {
                    last = partial
                    output.yield(.partial(partial))
                }
            case .finished(_, let reported): usage = reported
            case .provider, .toolCall, .toolCallDelta: break
            }
        }
        return Answer(text: text, usage: usage)
    }

    private func chatRequest(_ request: StructuredRequest, messages: [ChatMessage]) -> ChatRequest {
        ChatRequest(
            messages: messages, sampling: request.sampling, task: request.task, isPrivate: request.isPrivate,
            responseSchema: ResponseSchema(
                name: request.name, schema: request.schema.json,
                strict: request.schema.isStrictCompatible))
    }

    // MARK: Prompts and parsing

    /// The messages with the schema instruction added to the system prompt.
    static func instructed(_ messages: [ChatMessage], schema: JSONSchema) -> [ChatMessage] {
        let instruction = schema.instruction
        var messages = messages
        if let system = messages.firstIndex(where: { $0.role == .system }) {
            messages[system] = .system(messages[system].text + "\n\n" + instruction)
        } else {
            messages.insert(.system(instruction), at: 0)
        }
        return messages
    }

    static func repairPrompt(_ complaints: [String]) -> String {
        "That reply is not acceptable yet:\n" + complaints.prefix(8).map { "- \($0)" }.joined(separator: "\n")
            + "\nReply again with only the corrected JSON value."
    }

    struct Complaints: Error { var complaints: [String] }

    /// The value in `text` if it follows `schema`, or what is wrong.
    static func problems(in text: String, schema: JSONSchema) -> Result<JSONValue, Complaints> {
        do {
            return .success(try schema.value(in: text))
        } catch {
            return .failure(Complaints(complaints: error.complaints))
        }
    }

    /// The text from where the JSON value seems to start (past any code fence or preamble).
    static func jsonStart(of text: String) -> String {
        var body = Substring(text)
        if let fence = body.range(of: "```") {
            body = body[fence.upperBound...]
            if let newline = body.firstIndex(of: "\n") { body = body[body.index(after: newline)...] }
            if let close = body.range(of: "```") { body = body[..<close.lowerBound] }
        }
        let trimmed = body.drop(while: \.isWhitespace)
        if let first = trimmed.first, "{[\"-0123456789".contains(first) { return String(trimmed) }
        if ["true", "false", "null"].contains(where: { trimmed.hasPrefix($0) }) { return String(trimmed) }
        if let start = trimmed.firstIndex(where: { $0 == "{" || $0 == "[" }) { return String(trimmed[start...]) }
        return String(trimmed)
    }

    static func outermost(_ text: String) -> String? {
        guard let open = text.firstIndex(where: { $0 == "{" || $0 == "[" }) else { return nil }
        let close: Character = text[open] == "{" ? "}" : "]"
        guard let end = text.lastIndex(of: close), end > open else { return nil }
        return String(text[open...end])
    }
}

/// A reply that does not hold a value following the schema.
public struct StructuredReplyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong: "the reply is not JSON (…)", or each schema violation.
    public var complaints: [String]

    public var description: String { complaints.joined(separator: "; ") }
}

extension JSONSchema {
    /// The instruction that asks a model for a value of this schema (added to the system prompt).
    public var instruction: String {
        "Reply with one JSON value and nothing else: no prose, no code fences. It must follow this JSON schema:\n" + json.text
    }

    /// The value a model's reply holds, if it follows the schema: the reply may wrap it in a
    /// code fence or in prose, which is looked past.
    ///
    /// - Throws: ``StructuredReplyError`` with what is wrong.
    public func value(in reply: String) throws(StructuredReplyError) -> JSONValue {
        let candidate = StructuredGenerator<ContinuousClock>.jsonStart(of: reply)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: candidate)
        } catch {
            // Prose around the value: take the outermost braces or brackets.
            guard let trimmed = StructuredGenerator<ContinuousClock>.outermost(candidate), let inner = try? JSONValue(parsing: trimmed) else {
                throw StructuredReplyError(complaints: ["the reply is not JSON (\(error.reason) at character \(error.offset))"])
            }
            value = inner
        }
        let violations = violations(of: value)
        guard violations.isEmpty else { throw StructuredReplyError(complaints: violations.map(\.description)) }
        return value
    }
}
