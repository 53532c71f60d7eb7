import Foundation
import ParleyCore
import ParleyRuntime
import ParleyServer
import ParleyTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What well-behaved clients rely on: a request id on every response, when to retry, a model
/// lookup for every accepted name, json_object honoured, and a 400 for a body cut short.
@Suite("Server hygiene")
struct ServerHygieneTests {
    @Test("x-request-id: a new one on every response (errors too), the client's own echoed")
    func requestIDs() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let first = try await server.send(.GET, "/v1/models")
        let second = try await server.send(.GET, "/v1/nowhere")
        let ids = [first.headers["x-request-id"], second.headers["x-request-id"]]
        #expect(ids.allSatisfy { $0?.hasPrefix("req_") == true && $0?.count == 28 }, "\(ids)")
        #expect(ids[0] != ids[1])
        let echoed = try await server.send(.GET, "/health", headers: [("x-request-id", "client-42")])
        #expect(echoed.headers["x-request-id"] == "client-42")
        let odd = try await server.send(.GET, "/health", headers: [("x-request-id", String(repeating: "x", count: 300))])
        #expect(odd.headers["x-request-id"]?.hasPrefix("req_") == true)
    }

    @Test("a model lookup answers every name chat accepts; only nonsense is a 404")
    func modelLookup() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        for name in ["auto", "local", "gpt-4o-mini", "ollama/llama3.2"] {
            let reply = try await server.send(.GET, "/v1/models/\(name)")
            #expect(reply.status == 200, "\(name): \(reply.text)")
            #expect(reply.json?["id"] as? String == name)
        }
        #expect((try await server.send(.GET, "/v1/models/ollama%2Fllama3.2")).status == 200)
        #expect((try await server.send(.GET, "/v1/models/a/b/c")).status == 404)
    }

    @Test("response_format json_object goes through the structured generator")
    func jsonObject() async throws {
        let model = ScriptedLanguageModel(replies: [[#"{"city": "Paris"}"#]], capabilities: LanguageModelCapabilities(jsonSchema: true))
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let reply = try await server.post(
            "/v1/chat/completions",
            json: [
                "messages": [["role": "user", "content": "Capital of France as JSON"]],
                "response_format": ["type": "json_object"],
            ])
        #expect(reply.status == 200, "\(reply.text)")
        let asked = await model.requests.last
        #expect(asked?.responseSchema?.name == "json_object")
        let content = ((reply.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
        #expect(content.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["city"] as? String == "Paris")
    }

    @Test("a body shorter than its Content-Length is the client's fault: 400, not 500")
    func shortBody() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let head = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
        let answer = try await Task.detached { try Self.exchange(port: server.port, send: head + #"{"messages": ["#, waitSeconds: 5) }.value
        let status = answer.split(separator: "\r\n").first.map(String.init) ?? ""
        #expect(status.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
        #expect(!status.contains("500"))
    }

    @Test(
        "headers over the limit get 431, a WebSocket upgrade of another version 426 naming version 13, garbage 400 — each an OpenAI error, then the connection closes; the server goes on"
    )
    func protocolErrors() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        func exchange(_ text: String) async throws -> (status: String, head: String, body: String) {
            let answer = try await Task.detached { try Self.exchange(port: server.port, send: text, waitSeconds: 5) }.value
            let parts = answer.components(separatedBy: "\r\n\r\n")
            return (String(parts[0].split(separator: "\r\n").first ?? ""), parts[0], parts.dropFirst().joined())
        }
        let huge = try await exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 100_000))\r\n\r\n")
        #expect(huge.status == "HTTP/1.1 431 Request Header Fields Too Large", "\(huge.head)")
        #expect(huge.body.contains("request_header_fields_too_large"), "\(huge.body)")

        let upgrade =
            "GET /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        let old = try await exchange(upgrade + "Sec-WebSocket-Version: 8\r\n\r\n")
        #expect(old.status == "HTTP/1.1 426 Upgrade Required", "\(old.head)")
        #expect(old.head.contains("Sec-WebSocket-Version: 13"), "\(old.head)")
        #expect(old.body.contains("unsupported_websocket_version"), "\(old.body)")
        let none = try await exchange(upgrade + "\r\n")
        #expect(none.status.hasPrefix("HTTP/1.1 426"), "\(none.head)")

        let garbage = try await exchange("NOT\u{01}HTTP AT ALL\r\n\r\n")
        #expect(garbage.status.hasPrefix("HTTP/1.1 400"), "\(garbage.head)")
        #expect(garbage.body.contains("malformed_request"), "\(garbage.body)")

        let upgraded = try await WebSocketUpgrade.request(port: server.port, headers: [])
        #expect(upgraded.status == 101)
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    @Test("a 503 says when to retry")
    func retryAfter() async throws {
        let unreachable = ProviderError.unavailable(provider: "remote", .serverUnreachable(url: "http://127.0.0.1:9", reason: "refused"))
        let down = FaultyLanguageModel(name: "remote", pieces: [], fault: .fail(afterPieces: 0, error: unreachable))
        let catalog = ProviderCatalog(
            entries: TestServer.scriptedCatalog().entries.map { entry in
                guard entry.capability == .languageModel else { return entry }
                return ProviderEntry(capability: .languageModel, name: "local", placement: .onDevice, remedy: "none", factory: .languageModel { _ in down })
            })
        let server = try await TestServer.start(catalog: catalog)
        defer { server.stop() }
        let reply = try await server.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "Hi"]]])
        #expect(reply.status == 503, "\(reply.text)")
        #expect(reply.headers["retry-after"] == "5")
    }

    /// Sends `text` on a plain TCP connection and reads what comes back within `waitSeconds`.
    static func exchange(port: Int, send text: String, waitSeconds: Int) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: waitSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
        // The client is done: a body shorter than its Content-Length ends here.
        shutdown(descriptor, Int32(SHUT_WR))
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
