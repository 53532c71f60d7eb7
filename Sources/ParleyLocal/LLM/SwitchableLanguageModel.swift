import Foundation
import ParleyCore
import Synchronization

/// The on-device language model of a long-lived process, which can be switched to another GGUF
/// file while it runs (a server's hot swap).
///
/// Each request is served by the model that is current when it starts, so a reply in progress
/// finishes on the model it began with. Switching makes the new model current at once and
/// unloads the old one as soon as its request in progress (if any) ends; the new model loads
/// on its first request, and that first request waits until the old one is gone, so the two
/// are never in memory together.
public final class SwitchableLanguageModel: UnloadableLanguageModel {
    private struct State {
        var current: LlamaLanguageModel
        /// Unloading the model switched away from, while it runs.
        var retiring: Task<Void, Never>?
        var switches = 0
    }

    private let state: Mutex<State>

    /// Starts with `model`.
    public init(_ model: LlamaLanguageModel) {
        state = Mutex(State(current: model))
    }

    /// The model serving new requests.
    public var current: LlamaLanguageModel { state.withLock { $0.current } }

    /// The current model's settings (its file, context, threads).
    public var configuration: LlamaLanguageModel.Configuration { current.configuration }

    /// How many times the model was switched.
    public var switches: Int { state.withLock { $0.switches } }

    public var identity: ProviderIdentity { current.identity }
    public var capabilities: LanguageModelCapabilities { current.capabilities }
    public func availability() async -> Availability { await current.availability() }

    public var isLoaded: Bool { get async { await current.isLoaded } }

    /// Unloads the current model (the resource guard's relief); the next request loads it again.
    public func unload() async { await current.unload() }

    /// Loads the current model now, once the one switched away from is unloaded.
    public func load() async throws(LlamaError) {
        let (model, retiring) = state.withLock { ($0.current, $0.retiring) }
        await retiring?.value
        try await model.load()
    }

    /// The prompt the current model would evaluate for `messages` (its chat template).
    public func renderedPrompt(for messages: [ChatMessage]) async throws -> String {
        try await current.renderedPrompt(for: messages)
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let (model, retiring) = state.withLock { ($0.current, $0.retiring) }
        return .producing { output in
            await retiring?.value
            for try await event in model.complete(request) { output.yield(event) }
            // Switched away from while this request waited or ran: nothing else will use it.
            if model !== self.current { await model.unload() }
        }
    }

    /// Makes `configuration`'s model current and unloads the old one once its request in
    /// progress ends. Returns the model switched away from, and a task that ends when it is
    /// unloaded.
    @discardableResult
    public func switchTo(_ configuration: LlamaLanguageModel.Configuration) -> (old: LlamaLanguageModel, unloaded: Task<Void, Never>) {
        let next = LlamaLanguageModel(configuration: configuration)
        return state.withLock { state in
            let old = state.current
            let previous = state.retiring
            // The actor runs one request at a time: `unload` runs after the one in progress.
            let unloaded = Task {
                await previous?.value
                await old.unload()
            }
            state.current = next
            state.retiring = unloaded
            state.switches += 1
            return (old, unloaded)
        }
    }
}

extension SwitchableLanguageModel: PromptPrefiller {
    /// Prefills on the current model (see ``LlamaLanguageModel/prefill(_:)``), once the one
    /// switched away from is unloaded, as a request would.
    public func prefill(_ messages: [ChatMessage], tools: [ToolDefinition]) async throws {
        let (model, retiring) = state.withLock { ($0.current, $0.retiring) }
        await retiring?.value
        try await model.prefill(messages, tools: tools)
    }
}
