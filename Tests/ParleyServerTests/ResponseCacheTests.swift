import Foundation
import Logging
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyServer

/// The response cache of `POST /v1/chat/completions` (on the SQLite store; the PostgreSQL one is
/// in ``SharedDatabaseTests``).
@Suite("response cache")
struct ResponseCacheTests {
    static var question: [String: Any] {
        [
            "model": "auto", "temperature": 0, "max_tokens": 32,
            "messages": [["role": "system", "content": "Be brief."], ["role": "user", "content": "What is the capital of France?"]],
        ]
    }

    static func content(_ reply: TestServer.Reply) -> String? {
        ((reply.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
    }

    static func streamedContent(_ reply: TestServer.Reply) -> String {
        events(in: reply.text).dropLast().compactMap { payload -> String? in
            let chunk = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
            return (((chunk?["choices"] as? [[String: Any]])?.first)?["delta"] as? [String: Any])?["content"] as? String
        }.joined()
    }

    @Test("an identical request at temperature 0 is answered from the cache, whole and streamed, in OpenAI's shape")
    func hits() async throws {
        let model = ScriptedLanguageModel(name: "scripted", replies: [["Paris", " is the capital."], ["Something else."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }

        let first = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(first.status == 200)
        #expect(first.headers["x-parley-cache"] == "miss")
        #expect(Self.content(first) == "Paris is the capital.")

        let second = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(second.headers["x-parley-cache"] == "hit")
        #expect(second.headers["x-parley-provider"] == "scripted")
        #expect(second.headers["content-type"] == "application/json")
        let json = try #require(second.json)
        #expect(json["object"] as? String == "chat.completion")
        #expect((json["id"] as? String)?.hasPrefix("chatcmpl-") == true && json["id"] as? String != first.json?["id"] as? String)
        #expect(json["model"] as? String == first.json?["model"] as? String)
        #expect(Self.content(second) == "Paris is the capital.")
        #expect((json["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String == "stop")
        #expect(json["usage"] is [String: Any])

        var streamed = Self.question
        streamed["stream"] = true
        streamed["stream_options"] = ["include_usage": true]
        let stream = try await server.post("/v1/chat/completions", json: streamed)
        #expect(stream.headers["x-parley-cache"] == "hit")
        #expect(stream.headers["content-type"] == "text/event-stream")
        let payloads = events(in: stream.text)
        #expect(payloads.last == "[DONE]")
        let chunks = payloads.dropLast().compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(chunks.count == payloads.count - 1)
        #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
        #expect((((chunks.first?["choices"] as? [[String: Any]])?.first)?["delta"] as? [String: Any])?["role"] as? String == "assistant")
        #expect(Self.streamedContent(stream) == "Paris is the capital.")
        let finishes = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String }
        #expect(finishes == ["stop"])
        #expect(chunks.last?["usage"] is [String: Any])

        #expect(await model.requests.count == 1)
        let metrics = try await server.send(.GET, "/metrics").text
        #expect(metrics.contains(#"parley_cache_requests_total{result="hit"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"parley_cache_requests_total{result="miss"} 1"#), "\(metrics)")
    }

    @Test("a streamed answer is cached too, and serves a whole request")
    func streamedMissThenWholeHit() async throws {
        let model = ScriptedLanguageModel(replies: [["Rome", " is", " the capital."], ["Other."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        var streamed = Self.question
        streamed["stream"] = true
        let stream = try await server.post("/v1/chat/completions", json: streamed)
        #expect(stream.headers["x-parley-cache"] == "miss")
        #expect(Self.streamedContent(stream) == "Rome is the capital.")
        let whole = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(whole.headers["x-parley-cache"] == "hit")
        #expect(Self.content(whole) == "Rome is the capital.")
        #expect(await model.requests.count == 1)
    }

    /// A request that differs from ``question`` in something that changes the answer.
    enum Variation: String, CaseIterable, CustomTestStringConvertible {
        case question = "another question", systemPrompt = "another system prompt", length = "another length"
        case stop = "stop sequences", seed = "a seed", topP = "another top_p", provider = "another provider"
        case schema = "a JSON schema"

        var testDescription: String { rawValue }

        var change: [String: Any] {
            switch self {
            case .question: ["messages": [["role": "user", "content": "What is the capital of Italy?"]]]
            case .systemPrompt: ["messages": [["role": "system", "content": "Be verbose."], ["role": "user", "content": "What is the capital of France?"]]]
            case .length: ["max_tokens": 33]
            case .stop: ["stop": ["."]]
            case .seed: ["seed": 7]
            case .topP: ["top_p": 0.5]
            case .provider: ["model": "local"]
            case .schema: ["response_format": ["type": "json_schema", "json_schema": ["name": "city", "schema": ["type": "string"]]]]
            }
        }
    }

    @Test("what changes the answer changes the key", arguments: Variation.allCases)
    func keys(_ variation: Variation) async throws {
        // A structured answer is validated: the second reply must be JSON (a string here).
        let second = variation == .schema ? #""second""# : "second"
        let model = ScriptedLanguageModel(replies: [["first"], [second]], capabilities: LanguageModelCapabilities(jsonSchema: true))
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        _ = try await server.post("/v1/chat/completions", json: Self.question)
        let reply = try await server.post("/v1/chat/completions", json: Self.question.merging(variation.change) { $1 })
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.headers["x-parley-cache"] == "miss")
        #expect(Self.content(reply) == second)
        // The name the client sends is not the key: `gpt-4o-mini` resolves to the chain, as `auto` does.
        let alias = try await server.post("/v1/chat/completions", json: Self.question.merging(["model": "gpt-4o-mini"]) { $1 })
        #expect(alias.headers["x-parley-cache"] == "hit")
    }

    /// A request that is not cached: personal, sampled, or with an image.
    enum Uncached: String, CaseIterable, CustomTestStringConvertible {
        case privateHeader = "x-parley-private: 1", privateTrue = "x-parley-private: true", user = "a user"
        case notStored = "store: false", noTemperature = "no temperature (1)", sampled = "temperature 0.7", image = "an image"

        var testDescription: String { rawValue }

        var headers: [(String, String)] {
            switch self {
            case .privateHeader: [("x-parley-private", "1")]
            case .privateTrue: [("x-parley-private", "true")]
            default: []
            }
        }

        func body(from question: [String: Any]) -> [String: Any] {
            var body = question
            switch self {
            case .privateHeader, .privateTrue: break
            case .user: body["user"] = "user-1234"
            case .notStored: body["store"] = false
            case .noTemperature: body["temperature"] = nil
            case .sampled: body["temperature"] = 0.7
            case .image:
                let png = TestImages.onePixelPNG.base64EncodedString()
                body["messages"] = [
                    [
                        "role": "user",
                        "content": [
                            ["type": "text", "text": "What is this?"], ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(png)"]],
                        ],
                    ]
                ]
            }
            return body
        }
    }

    @Test("personal, sampled and image requests go to the model every time, with no cache header", arguments: Uncached.allCases)
    func notCached(_ request: Uncached) async throws {
        let model = ScriptedLanguageModel(replies: [["first"], ["second"]], supportsImages: true)
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let body = request.body(from: Self.question)
        let first = try await server.post("/v1/chat/completions", json: body, headers: request.headers)
        let second = try await server.post("/v1/chat/completions", json: body, headers: request.headers)
        #expect(first.status == 200 && second.status == 200, "\(second.text)")
        #expect(first.headers["x-parley-cache"] == nil && second.headers["x-parley-cache"] == nil)
        #expect(Self.content(first) == "first" && Self.content(second) == "second")
        #expect(!(try await server.send(.GET, "/metrics").text.contains("parley_cache_requests_total")))
    }

    @Test("each key has its own cache: one key's answer is another's miss")
    func perKey() async throws {
        let model = ScriptedLanguageModel(replies: [["for alice"], ["for bob"]])
        let server = try await TestServer.scripted(model: model) { $0.apiKeys = ["key-a-secret", "key-b-secret"] }
        defer { server.stop() }
        let alice = [("authorization", "Bearer key-a-secret")]
        let bob = [("authorization", "Bearer key-b-secret")]
        #expect(Self.content(try await server.post("/v1/chat/completions", json: Self.question, headers: alice)) == "for alice")
        let bobs = try await server.post("/v1/chat/completions", json: Self.question, headers: bob)
        #expect(bobs.headers["x-parley-cache"] == "miss")
        #expect(Self.content(bobs) == "for bob")
        let again = try await server.post("/v1/chat/completions", json: Self.question, headers: alice)
        #expect(again.headers["x-parley-cache"] == "hit")
        #expect(Self.content(again) == "for alice")
    }

    @Test("an answer given by a fallback provider is not kept: it must not outlive the outage")
    func fallbackNotKept() async throws {
        struct Outage: Error {}
        let local = ScriptedLanguageModel(name: "local-model", replies: [["fallback one"], ["fallback two"]])
        let server = try await TestServer.start(
            catalog: ProviderCatalog(entries: [
                ProviderEntry(
                    capability: .languageModel, name: "cloud", placement: .selfHosted, remedy: "none",
                    factory: .languageModel { _ in FaultyLanguageModel(name: "cloud", pieces: [], fault: .fail(afterPieces: 0, error: Outage())) }),
                ProviderEntry(capability: .languageModel, name: "local", placement: .onDevice, remedy: "none", factory: .languageModel { _ in local }),
                ProviderEntry(
                    capability: .speechToText, name: "local", placement: .onDevice, remedy: "none",
                    factory: .speechToText { _ in ScriptedSpeechToText(transcripts: ["hello"]) }),
                ProviderEntry(
                    capability: .textToSpeech, name: "local", placement: .onDevice, remedy: "none",
                    factory: .textToSpeech { _ in ToneTextToSpeech() }),
            ]))
        defer { server.stop() }
        let first = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(first.headers["x-parley-provider"] == "local-model", "\(first.text)")
        #expect(first.headers["x-parley-cache"] == "miss")
        let second = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(second.headers["x-parley-cache"] == "miss")
        #expect(Self.content(second) == "fallback two")
    }

    @Test("PARLEY_CACHE_TTL=0 turns the cache off")
    func off() async throws {
        let model = ScriptedLanguageModel(replies: [["first"], ["second"]])
        let server = try await TestServer.scripted(model: model, settings: ["PARLEY_CACHE_TTL": "0"])
        defer { server.stop() }
        let first = try await server.post("/v1/chat/completions", json: Self.question)
        let second = try await server.post("/v1/chat/completions", json: Self.question)
        #expect(first.headers["x-parley-cache"] == nil && second.headers["x-parley-cache"] == nil)
        #expect(Self.content(second) == "second")
        #expect(!(try await server.send(.GET, "/metrics").text.contains("parley_cache_requests_total")))
    }

    @Test("a PARLEY_CACHE_TTL that is not a number of seconds is refused", arguments: ["soon", "-5", "1.5"])
    func invalidTTL(_ value: String) async throws {
        let error = await #expect(throws: ServerConfiguration.Invalid.self) {
            _ = try await TestServer.scripted(settings: ["PARLEY_CACHE_TTL": value])
        }
        #expect(error?.description.contains("PARLEY_CACHE_TTL") == true)
    }

    @Test("an answer is served until its lifetime ends, then not; expired entries are swept")
    func expiry() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runtime = Runtime(settings: RuntimeSettings(values: ["PARLEY_DATABASE": directory.appendingPathComponent("parley.sqlite").path]))
        let clock = TestDate()
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let cache = ResponseCache(ttl: .seconds(60), runtime: runtime, metrics: ServerMetrics(), logger: quiet, now: { clock.now() })
        let answer = CachedChatAnswer(
            text: "Paris.", finishReason: "stop", usage: Usage(inputTokens: 5, outputTokens: 2),
            provider: ProviderIdentity(name: "llama.cpp", model: "smol", isLocal: true), model: "smol")
        await cache.save(answer, key: "k", owner: .local)
        clock.advance(59)
        #expect(await cache.lookup("k", owner: .local) == answer)
        #expect(await cache.lookup("k", owner: .key("key-other")) == nil)
        clock.advance(1)
        #expect(await cache.lookup("k", owner: .local) == nil)

        // The next save sweeps what has expired (at most once a minute).
        let store = try await runtime.store()
        clock.advance(ResponseCache.sweepInterval)
        await cache.save(answer, key: "fresh", owner: .local)
        #expect(try await store.cachedResponse("k", owner: .local, at: .distantPast) == nil)
        #expect(try await store.cachedResponse("fresh", owner: .local, at: clock.now()) != nil)
    }
}

/// A wall clock the test moves by hand.
final class TestDate: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    func now() -> Date { date.withLock { $0 } }

    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}
