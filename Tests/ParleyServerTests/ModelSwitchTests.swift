import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore
import Testing

extension OnDeviceServerTests.ServeCommand {
    /// Whether the models folder has both presets the hot-swap test switches between.
    static var hasBothModels: Bool {
        let models = ParleyPaths.current().models
        return ["SmolLM2-135M-Instruct.Q4_1.gguf", "Qwen2.5-Coder-1.5B-Instruct.Q4_K_M.gguf"].allSatisfy {
            FileManager.default.fileExists(atPath: models.appendingPathComponent($0).path)
        }
    }

    /// One request to the server; returns the status, the provider header and the body.
    static func send(_ server: ServeProcess, _ method: HTTPMethod, _ path: String, json: [String: Any]? = nil) async throws -> (Int, String?, [String: Any]) {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
        return (Int(response.status.code), response.headers.first(name: "x-parley-provider"), object)
    }

    static var question: [String: Any] {
        [
            "model": "local", "temperature": 0, "max_tokens": 16,
            "messages": [["role": "user", "content": "What is the capital of France?"]],
        ]
    }

    @Test(
        "switching the model of a running server unloads the old one (resident memory drops) and the new one answers",
        .enabled(if: hasBothModels, "needs SmolLM2-135M and Qwen2.5-Coder-1.5B installed (scripts/setup on a machine with the memory for it)"))
    func hotSwap() async throws {
        let server = try await ServeProcess.start(environment: ["PARLEY_LLM_MODEL": "qwen2.5-coder-1.5b"])
        let (before, _, current) = try await Self.send(server, .GET, "/v1/settings/model")
        #expect(before == 200)
        #expect(current["model"] as? String == "qwen2.5-coder-1.5b")
        #expect(current["loaded"] as? Bool == false, "the model loads lazily")

        let (status, provider, _) = try await Self.send(server, .POST, "/v1/chat/completions", json: Self.question)
        #expect(status == 200)
        #expect(provider == "llama.cpp")
        let (_, _, loaded) = try await Self.send(server, .GET, "/v1/settings/model")
        #expect(loaded["loaded"] as? Bool == true)
        #expect((loaded["provider"] as? String)?.contains("Qwen2.5-Coder-1.5B") == true)
        let big = try #require(server.residentMegabytes)

        let (switched, _, change) = try await Self.send(server, .PUT, "/v1/settings/model", json: ["model": "smollm2-135m"])
        #expect(switched == 200)
        #expect(change["model"] as? String == "smollm2-135m")
        #expect((change["previous"] as? String)?.contains("Qwen2.5-Coder-1.5B") == true)

        let (after, newProvider, answer) = try await Self.send(server, .POST, "/v1/chat/completions", json: Self.question)
        #expect(after == 200)
        #expect(newProvider == "llama.cpp")
        let content = ((answer["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
        #expect(content?.contains("Paris") == true, "\(content ?? "no answer")")
        let (_, _, now) = try await Self.send(server, .GET, "/v1/settings/model")
        #expect(now["loaded"] as? Bool == true)
        #expect((now["provider"] as? String)?.contains("SmolLM2-135M") == true)
        let small = try #require(server.residentMegabytes)
        print(
            String(
                format: "parley serve RSS with Qwen2.5-Coder-1.5B loaded: %.0f MB; after switching to SmolLM2-135M and answering: %.0f MB (%.2f×)",
                big, small, small / big))
        #expect(small < big - 500, "resident memory went from \(big) MB to \(small) MB")

        let (unknown, _, error) = try await Self.send(server, .PUT, "/v1/settings/model", json: ["model": "/etc/hostname"])
        #expect(unknown == 400)
        // A file outside the models folder and a name that is nothing get one message: a client
        // learns nothing of the server's files.
        let outside = (error["error"] as? [String: Any])?["message"] as? String
        #expect(outside == "That model is not usable here: name an installed catalog model (GET /v1/models) or a .gguf file in the server's models folder.")
        let (missing, _, missingError) = try await Self.send(server, .PUT, "/v1/settings/model", json: ["model": "/etc/no-such-file.gguf"])
        #expect(missing == 400)
        #expect(((missingError["error"] as? [String: Any])?["message"] as? String) == outside)
        let (unknownID, _, idError) = try await Self.send(server, .PUT, "/v1/settings/model", json: ["model": "nope"])
        #expect(unknownID == 400)
        #expect(((idError["error"] as? [String: Any])?["message"] as? String) == outside)
        let (_, _, still) = try await Self.send(server, .GET, "/v1/settings/model")
        #expect(still["model"] as? String == "smollm2-135m", "a refused switch changes nothing")
        server.terminate()
        #expect(await server.exitStatus() == 0)
    }
}
