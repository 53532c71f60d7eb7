import Foundation
import ParleyRuntime
import ParleyServer
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
        expectOpenAIError(try await server.send(.GET, "/v1/models", headers: [("authorization", "Bearer wrong-key")]),
                          status: 401, code: "invalid_api_key")
        expectOpenAIError(try await server.send(.GET, "/v1/models", headers: [("authorization", "Basic Zmlyc3Qta2V5")]),
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
}
