import Foundation
import ParleyCore
import ParleyRuntime
import ParleyData

/// How `parley serve` listens, who may call it, and how much it accepts. Its description
/// counts the keys and never shows them.
public struct ServerConfiguration: Sendable, CustomStringConvertible {
    /// The address to listen on (`127.0.0.1` by default).
    public var host: String
    /// The port; 0 lets the system pick one (reported through `onServerRunning`).
    public var port: Int
    /// Bearer keys, any one of which a request must present; empty turns authentication off,
    /// which ``validate()`` allows only on a loopback address.
    public var apiKeys: [String]
    /// Keys that may also change server-wide settings (the on-device model switch); they are
    /// keys like ``apiKeys``. Without any keys at all, every caller may.
    public var adminKeys: [String]
    /// The largest JSON body of a request other than a chat completion, in bytes.
    public var maxJSONBytes: Int
    /// The largest chat-completion body, in bytes: images travel inside it as data URLs.
    public var maxChatBytes: Int
    /// The largest audio upload, in bytes.
    public var maxAudioBytes: Int
    /// The largest realtime client event (one WebSocket message), in bytes: audio travels in
    /// them base64-encoded.
    public var maxRealtimeMessageBytes: Int
    /// The most audio a realtime session holds not yet heard, in bytes of samples (128 MB,
    /// about 11 minutes at 24 kHz, by default): past it an append is refused with an `error`
    /// event, so that a client sending audio far faster than it is spoken cannot fill memory.
    public var maxRealtimeQueuedAudioBytes: Int = 128 << 20
    /// The longest a request may take, from its head to the end of its response (a stream
    /// included); past it a waiting request gets 504 and a stream ends with an error event.
    public var requestTimeout: Duration
    /// A connection that sends and receives nothing for this long is closed (slow clients
    /// cannot hold connections open); `nil` for never.
    public var idleTimeout: Duration?
    /// How often configured cloud and self-hosted providers are probed while serving; `nil`
    /// for never.
    public var probeInterval: Duration?
    /// How long identical non-personal chat completions are answered from the cache; zero
    /// turns the cache off, `nil` takes `PARLEY_CACHE_TTL` from the runtime's settings (one
    /// hour unless set).
    public var responseCacheTTL: Duration?
    /// Whether the built-in tools (search the user's materials, upcoming assignments, the date
    /// and time) are on in the server's own conversations (realtime sessions and the page, each
    /// may turn them off with `session.parley.builtin_tools: false`) and may be asked for in
    /// `/v1/chat/completions` (`"parley": {"builtin_tools": true}`).
    public var builtinTools: Bool
    /// The longest audio upload, in seconds (`Tunable.maxAudioLength` by default); a longer
    /// file is refused without decoding past the limit, so a small file of hours of silence
    /// costs little.
    public var maxAudioSeconds: Double
    /// The ffmpeg program that reads and writes audio other than WAV and PCM (a name on
    /// `PATH` or a path); without it those formats are refused with a message saying so.
    public var ffmpeg: String
    /// The language of realtime sessions and transcriptions whose client names none
    /// (`parley serve --language`); `nil`: English.
    public var language: LanguageSetting?

    /// Creates a configuration; the defaults suit a sidecar on this machine.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, apiKeys: [String] = [], adminKeys: [String] = [],
        maxJSONBytes: Int = Tunable.bytes(megabytes: Tunable.maxJSONBody.defaultValue),
        maxChatBytes: Int = Tunable.bytes(megabytes: Tunable.maxJSONBody.defaultValue * Tunable.chatBodyFactor),
        maxAudioBytes: Int = Tunable.bytes(megabytes: Tunable.maxAudioUpload.defaultValue), maxRealtimeMessageBytes: Int = 8 << 20,
        requestTimeout: Duration = .seconds(Tunable.requestTimeout.defaultValue),
        idleTimeout: Duration? = .seconds(60), probeInterval: Duration? = .seconds(Tunable.probeInterval.defaultValue),
        responseCacheTTL: Duration? = nil,
        builtinTools: Bool = true, maxAudioSeconds: Double = Tunable.maxAudioLength.defaultValue * 60, ffmpeg: String = "ffmpeg"
    ) {
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.adminKeys = adminKeys
        self.maxJSONBytes = maxJSONBytes
        self.maxChatBytes = maxChatBytes
        self.maxAudioBytes = maxAudioBytes
        self.maxRealtimeMessageBytes = maxRealtimeMessageBytes
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.probeInterval = probeInterval
        self.responseCacheTTL = responseCacheTTL
        self.builtinTools = builtinTools
        self.maxAudioSeconds = maxAudioSeconds
        self.ffmpeg = ffmpeg
    }

    public var description: String {
        "ServerConfiguration(\(host):\(port), \(apiKeys.count) API keys, \(adminKeys.count) admin keys, JSON \(maxJSONBytes) B, chat \(maxChatBytes) B, "
            + "audio \(maxAudioBytes) B, timeout \(requestTimeout))"
    }

    /// The keys listed in `PARLEY_API_KEYS` (comma-separated, blanks ignored).
    public static func apiKeys(from settings: RuntimeSettings) -> [String] {
        list("PARLEY_API_KEYS", in: settings)
    }

    /// The keys listed in `PARLEY_ADMIN_KEYS`: they may also change server-wide settings.
    public static func adminKeys(from settings: RuntimeSettings) -> [String] {
        list("PARLEY_ADMIN_KEYS", in: settings)
    }

    /// The comma-separated list `name` holds in `settings` (blanks ignored; empty when unset).
    static func list(_ name: String, in settings: RuntimeSettings) -> [String] {
        guard let value = settings.value(name) else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The per-key limits in `settings`: `PARLEY_RATE_LIMIT_RPM` requests and
    /// `PARLEY_RATE_LIMIT_TPM` tokens per minute; `nil` for none.
    /// - Throws: ``Invalid`` for a value that is not a positive whole number.
    static func rateLimits(from settings: RuntimeSettings) throws(Invalid) -> (requests: Int?, tokens: Int?) {
        func limit(_ name: String) throws(Invalid) -> Int? {
            guard let text = settings.value(name) else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 else {
                throw Invalid(description: "\(name) must be a positive whole number per minute, not \"\(text.prefix(40))\".")
            }
            return value
        }
        return (try limit("PARLEY_RATE_LIMIT_RPM"), try limit("PARLEY_RATE_LIMIT_TPM"))
    }

    /// Whether `host` is reachable only from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Why a configuration cannot be served.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong and what to do, in one sentence.
        public var description: String
    }

    /// Refuses to serve a non-loopback address without keys, and limits that make no sense.
    public func validate() throws(Invalid) {
        guard (0...65_535).contains(port) else { throw Invalid(description: "The port must be between 0 and 65535.") }
        if apiKeys.isEmpty, adminKeys.isEmpty, !Self.isLoopback(host) {
            throw Invalid(
                description:
                    "Refusing to listen on \(host) without API keys: set PARLEY_API_KEYS=key1,key2 (or parley.api.keys in the settings file), or listen on 127.0.0.1."
            )
        }
        guard maxJSONBytes > 0, maxChatBytes > 0, maxAudioBytes > 0, maxRealtimeMessageBytes > 0, maxRealtimeQueuedAudioBytes > 0 else {
            throw Invalid(description: "The body limits must be positive.")
        }
        guard maxAudioSeconds > 0 else { throw Invalid(description: "The longest audio must be positive.") }
        guard requestTimeout > .zero else { throw Invalid(description: "The request timeout must be positive.") }
        if let responseCacheTTL, responseCacheTTL < .zero {
            throw Invalid(description: "The response cache's lifetime cannot be negative: set PARLEY_CACHE_TTL to 0 to turn the cache off.")
        }
    }

    /// The response cache's lifetime in force: ``responseCacheTTL``, else `PARLEY_CACHE_TTL`
    /// from `settings`.
    func effectiveCacheTTL(_ settings: RuntimeSettings) throws(Invalid) -> Duration {
        if let responseCacheTTL { return responseCacheTTL }
        guard let ttl = settings.responseCacheTTL else {
            throw Invalid(description: "PARLEY_CACHE_TTL must be a whole number of seconds (0 turns the response cache off).")
        }
        return ttl
    }

    /// The shared database `PARLEY_DATABASE_URL` names in `settings`, or `nil` for the SQLite file.
    func sharedDatabase(_ settings: RuntimeSettings) throws(Invalid) -> DatabaseURL? {
        do {
            return try settings.databaseURL()
        } catch {
            throw Invalid(description: error.description)
        }
    }
}
