#if canImport(FoundationModels)
import Foundation
import FoundationModels
import ParleyAppleSupport
import ParleyCore

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here (see README). The logic lives in
// ParleyAppleSupport (FoundationPrompt, GuidedSchema, SnapshotDeltas, ToolCallCollector), which
// is tested on Linux; this file only spells it in the framework's terms. Names both modules
// declare (`Tool`, `Transcript`) are always qualified.

/// The system's on-device language model (Apple Intelligence, iOS and macOS 26) through the
/// Foundation Models framework: streamed replies (the cumulative snapshots turned into the
/// pieces Parley streams, ``SnapshotDeltas``), structured output through guided generation
/// (``GuidedSchema``; the JSON is validated against the full schema afterwards, as for every
/// provider), and tools: a call the model makes is handed to Parley's caller like any other
/// provider's (``ToolCallCollector``).
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct AppleLanguageModel: LanguageModelProvider {
    public let identity = ProviderIdentity(name: "apple-foundation-models", model: "system", isLocal: true)
    public let capabilities = LanguageModelCapabilities(jsonSchema: true, tools: true, contextTokens: 4_096)

    /// The language the conversation is in: the model is asked whether it supports it.
    public let locale: Locale

    /// The system model, for a conversation in `locale` (the device's language unless given).
    public init(locale: Locale = Locale.current) {
        self.locale = locale
    }

    public func availability() async -> Availability {
        let model = SystemLanguageModel.default
        let unavailable: AppleUnavailability
        switch model.availability {
        case .available:
            guard model.supportsLocale(locale) else {
                return AppleUnavailability.localeUnsupported(engine: "the system language model", locale: locale.identifier).availability
            }
            return .ready
        case .unavailable(.deviceNotEligible): unavailable = .deviceNotEligible
        case .unavailable(.appleIntelligenceNotEnabled): unavailable = .appleIntelligenceNotEnabled
        case .unavailable(.modelNotReady): unavailable = .modelNotReady
        case .unavailable(let reason): unavailable = .modelUnavailable("\(reason)")
        @unknown default: unavailable = .modelUnavailable("a reason this version of Parley does not know")
        }
        return unavailable.availability
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            try checkCapabilities(for: request)
            let conversation = FoundationPrompt(request.messages)
            let collector = ToolCallCollector()
            let tools: [any FoundationModels.Tool] =
                request.offersTools
                ? try request.callableTools.map { try ForwardedTool($0, collector: collector) } : []
            let session = LanguageModelSession(tools: tools, transcript: Self.transcript(conversation, tools: tools))
            let options = GenerationOptions(temperature: request.sampling.temperature, maximumResponseTokens: request.sampling.maxTokens)
            continuation.yield(.provider(identity))
            do {
                if let format = request.responseSchema {
                    let schema = try JSONSchema(json: format.schema)
                    let guided = GuidedSchema.mapping(schema, name: format.name).schema
                    let response = try await session.respond(
                        to: conversation.prompt, schema: GenerationSchema(root: guided.dynamic, dependencies: []),
                        options: options)
                    continuation.yield(.text(response.content.jsonString))
                } else {
                    var deltas = SnapshotDeltas()
                    for try await snapshot in session.streamResponse(to: conversation.prompt, options: options) {
                        let piece = deltas.appendOnly(snapshot.content)
                        if !piece.isEmpty { continuation.yield(.text(piece)) }
                    }
                    let rest = deltas.finish()
                    if !rest.isEmpty { continuation.yield(.text(rest)) }
                }
            } catch let error as LanguageModelSession.ToolCallError where error.underlyingError is ToolCallsRequested {
                for call in await collector.calls { continuation.yield(.toolCall(call)) }
                continuation.yield(.finished(.toolCalls, Usage()))
                return
            }
            continuation.yield(.finished(.stop, Usage()))
        }
    }

    /// The conversation before the prompt as the session's transcript: the system text (and the
    /// tools) as its instructions, every earlier turn as the entry of its kind, never as
    /// instructions (which the model ranks above prompts: what a user or a tool wrote must not
    /// gain that rank).
    static func transcript(_ conversation: FoundationPrompt, tools: [any FoundationModels.Tool]) -> FoundationModels.Transcript {
        typealias Transcript = FoundationModels.Transcript
        func text(_ content: String) -> [Transcript.Segment] { [.text(Transcript.TextSegment(content: content))] }
        var entries: [Transcript.Entry] = []
        if !conversation.instructions.isEmpty || !tools.isEmpty {
            entries.append(
                .instructions(
                    Transcript.Instructions(
                        segments: conversation.instructions.isEmpty ? [] : text(conversation.instructions),
                        toolDefinitions: tools.map { Transcript.ToolDefinition(tool: $0) })))
        }
        for entry in conversation.history {
            switch entry {
            case .prompt(let said):
                entries.append(.prompt(Transcript.Prompt(segments: text(said))))
            case .response(let said):
                entries.append(.response(Transcript.Response(assetIDs: [], segments: text(said))))
            case .toolCalls(let calls):
                entries.append(
                    .toolCalls(
                        Transcript.ToolCalls(
                            calls.map { call in
                                Transcript.ToolCall(id: call.id, toolName: call.name, arguments: Self.content(ofArguments: call.arguments))
                            })))
            case .toolOutput(let callID, let toolName, let said):
                entries.append(.toolOutput(Transcript.ToolOutput(id: callID, toolName: toolName, segments: text(said))))
            }
        }
        return Transcript(entries: entries)
    }

    /// A call's arguments (JSON text) as generated content; text that is not JSON stays a string.
    static func content(ofArguments arguments: String) -> GeneratedContent {
        (try? GeneratedContent(json: arguments)) ?? GeneratedContent(kind: .string(arguments))
    }
}

/// One of the request's tools as the framework sees it: its body records the call and stops the
/// session, so that Parley's caller runs it (see ``ToolCallCollector``).
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
struct ForwardedTool: FoundationModels.Tool {
    let name: String
    let description: String
    let parameters: GenerationSchema
    let collector: ToolCallCollector

    init(_ definition: ToolDefinition, collector: ToolCallCollector) throws {
        name = definition.name
        description = definition.description ?? definition.name
        parameters = try GenerationSchema(
            root: GuidedSchema.mapping(definition.schema, name: definition.name).schema.dynamic,
            dependencies: [])
        self.collector = collector
    }

    func call(arguments: GeneratedContent) async throws -> String {
        await collector.record(name: name, arguments: arguments.jsonString)
        throw ToolCallsRequested()
    }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension GuidedSchema {
    /// The schema in the framework's terms.
    var dynamic: DynamicGenerationSchema {
        switch self {
        case .object(let name, let description, let properties):
            return DynamicGenerationSchema(
                name: name, description: description,
                properties: properties.map { property in
                    DynamicGenerationSchema.Property(
                        name: property.name, description: property.description,
                        schema: property.schema.dynamic, isOptional: property.isOptional)
                })
        case .array(let items, let minimum, let maximum):
            return DynamicGenerationSchema(arrayOf: items.dynamic, minimumElements: minimum, maximumElements: maximum)
        case .string(_, let choices?, _):
            return DynamicGenerationSchema(type: String.self, guides: [.anyOf(choices)])
        case .string(_, nil, let pattern?):
            // A pattern Swift's Regex cannot read is left out; the JSON is validated afterwards.
            guard let regex = try? Regex(pattern) else { return DynamicGenerationSchema(type: String.self) }
            return DynamicGenerationSchema(type: String.self, guides: [.pattern(regex)])
        case .string:
            return DynamicGenerationSchema(type: String.self)
        case .integer(_, let minimum, let maximum):
            switch (minimum, maximum) {
            case (let low?, let high?) where low <= high: return DynamicGenerationSchema(type: Int.self, guides: [.range(low...high)])
            case (let low?, _): return DynamicGenerationSchema(type: Int.self, guides: [.minimum(low)])
            case (nil, let high?): return DynamicGenerationSchema(type: Int.self, guides: [.maximum(high)])
            case (nil, nil): return DynamicGenerationSchema(type: Int.self)
            }
        case .number(_, let minimum, let maximum):
            switch (minimum, maximum) {
            case (let low?, let high?) where low <= high: return DynamicGenerationSchema(type: Double.self, guides: [.range(low...high)])
            case (let low?, _): return DynamicGenerationSchema(type: Double.self, guides: [.minimum(low)])
            case (nil, let high?): return DynamicGenerationSchema(type: Double.self, guides: [.maximum(high)])
            case (nil, nil): return DynamicGenerationSchema(type: Double.self)
            }
        case .boolean:
            return DynamicGenerationSchema(type: Bool.self)
        case .anyOf(let name, let choices):
            return DynamicGenerationSchema(name: name, anyOf: choices.map(\.dynamic))
        }
    }
}
#endif
