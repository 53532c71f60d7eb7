import Foundation
import ParleyTestLanes
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
            return .json(
                200,
                #"{"object":"list","model":"\#(body["model"] as? String ?? "")","data":[\#(items.joined(separator: ","))],"usage":{"prompt_tokens":7,"total_tokens":7}}"#
            )
        }
        let ollama = try await WireServer.start { request in
            guard request.path == "/api/embed", let inputs = request.json?["input"] as? [String] else { return .json(404, #"{"error":"not found"}"#) }
            let vectors = inputs.map { "[\(Float($0.count)),1.0]" }
            return .json(
                200, #"{"model":"\#(request.json?["model"] as? String ?? "")","embeddings":[\#(vectors.joined(separator: ","))],"prompt_eval_count":4}"#)
        }
        return (openAI, ollama)
    }

    @Test("floats and base64 in the order given, the provider named; ollama/ picks Ollama with its model")
    func relayed() async throws {
        let (openAI, ollama) = try await Self.upstreams()
        defer { openAI.stop(); ollama.stop() }
        let server = try await TestServer.scripted(settings: [
            "OPENAI_BASE_URL": openAI.baseURL + "/v1", "OPENAI_API_KEY": "sk-test", "OLLAMA_HOST": ollama.baseURL,
        ])
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
        for (body, param) in [
            (["input": [1, 2, 3]] as [String: Any], "input"), (["model": "x"], "input"), (["input": ""], "input"),
            (["input": "a", "encoding_format": "hex"], "encoding_format"), (["input": "a", "dimensions": 8], "dimensions"),
        ] {
            expectOpenAIError(try await server.post("/v1/embeddings", json: body), status: 400, param: param)
        }

        // No upstream and no on-device model file.
        let bare = try await TestServer.scripted(settings: ["PARLEY_EMBEDDING_MODEL": "/nonexistent/embeddings.gguf"])
        defer { bare.stop() }
        let none = try await bare.post("/v1/embeddings", json: ["input": "hello"])
        expectOpenAIError(none, status: 503, type: "server_error", code: "no_provider_available")
        #expect((none.error?["message"] as? String)?.contains("OLLAMA_HOST") == true)
        #expect((none.error?["message"] as? String)?.contains("scripts/setup") == true)
        let local = try await bare.post("/v1/embeddings", json: ["input": "hello", "model": "local"])
        expectOpenAIError(local, status: 503, type: "server_error", code: "provider_unavailable")
        #expect((local.error?["message"] as? String)?.contains("scripts/setup") == true)
        let listed = try await bare.send(.GET, "/v1/models")
        #expect(!listed.text.contains("embeddings"), "no embedding model is listed when none is installed")
    }
}

/// `/v1/embeddings` on the on-device model (all-MiniLM-L6-v2 through llama.cpp, installed by
/// scripts/setup), with no upstream configured.
@Suite("POST /v1/embeddings on device", .serialized, .onDeviceEngines)
struct OnDeviceEmbeddingsEndpointTests {
    static func cosine(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }
    }

    @Test("model local or all-minilm-l6-v2: OpenAI's shape, 384 normalized floats, usage; similar texts closer")
    func floats() async throws {
        let server = try await TestServer.onDevice.value
        let texts = ["The cat sits on the mat.", "A kitten is resting on a rug.", "Interest rates rose again this quarter."]
        for name in ["local", "all-minilm-l6-v2"] {
            let reply = try await server.post("/v1/embeddings", json: ["model": name, "input": texts])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["x-parley-provider"]?.hasPrefix("llama.cpp") == true)
            #expect(reply.json?["object"] as? String == "list")
            #expect(reply.json?["model"] as? String == "all-minilm-l6-v2")
            let data = try #require(reply.json?["data"] as? [[String: Any]])
            #expect(data.map { $0["index"] as? Int } == [0, 1, 2])
            #expect(data.allSatisfy { $0["object"] as? String == "embedding" })
            let vectors = data.compactMap { $0["embedding"] as? [Double] }
            #expect(vectors.count == 3 && vectors.allSatisfy { $0.count == 384 })
            for vector in vectors { #expect(abs(Self.cosine(vector, vector) - 1) < 1e-3) }
            #expect(Self.cosine(vectors[0], vectors[1]) > Self.cosine(vectors[0], vectors[2]) + 0.2)
            let usage = try #require(reply.json?["usage"] as? [String: Any])
            #expect((usage["prompt_tokens"] as? Int ?? 0) >= 20 && usage["prompt_tokens"] as? Int == usage["total_tokens"] as? Int)
        }
        // With nothing else configured, no model (or auto) is the on-device one too.
        let plain = try await server.post("/v1/embeddings", json: ["input": "hello"])
        #expect(plain.status == 200 && plain.headers["x-parley-provider"]?.hasPrefix("llama.cpp") == true, "\(plain.text)")
    }

    @Test("base64 carries the same little-endian floats; empty input is a 400 naming it")
    func base64AndErrors() async throws {
        let server = try await TestServer.onDevice.value
        let floats = try await server.post("/v1/embeddings", json: ["model": "local", "input": "Where is the station?"])
        let packed = try await server.post("/v1/embeddings", json: ["model": "local", "input": "Where is the station?", "encoding_format": "base64"])
        #expect(packed.status == 200, "\(packed.text)")
        let expected = try #require(((floats.json?["data"] as? [[String: Any]])?.first?["embedding"]) as? [Double])
        let encoded = try #require(((packed.json?["data"] as? [[String: Any]])?.first?["embedding"]) as? String)
        let bytes = try #require(Data(base64Encoded: encoded))
        #expect(bytes.count == 384 * 4)
        let values = stride(from: 0, to: bytes.count, by: 4).map { offset in
            Double(Float(bitPattern: UInt32(littleEndian: bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
        }
        #expect(zip(values, expected).allSatisfy { abs($0 - $1) < 1e-6 })

        let blanks: [Any] = ["", "   ", ["fine", ""]]
        for input in blanks {
            let reply = try await server.post("/v1/embeddings", json: ["model": "local", "input": input])
            expectOpenAIError(reply, status: 400, param: "input")
            #expect((reply.error?["message"] as? String)?.contains("empty") == true)
        }
        expectOpenAIError(try await server.post("/v1/embeddings", json: ["model": "local", "input": [String]()]), status: 400, param: "input")
    }

    @Test("/v1/models lists the on-device embedding model, and local serves embeddings")
    func listed() async throws {
        let server = try await TestServer.onDevice.value
        let list = try await server.send(.GET, "/v1/models")
        let models = try #require(list.json?["data"] as? [[String: Any]])
        let embedding = try #require(models.first { $0["id"] as? String == "all-minilm-l6-v2" })
        #expect(embedding["capabilities"] as? [String] == ["embeddings"])
        #expect(embedding["owned_by"] as? String == "on-device")
        let local = try #require(models.first { $0["id"] as? String == "local" })
        #expect((local["capabilities"] as? [String])?.contains("embeddings") == true)
        let one = try await server.send(.GET, "/v1/models/all-minilm-l6-v2")
        #expect(one.status == 200 && one.json?["id"] as? String == "all-minilm-l6-v2")
    }
}
