#if Server
import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyMCP
import ParleyRuntime
import ParleyServer
import ServiceLifecycle
import UnixSignals

/// `parley serve`: the assistant as an OpenAI-compatible HTTP server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the assistant over HTTP: OpenAI-compatible chat, transcription, speech and realtime voice, a browser client, /health and /metrics.",
        discussion: """
            Point any OpenAI SDK at http://HOST:PORT/v1. The model name picks the provider: auto (or any \
            unknown name) is the fallback chain, local the on-device engine, openai/anthropic/ollama/… that \
            provider. With PARLEY_API_KEYS=key1,key2 set, every endpoint but /health needs \
            `Authorization: Bearer KEY` (the browser client's page itself is open, and asks for a key); \
            without keys the server listens on loopback addresses only. Open http://HOST:PORT/ in a \
            browser to talk to it. SIGINT or SIGTERM stops it gracefully: requests in flight finish first. With \
            PARLEY_DATABASE_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE, conversations and the response \
            cache live in that PostgreSQL database, which several instances can share; PARLEY_CACHE_TTL sets \
            how long identical temperature-0 requests are answered from the cache (seconds, 0 for never).
            """)

    @Option(help: "The address to listen on; any non-loopback address needs PARLEY_API_KEYS.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port: Int = 8080

    @Option(name: .tunable(.maxAudioUpload), help: ArgumentHelp(Tunable.maxAudioUpload.summary))
    var maxAudioMB: Double = Tunable.maxAudioUpload.defaultValue

    @Option(name: .tunable(.maxAudioLength), help: ArgumentHelp(Tunable.maxAudioLength.summary))
    var maxAudioMinutes: Double = Tunable.maxAudioLength.defaultValue

    @Option(help: "The ffmpeg program that reads and writes audio besides WAV and PCM (mp3, opus, aac, flac, webm, m4a …).")
    var ffmpeg: String = "ffmpeg"

    @Option(name: .tunable(.maxJSONBody), help: ArgumentHelp(Tunable.maxJSONBody.summary))
    var maxJSONMB: Double = Tunable.maxJSONBody.defaultValue

    @Option(name: .tunable(.requestTimeout), help: ArgumentHelp(Tunable.requestTimeout.summary))
    var requestTimeout: Double = Tunable.requestTimeout.defaultValue

    @Option(name: .tunable(.probeInterval), help: ArgumentHelp(Tunable.probeInterval.summary))
    var probeInterval: Double = Tunable.probeInterval.defaultValue

    @Option(name: .customLong("small-model"), help: "A smaller GGUF model to use on-device while memory is short or the device too hot for the main one.")
    var smallModel: String?

    @Option(help: "The SQLite conversation database (default: parley.sqlite in the data directory; unused with PARLEY_DATABASE_URL).")
    var database: String?

    @Flag(
        name: .customLong("no-builtin-tools"),
        help:
            "Leave out the built-in tools (materials search, assignments, date and time) and those of --mcp servers in realtime sessions and the page, and refuse them in chat completions."
    )
    var noBuiltinTools = false

    @OptionGroup var common: CommonOptions
    @OptionGroup var spoken: LanguageOption
    @OptionGroup var mcp: MCPOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        for (value, tunable) in [
            (maxAudioMB, Tunable.maxAudioUpload), (maxAudioMinutes, .maxAudioLength), (maxJSONMB, .maxJSONBody),
            (requestTimeout, .requestTimeout), (probeInterval, .probeInterval),
        ] {
            try Talk.check(value, tunable)
        }
    }

    func run() async throws {
        bootstrapLogging()
        let logger = Logger(label: "parley.server")
        let server: ParleyServer
        let hub: MCPToolHub?
        do {
            hub = try await mcp.connect()
            let runtime = try await common.runtime(smallModel: smallModel, database: database, tools: hub?.runtimeTools ?? [])
            var configuration = ServerConfiguration(
                host: host, port: port, apiKeys: ServerConfiguration.apiKeys(from: runtime.settings),
                adminKeys: ServerConfiguration.adminKeys(from: runtime.settings),
                maxJSONBytes: Tunable.bytes(megabytes: maxJSONMB), maxChatBytes: Tunable.bytes(megabytes: maxJSONMB * Tunable.chatBodyFactor),
                maxAudioBytes: Tunable.bytes(megabytes: maxAudioMB), requestTimeout: .milliseconds(Int64(requestTimeout * 1_000)),
                probeInterval: probeInterval > 0 ? .milliseconds(Int64(probeInterval * 1_000)) : nil, builtinTools: !noBuiltinTools,
                maxAudioSeconds: maxAudioMinutes * 60, ffmpeg: ffmpeg)
            configuration.language = try spoken.setting
            let keys = configuration.apiKeys.count
            let host = self.host
            server = try ParleyServer(runtime: runtime, configuration: configuration, logger: logger) { port in
                let access = keys == 0 ? "no API keys (loopback only)" : "\(keys) API key\(keys == 1 ? "" : "s") required"
                let origin = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
                emit("Parley is listening on \(origin)/v1 (\(access)).\nTalk to it in a browser: \(origin)/\n")
            }
        } catch {
            throw fail(error)
        }
        var group = ServiceGroupConfiguration(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // A stream that will not end must not hold the shutdown forever.
        group.maximumGracefulShutdownDuration = .seconds(30)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            await hub?.close()
            throw fail(error)
        }
        await hub?.close()
    }

    /// Logs to stderr: server notices and warnings by default (never a request's headers),
    /// everything with --verbose.
    private func bootstrapLogging() {
        let level: Logger.Level = common.verbose ? .debug : .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = label.hasPrefix("parley") ? level : max(level, .warning)
            return handler
        }
    }
}
#endif
