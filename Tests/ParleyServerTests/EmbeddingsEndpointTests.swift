import Foundation
import ParleyTestServers
import Testing

@Suite("POST /v1/embeddings: relayed to an OpenAI-compatible server or Ollama")
struct EmbeddingsEndpointTests {
    /// An OpenAI-compatible upstream that answers in reverse index order, and an Ollama.
    static func upstreams() async throws -> (openAI: WireServer, ollama: WireServer) {
        let openAI = try await WireServer.start { request in
            guard request.path == "/v1/embeddings", let body = request.json, let inputs = body["input"] as? [String] else { return .json(404, "{}") }
            let items = inputs.enumerated().reversed().map { index, text in
                #"{"object":"embedding","index":\#(index),"embedding":[\#(Float(text.count)),0.5,-0.25]}"#
            }
            return .json(200, #"{"object":"list","model":"\#(body["model"] as? String ?? "")","data":[\#(items.joined(separator: ","))],"usage":{"prompt_tokens":7,"total_tokens":7}}"#)
        }
        let ollama = try await WireServer.start { request in
            guard request.path == "/api/embed", let inputs = request.json?["input"] as? [String] else { return .json(404, #"{"error":"not found"}"#) }
            let vectors = inputs.map { "[\(Float($0.count)),1.0]" }
            return .json(200, #"{"model":"\#(request.json?["model"] as? String ?? "")","embeddings":[\#(vectors.joined(separator: ","))],"prompt_eval_count":4}"#)
        }
        return (openAI, ollama)
    }

    @Test("floats and base64 in the order given, the provider named; ollama/ picks Ollama with its model")
    func relayed() async throws {
        let (openAI, ollama) = try await Self.upstreams()
        defer { openAI.stop(); ollama.stop() }
        let server = try await TestServer.scripted(settings: ["OPENAI_BASE_URL": openAI.baseURL + "/v1", "OPENAI_API_KEY": "sk-test", "OLLAMA_HOST": ollama.baseURL])
        defer { server.stop() }
        let floats = try await server.post("/v1/embeddings", json: ["model": "text-embedding-3-small", "input": ["a", "abc"]])
        #expect(floats.status == 200, "\(floats.text)")
        #expect(floats.headers["x-parley-provider"] == "openai")
        let data = try #require(floats.json?["data"] as? [[String: Any]])
        #expect(data.map { ($0["embedding"] as? [Double])?.first } == [1, 3])
        #expect((floats.json?["usage"] as? [String: Any])?["prompt_tokens"] as? Int == 7)
        #expect(await openAI.requests.last?.headers["authorization"] == "Bearer sk-test")

        let packed = try await server.post("/v1/embeddings", json: ["input": "abcd", "encoding_format": "base64"])
        let encoded = try #require(((packed.json?["data"] as? [[String: Any]])?.first?["embedding"]) as? String)
        let bytes = try #require(Data(base64Encoded: encoded))
        let values = stride(from: 0, to: bytes.count, by: 4).map { offset in
            Float(bitPattern: UInt32(littleEndian: bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        }
        #expect(values == [4, 0.5, -0.25])

        let viaOllama = try await server.post("/v1/embeddings", json: ["model": "ollama/all-minilm", "input": ["hi"]])
        #expect(viaOllama.status == 200 && viaOllama.headers["x-parley-provider"] == "ollama", "\(viaOllama.text)")
        #expect(viaOllama.json?["model"] as? String == "all-minilm")
    }

    @Test("a dead OpenAI-compatible server falls back to Ollama; none configured is a 503 that says what to set; bad input is a 400")
    func fallbackAndErrors() async throws {
        let (openAI, ollama) = try await Self.upstreams()
        openAI.stop()
        defer { ollama.stop() }
        let server = try await TestServer.scripted(settings: ["OPENAI_BASE_URL": RefusingPort.baseURL() + "/v1", "OLLAMA_HOST": ollama.baseURL])
        defer { server.stop() }
        let reply = try await server.post("/v1/embeddings", json: ["model": "text-embedding-3-small", "input": "hello"])
        #expect(reply.status == 200 && reply.headers["x-parley-provider"] == "ollama", "\(reply.text)")
        #expect(reply.json?["model"] as? String == "nomic-embed-text")
        for (body, param) in [(["input": [1, 2, 3]] as [String: Any], "input"), (["model": "x"], "input"), (["input": ""], "input"),
                              (["input": "a", "encoding_format": "hex"], "encoding_format"), (["input": "a", "dimensions": 8], "dimensions")] {
            expectOpenAIError(try await server.post("/v1/embeddings", json: body), status: 400, param: param)
        }

        let bare = try await TestServer.scripted()
        defer { bare.stop() }
        let none = try await bare.post("/v1/embeddings", json: ["input": "hello"])
        expectOpenAIError(none, status: 503, type: "server_error", code: "no_provider_available")
        #expect((none.error?["message"] as? String)?.contains("OLLAMA_HOST") == true)
    }
}
