import Foundation
import Logging
import ParleyRuntime
@testable import ParleyServer
import Synchronization
import Testing

/// Bearer keys: off by default on loopback, required everywhere but /health once set, and
/// required to listen anywhere else.
@Suite("authentication")
struct AuthTests {
    @Test("with keys set, a missing or wrong key is a 401 in OpenAI's shape, and /health stays open")
    func keysRequired() async throws {
        let server = try await TestServer.start(settings: ["PARLEY_API_KEYS": "first-key, second-key"])
        defer { server.stop() }
        #expect(server.server.configuration.apiKeys == ["first-key", "second-key"])
        expectOpenAIError(try await server.send(.GET, "/v1/models"), status: 401, code: "invalid_api_key")
        expectOpenAIError(
            try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer wrong-key")]),
            status: 401, code: "invalid_api_key")
        expectOpenAIError(
            try await server.send(.GET, "/v1/models", headers: [("authorization", "Basic Zmlyc3Qta2V5")]),
            status: 401, code: "invalid_api_key")
        expectOpenAIError(try await server.post("/v1/chat/completions", json: ["messages": []]), status: 401)
        expectOpenAIError(try await server.send(.GET, "/metrics"), status: 401)
        expectOpenAIError(try await server.send(.GET, "/v1/no-such-path"), status: 401)

        #expect(try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer first-key")]).status == 200)
        #expect(try await server.send(.GET, "/v1/models", headers: [("authorization", "bearer second-key")]).status == 200)
        let health = try await server.send(.GET, "/health")
        #expect(health.status == 200)
        #expect(health.json?["status"] != nil)
    }

    @Test("keys never appear in the logs, even at trace level")
    func keysNotLogged() async throws {
        let logs = LogCapture()
        let server = try await TestServer.start(settings: ["PARLEY_API_KEYS": "secret-key-123"], logger: logs.logger())
        defer { server.stop() }
        _ = try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer secret-key-123")])
        _ = try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer secret-key-1234")])
        _ = try await server.post("/v1/chat/completions", json: ["messages": "broken"], headers: [("authorization", "Bearer secret-key-123")])
        #expect(!logs.text.isEmpty)
        #expect(!logs.text.contains("secret-key"), "\(logs.text)")
        #expect(!"\(server.server)".contains("secret-key") && !"\(server.server.configuration)".contains("secret-key"))
    }

    @Test("without keys, loopback serves everyone")
    func openOnLoopback() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        #expect(try await server.send(.GET, "/v1/models").status == 200)
        #expect(try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer anything")]).status == 200)
    }

    @Test("any other address needs keys", arguments: ["0.0.0.0", "192.0.2.10", "::"])
    func refusesOpenNetwork(host: String) throws {
        #expect(throws: ServerConfiguration.Invalid.self) { try ServerConfiguration(host: host).validate() }
        do {
            try ServerConfiguration(host: host).validate()
        } catch {
            #expect(error.description.contains("PARLEY_API_KEYS"))
        }
        try ServerConfiguration(host: host, apiKeys: ["k"]).validate()
    }

    @Test("loopback addresses", arguments: ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
    func loopback(host: String) throws {
        #expect(ServerConfiguration.isLoopback(host))
        try ServerConfiguration(host: host).validate()
    }

    @Test("keys come from PARLEY_API_KEYS or the settings file, blanks ignored")
    func keysFromSettings() async throws {
        #expect(ServerConfiguration.apiKeys(from: RuntimeSettings(values: ["PARLEY_API_KEYS": " a, b ,,c "])) == ["a", "b", "c"])
        #expect(ServerConfiguration.apiKeys(from: RuntimeSettings(values: [:])).isEmpty)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-keys-\(UUID()).json")
        try Data(#"{"parley": {"api": {"keys": "from-file"}}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = try await RuntimeSettings.load(environment: ["PARLEY_CONFIG": file.path, "HOME": NSTemporaryDirectory()])
        #expect(ServerConfiguration.apiKeys(from: settings) == ["from-file"])
    }

    @Test(
        "the bearer token is read whatever the scheme's case and the spaces around it",
        arguments: [
            ("Bearer first-key", "first-key"), ("bearer   first-key  ", "first-key"), ("BEARER\tfirst-key", "first-key"),
            ("  Bearer first-key", "first-key"), ("Bearer", nil), ("Bearer ", nil), ("Bearerfirst-key", nil), ("Basic first-key", nil), ("", nil),
        ] as [(String, String?)])
    func bearerToken(_ value: String, _ token: String?) {
        #expect(BearerKey.bearerToken(value).map { String(decoding: $0, as: UTF8.self) } == token)
    }
}

/// Every log line, message and metadata, as text.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func logger() -> Logger {
        Logger(label: "parley.test") { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all)")
        }
    }
}
