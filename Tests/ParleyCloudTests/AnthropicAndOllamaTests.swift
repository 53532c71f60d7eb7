import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

@Suite("Anthropic Messages API over SSE")
struct AnthropicLanguageModelTests {
    // Events as the Messages streaming documentation shows them, with a ping between.
    static let streamText = sse([
        (
            "message_start",
            #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#
        ),
        ("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
        ("ping", #"{"type": "ping"}"#),
        ("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Paris is "}}"#),
        ("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the capital — of France."}}"#),
        ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
        ("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}"#),
        ("message_stop", #"{"type":"message_stop"}"#),
    ])

    func model(_ server: WireServer, key: String? = "sk-ant-test") -> AnthropicLanguageModel {
        AnthropicLanguageModel(configuration: .init(baseURL: server.baseURL, apiKey: key, model: "claude-test"))
    }

    @Test("streams text and usage, split at awkward byte boundaries; sends the documented request")
    func streaming() async throws {
        let server = try await WireServer.start { _ in .stream(contentType: "text/event-stream", chunks: chunked(Self.streamText, size: 11)) }
        defer { server.stop() }
        var request = pictureRequest
        request.messages.insert(.user("Hello."), at: 1)  // two user turns in a row get merged
        let result = await run(model(server), request)
        #expect(result.error == nil)
        #expect(result.text == "Paris is the capital — of France.")
        #expect(result.usage == Usage(inputTokens: 25, outputTokens: 9))
        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/v1/messages")
        #expect(sent.headers["x-api-key"] == "sk-ant-test")
        #expect(sent.headers["anthropic-version"] == "2023-06-01")
        #expect(sent.headers["authorization"] == nil)
        let body = try #require(sent.json)
        #expect(body["system"] as? String == "Be brief.")
        #expect(body["max_tokens"] as? Int == 64)
        #expect(body["stream"] as? Bool == true)
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        let blocks = try #require(messages[0]["content"] as? [[String: Any]])
        #expect(blocks.map { $0["type"] as? String } == ["text", "text", "image"])
        let source = try #require(blocks[2]["source"] as? [String: Any])
        #expect(source["type"] as? String == "base64" && source["media_type"] as? String == "image/png" && source["data"] as? String == "iVBORw==")
    }

    @Test("an error event mid-stream is a typed error after the delivered text")
    func errorEvent() async throws {
        let text = sse([
            ("message_start", #"{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":0}}}"#),
            ("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Par"}}"#),
            ("error", #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
        ])
        let server = try await WireServer.start { _ in .stream(contentType: "text/event-stream", chunks: [Data(text.utf8)]) }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Par")
        #expect(httpKind(result.error) == .server(status: 529))
        #expect((result.error as? HTTPProviderError)?.message == "Overloaded")
    }

    @Test(
        "documented error bodies and statuses",
        arguments: [(401, "authentication_error"), (429, "rate_limit_error"), (529, "overloaded_error"), (400, "invalid_request_error")])
    func errorStatus(status: Int, type: String) async throws {
        let server = try await WireServer.start { _ in
            .json(status, #"{"type":"error","error":{"type":"\#(type)","message":"said the server"}}"#, headers: status == 429 ? ["retry-after": "20"] : [:])
        }
        defer { server.stop() }
        let error = try #require(await run(model(server), plainRequest).error as? HTTPProviderError)
        #expect(error.message == "said the server")
        switch status {
        case 401: #expect(error.kind == .authentication(status: 401))
        case 429: #expect(error.kind == .rateLimited(retryAfter: .seconds(20)))
        case 529: #expect(error.kind == .server(status: 529))
        default: #expect(error.kind == .badRequest(status: 400))
        }
    }

    @Test("a stream cut before message_stop is an error")
    func cut() async throws {
        let partial = Self.streamText.components(separatedBy: "\n\n").prefix(4).joined(separator: "\n\n") + "\n\n"
        let server = try await WireServer.start { _ in .stream(contentType: "text/event-stream", chunks: [Data(partial.utf8)], ending: .cut) }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Paris is ")
        #expect(result.error is HTTPProviderError)
    }

    @Test("no key: availability says so, no request is made")
    func noKey() async throws {
        let server = try await WireServer.start { _ in .json(500, "{}") }
        defer { server.stop() }
        let provider = model(server, key: nil)
        #expect(await provider.availability() == .missingKey(variable: "ANTHROPIC_API_KEY"))
        #expect(await run(provider, plainRequest).error is ProviderError)
        #expect(await server.requests.isEmpty)
    }

    @Test("cancelling the consumer closes the connection")
    func cancellation() async throws {
        let first = Self.streamText.components(separatedBy: "\n\n").prefix(4).joined(separator: "\n\n") + "\n\n"
        let server = try await WireServer.start { _ in
            .stream(
                contentType: "text/event-stream", chunks: [Data(first.utf8)],
                ending: .stall(keepAlive: Data("event: ping\ndata: {\"type\": \"ping\"}\n\n".utf8)))
        }
        defer { server.stop() }
        let provider = model(server)
        let task = Task {
            for try await event in provider.complete(plainRequest) { if case .text(let piece) = event { return piece } }
            return ""
        }
        #expect(try await task.value == "Paris is ")
        #expect(await server.waitForAbandonedStreams(1))
    }
}

@Suite("Ollama native API over NDJSON")
struct OllamaLanguageModelTests {
    static let lines = [
        #"{"model":"llama3.2","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Paris"},"done":false}"#,
        #"{"model":"llama3.2","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":" — the capital."},"done":false}"#,
        #"{"model":"llama3.2","created_at":"2024-01-01T00:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1000,"prompt_eval_count":26,"eval_count":7}"#,
    ]
    static let tags = #"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","size":2019393189}]}"#

    func model(_ server: WireServer, name: String = "llama3.2") -> OllamaLanguageModel {
        var configuration = OllamaLanguageModel.Configuration(host: server.baseURL, model: name, supportsImages: true)
        // The server is up: a starved test machine must not make its probe look unanswered.
        configuration.probeTimeouts = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(30), idle: .seconds(30))
        return OllamaLanguageModel(configuration: configuration)
    }

    @Test("streams NDJSON split at awkward boundaries; sends the documented request")
    func streaming() async throws {
        let server = try await WireServer.start { request in
            request.path == "/api/tags"
                ? .json(200, Self.tags)
                : .stream(contentType: "application/x-ndjson", chunks: chunked(Self.lines.joined(separator: "\n") + "\n", size: 13))
        }
        defer { server.stop() }
        let result = await run(model(server), pictureRequest)
        #expect(result.error == nil)
        #expect(result.text == "Paris — the capital.")
        #expect(result.usage == Usage(inputTokens: 26, outputTokens: 7))
        let body = try #require(await server.requests.first?.json)
        #expect(body["model"] as? String == "llama3.2")
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages[1]["images"] as? [String] == ["iVBORw=="])
        #expect((body["options"] as? [String: Any])?["num_predict"] as? Int == 64)
    }

    @Test("availability from /api/tags: ready, model missing, server down")
    func availability() async throws {
        let server = try await WireServer.start { _ in .json(200, Self.tags) }
        defer { server.stop() }
        #expect(await model(server).availability() == .ready)
        #expect(try await model(server).listModels() == ["llama3.2:latest"])
        if case .missingModel(_, let hint) = await model(server, name: "mistral").availability() {
            #expect(hint == "run `ollama pull mistral`")
        } else {
            Issue.record("a model that is not pulled must be reported missing")
        }
        let dead = OllamaLanguageModel(configuration: .init(host: "127.0.0.1:9", timeouts: testTimeouts))
        if case .serverUnreachable = await dead.availability() {} else { Issue.record("a dead server must be unreachable") }
    }

    @Test("with no OLLAMA_MODEL, an installed chat model stands in for llama3.2 (never an embedding model), and requests name it")
    func installedModel() async throws {
        let installed = #"{"models":[{"name":"nomic-embed-text:latest"},{"name":"qwen2.5:0.5b"},{"name":"mistral:latest"}]}"#
        let server = try await WireServer.start { request in
            request.path == "/api/tags"
                ? .json(200, installed)
                : .stream(contentType: "application/x-ndjson", chunks: [Data((Self.lines.joined(separator: "\n") + "\n").utf8)])
        }
        defer { server.stop() }
        var configuration = OllamaLanguageModel.Configuration.fromEnvironment(["OLLAMA_HOST": server.baseURL])
        #expect(configuration.usesInstalledModel && configuration.model == "llama3.2")
        configuration.probeTimeouts = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(30), idle: .seconds(30))
        let picking = OllamaLanguageModel(configuration: configuration)
        #expect(await picking.availability() == .ready)
        #expect(picking.identity.model == "qwen2.5:0.5b")
        let result = await run(picking, plainRequest)
        #expect(result.text == "Paris — the capital.")
        let body = try #require(await server.requests.last { $0.path == "/api/chat" }?.json)
        #expect(body["model"] as? String == "qwen2.5:0.5b")
        // A model that was named is never swapped.
        let named = OllamaLanguageModel.Configuration.fromEnvironment(["OLLAMA_HOST": server.baseURL, "OLLAMA_MODEL": "llama3.2"])
        #expect(!named.usesInstalledModel)
        if case .missingModel = await model(server, name: "llama3.2").availability() {} else { Issue.record("a named model that is not installed is missing") }
        #expect(OllamaLanguageModel.isEmbeddingModel("mxbai-embed-large:latest") && OllamaLanguageModel.isEmbeddingModel("all-minilm"))
        #expect(!OllamaLanguageModel.isEmbeddingModel("llama3.2:latest"))
    }

    @Test("an error line and an error status are typed errors")
    func errors() async throws {
        let server = try await WireServer.start { request in
            request.json?["model"] as? String == "missing"
                ? .json(404, #"{"error":"model 'missing' not found, try pulling it first"}"#)
                : .stream(contentType: "application/x-ndjson", chunks: [Data((Self.lines[0] + "\n" + #"{"error":"out of memory"}"# + "\n").utf8)])
        }
        defer { server.stop() }
        let midStream = await run(model(server), plainRequest)
        #expect(midStream.text == "Paris")
        #expect((midStream.error as? HTTPProviderError)?.message == "out of memory")
        let notFound = await run(model(server, name: "missing"), plainRequest)
        #expect(httpKind(notFound.error) == .badRequest(status: 404))
        #expect((notFound.error as? HTTPProviderError)?.message == "model 'missing' not found, try pulling it first")
    }

    @Test("a stream cut before done is an error")
    func cut() async throws {
        let server = try await WireServer.start { _ in
            .stream(contentType: "application/x-ndjson", chunks: [Data((Self.lines[0] + "\n").utf8)], ending: .cut)
        }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Paris")
        #expect(result.error is HTTPProviderError)
    }
}
