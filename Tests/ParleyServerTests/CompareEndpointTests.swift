import Foundation
import Testing

@Suite("POST /v1/parley/compare: every configured provider side by side")
struct CompareEndpointTests {
    @Test("language models and voices answer side by side with their times; bad requests are 400s")
    func compare() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let chat = try await server.post("/v1/parley/compare", json: ["capability": "chat", "prompt": "What is the capital of France?"])
        #expect(chat.status == 200, "\(chat.text)")
        let results = try #require(chat.json?["results"] as? [[String: Any]])
        let answered = try #require(results.first { $0["outcome"] as? String == "answered" })
        #expect(answered["output"] as? String == "Paris is the capital.")
        #expect((answered["total_ms"] as? Double ?? -1) >= 0 && answered["cost"] as? Double == 0)

        let voices = try await server.post("/v1/parley/compare", json: ["capability": "speech", "text": "Hello there."])
        let spoken = try #require((voices.json?["results"] as? [[String: Any]])?.first { $0["outcome"] as? String == "answered" }, "\(voices.text)")
        let wav = try #require(Data(base64Encoded: spoken["audio"] as? String ?? ""))
        #expect(wav.prefix(4) == Data("RIFF".utf8) && wav.count > 1_000)

        for (body, param) in [
            (["capability": "chat"], "prompt"), (["capability": "vision", "prompt": "x"], "capability"),
            (["capability": "transcription", "audio": "***"], "audio"), (["capability": "speech", "text": "  "], "text"),
        ] {
            expectOpenAIError(try await server.post("/v1/parley/compare", json: body), status: 400, param: param)
        }
    }
}
