import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

@Suite("OpenAI and compatible servers: Chat Completions over SSE")
struct OpenAILanguageModelTests {
    // Chunks as the Chat Completions streaming documentation shows them.
    static let streamText = sse([
        (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#),
        (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Paris, "},"finish_reason":null}]}"#),
        (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"café capital."},"finish_reason":null}]}"#),
        (nil, #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        (
            nil,
            #"{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":4}}}"#
        ),
        (nil, "[DONE]"),
    ])

    /// The stream up to the end of the event carrying "Paris, ".
    static let firstEvents: String = {
        let parts = streamText.components(separatedBy: "\n\n")
        return parts.prefix(2).joined(separator: "\n\n") + "\n\n"
    }()

    func model(_ server: WireServer, key: String? = "sk-test", timeouts: HTTPTimeouts = HTTPTimeouts()) -> OpenAILanguageModel {
        OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: key, model: "gpt-test", timeouts: timeouts))
    }

    @Test("streams text and usage, split at awkward byte boundaries; sends the documented request")
    func streaming() async throws {
        let server = try await WireServer.start { _ in
            .stream(contentType: "text/event-stream", chunks: chunked(Self.streamText, size: 7))
        }
        defer { server.stop() }
        var request = pictureRequest
        request.responseSchema = ResponseSchema(name: "answer", schema: try JSONValue(parsing: #"{"type":"object","properties":{"city":{"type":"string"}}}"#))
        let result = await run(model(server), request)
        #expect(result.error == nil)
        #expect(result.text == "Paris, café capital.")
        #expect(result.usage == Usage(inputTokens: 12, cachedInputTokens: 4, outputTokens: 5))

        let sent = try #require(await server.requests.first)
        #expect(sent.method == "POST" && sent.path == "/v1/chat/completions")
        #expect(sent.headers["authorization"] == "Bearer sk-test")
        #expect(sent.headers["content-type"] == "application/json")
        let body = try #require(sent.json)
        #expect(body["model"] as? String == "gpt-test")
        #expect(body["stream"] as? Bool == true)
        #expect((body["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(body["max_tokens"] as? Int == 64)
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages[0]["content"] as? String == "Be brief.")
        let parts = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(parts[0]["type"] as? String == "text")
        #expect((parts[1]["image_url"] as? [String: Any])?["url"] as? String == "data:image/png;base64,iVBORw==")
        let format = try #require(body["response_format"] as? [String: Any])
        #expect(format["type"] as? String == "json_schema")
        #expect((format["json_schema"] as? [String: Any])?["name"] as? String == "answer")
    }

    @Test(
        "error statuses map to typed errors with the provider's message",
        arguments: [
            (401, "", "authentication"), (403, "", "authentication"), (429, "3", "rate"), (500, "", "server"), (503, "", "server"), (400, "", "bad"),
        ])
    func errors(status: Int, retryAfter: String, expected: String) async throws {
        let server = try await WireServer.start { _ in
            .json(
                status, #"{"error":{"message":"documented failure","type":"x","code":null}}"#,
                headers: retryAfter.isEmpty ? [:] : ["retry-after": retryAfter])
        }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        let error = try #require(result.error as? HTTPProviderError)
        #expect(error.message == "documented failure")
        switch (expected, error.kind) {
        case ("authentication", .authentication(let code)): #expect(code == status)
        case ("rate", .rateLimited(let after)): #expect(after == .seconds(3))
        case ("server", .server(let code)): #expect(code == status)
        case ("bad", .badRequest(400)): #expect(error.failureKind == .invalidRequest)
        default: Issue.record("unexpected \(error.kind) for \(status)")
        }
    }

    @Test("a stream cut mid-way is a transport error after the text already received")
    func cut() async throws {
        let partial = String(Self.streamText.prefix(300))
        let server = try await WireServer.start { _ in
            .stream(contentType: "text/event-stream", chunks: chunked(partial, size: 50), ending: .cut)
        }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Paris, ")
        #expect(httpKind(result.error) == .transport || httpKind(result.error) == .malformedResponse)
        #expect((result.error as? HTTPProviderError)?.failureKind == .transient(retryAfter: nil))
    }

    @Test("a stream that ends without [DONE] is malformed")
    func noDone() async throws {
        let server = try await WireServer.start { _ in
            .stream(contentType: "text/event-stream", chunks: [Data(sse([(nil, #"{"choices":[{"delta":{"content":"Hi"}}]}"#)]).utf8)])
        }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Hi")
        #expect(httpKind(result.error) == .malformedResponse)
    }

    @Test("a server that ignores stream and answers whole JSON is read as one completion")
    func wholeAnswer() async throws {
        let body =
            #"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"completion_tokens":2}}"#
        let server = try await WireServer.start { _ in .stream(contentType: "application/json", chunks: [Data(body.utf8)]) }
        defer { server.stop() }
        let result = await run(model(server), plainRequest)
        #expect(result.text == "Paris.")
        #expect(result.error == nil)
        #expect(result.usage?.outputTokens == 2)

        let broken = try await WireServer.start { _ in .stream(contentType: "application/json", chunks: [Data("{not json".utf8)]) }
        defer { broken.stop() }
        #expect(httpKind(await run(model(broken), plainRequest).error) == .malformedResponse)
    }

    @Test("a stream that goes silent times out between chunks")
    func idleTimeout() async throws {
        let server = try await WireServer.start { _ in
            .stream(contentType: "text/event-stream", chunks: [Data(Self.firstEvents.utf8)], ending: .stall(keepAlive: nil))
        }
        defer { server.stop() }
        let result = await run(model(server, timeouts: testTimeouts), plainRequest)
        #expect(httpKind(result.error) == .timeout(.idle))
    }

    @Test("cancelling the consumer closes the connection; the server sees it")
    func cancellation() async throws {
        let server = try await WireServer.start { _ in
            .stream(
                contentType: "text/event-stream", chunks: [Data(Self.firstEvents.utf8)],
                ending: .stall(keepAlive: Data(": keep-alive\n\n".utf8)))
        }
        defer { server.stop() }
        let provider = model(server)
        let task = Task {
            for try await event in provider.complete(plainRequest) {
                if case .text(let piece) = event, !piece.isEmpty { return piece }
            }
            return ""
        }
        #expect(try await task.value == "Paris, ")
        #expect(await server.waitForAbandonedStreams(1))
    }

    @Test("availability: no key for the official API without a request; a self-hosted server is probed")
    func availability() async throws {
        let official = OpenAILanguageModel(configuration: .init(apiKey: nil))
        #expect(await official.availability() == .missingKey(variable: "OPENAI_API_KEY"))
        let server = try await WireServer.start { request in
            request.path == "/v1/models" ? .json(200, #"{"object":"list","data":[{"id":"local-model","object":"model"}]}"#) : .json(404, "{}")
        }
        defer { server.stop() }
        // What is tested is the probe's meaning; its speed is not (the suite's start keeps
        // two cores busy for seconds).
        var configuration = model(server, key: nil).configuration
        configuration.probeTimeouts = HTTPTimeouts(connect: .seconds(20), firstByte: .seconds(20), idle: .seconds(20))
        let selfHosted = OpenAILanguageModel(configuration: configuration)
        #expect(await selfHosted.availability() == .ready)
        #expect(selfHosted.identity.isLocal)
        let dead = OpenAILanguageModel(configuration: .init(baseURL: "http://127.0.0.1:9/v1", model: "m", timeouts: testTimeouts))
        if case .serverUnreachable = await dead.availability() {} else { Issue.record("a dead port must be unreachable") }
        let failure = await run(dead, plainRequest)
        #expect(httpKind(failure.error) == .transport || httpKind(failure.error) == .timeout(.connect))
    }

    @Test("configuration from the conventional environment variables")
    func environment() {
        let configuration = OpenAILanguageModel.Configuration.fromEnvironment(["OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"])
        #expect(configuration.apiKey == "sk-x")
        #expect(configuration.baseURL == "http://127.0.0.1:8080/v1")
        #expect(configuration.isLocal)
        #expect(OpenAILanguageModel.Configuration.fromEnvironment(["OPENAI_API_KEY": "  "]).apiKey == nil)
    }
}
