import Foundation
import HTTPTypes
import Logging
import Synchronization
import ParleyCore
import ParleyRuntime
import ParleyData

/// What every endpoint works with: the runtime (providers, chains, health), the server's
/// limits, its metrics and its logger.
struct ServerEnvironment: Sendable, CustomStringConvertible {
    let runtime: Runtime<ContinuousClock>
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    let logger: Logger
    /// Identical non-personal chat completions answered from the store.
    let responseCache: ResponseCache
    /// The realtime connections open now.
    let realtime = RealtimeSessions()
    /// Google syncs, on request and on a schedule.
    let google: GoogleSyncScheduler
    /// Per-key request and token limits (off unless configured).
    let rateLimits: RateLimits
    /// The one way in: origin and host, key and role, limits, request id and access log.
    let admission: Admission
    /// The PostgreSQL database instances share, once ``ParleyServer/run()`` has opened it.
    let sharedDatabase = SharedDatabase()
    /// The audio decoders (ffmpeg processes) that may run at once.
    let decoders = DecoderSlots(limit: 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// How plain chat completions were relayed, for the relay on the event loop.
    let relayRoutes = RelayRoutes()
    /// When the server started, as a Unix time.
    let started: Int
    /// Audio files in and out beside WAV and PCM.
    var audioFiles: AudioFiles { DeviceServices.audioFiles(ffmpeg: configuration.ffmpeg) }

    var description: String { "ServerEnvironment(\(configuration))" }

    /// The moment a request that starts now must be done by.
    var deadline: ContinuousClock.Instant { .now + configuration.requestTimeout }

    /// The error a request that runs out of time gets.
    var timeout: OpenAIError { .timedOut(after: configuration.requestTimeout) }

    /// Seconds since 1970, for `created` fields.
    static var now: Int { Int(Date().timeIntervalSince1970) }
}

extension HTTPField.Name {
    /// The provider that answered: `llama.cpp`, `openai`, `whisper.cpp`, `espeak-ng`, ….
    static let parleyProvider = HTTPField.Name("x-parley-provider")!
    /// The model or voice it answered with.
    static let parleyModel = HTTPField.Name("x-parley-model")!
    /// `hit` when a chat completion came from the response cache, `miss` when it could have
    /// but the model answered.
    static let parleyCache = HTTPField.Name("x-parley-cache")!
    /// A request header: `1` (or `true`, `yes`) keeps a chat completion out of the cache.
    static let parleyPrivate = HTTPField.Name("x-parley-private")!
}

extension HTTPFields {
    /// Names `provider` in the response headers.
    mutating func name(_ provider: ProviderIdentity?) {
        guard let provider else { return }
        self[.parleyProvider] = provider.name
        if let model = provider.model { self[.parleyModel] = model }
    }
}

/// The PostgreSQL database this instance shares with others, when there is one.
final class SharedDatabase: Sendable {
    private let store = Mutex<(any SharedConversationStoring)?>(nil)

    func use(_ shared: any SharedConversationStoring) {
        store.withLock { $0 = shared }
    }

    var current: (any SharedConversationStoring)? { store.withLock { $0 } }
}

extension ServerEnvironment {
    /// The server's tools (the built-ins and `--mcp` servers') for a request that asked for
    /// them (`parley.builtin_tools`), less those the client declared under the same names: the
    /// client's own calls still come back to it. Refused when the server turned them off, or
    /// beside a JSON schema (`schemaField` names where the request set it).
    func serverTools(for chat: ChatRequest, owner: Owner, hasSchema: Bool, schemaField: String) async throws -> ToolBox {
        guard configuration.builtinTools else {
            throw OpenAIError.invalidRequest(
                "This server has its built-in tools turned off (parley serve --no-builtin-tools); leave out 'parley.builtin_tools'.",
                param: "parley.builtin_tools")
        }
        guard !hasSchema else {
            throw OpenAIError.invalidRequest("'parley.builtin_tools' cannot be combined with a JSON schema '\(schemaField)'.", param: "parley.builtin_tools")
        }
        var box = try await runtime.toolbox(owner: owner)
        for tool in chat.tools { box.remove(named: tool.name) }
        return box
    }
}
