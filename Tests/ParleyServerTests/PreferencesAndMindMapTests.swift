import Foundation
import ParleyCore
import ParleyServer
import ParleyTesting
import Testing

/// The browser client's preferences kept per key on the server, and mind maps of a
/// conversation, a material or a text over HTTP.
@Suite("Preferences and mind maps over HTTP")
struct PreferencesAndMindMapTests {
    static let one = [("authorization", "Bearer key-one")]
    static let two = [("authorization", "Bearer key-two")]

    @Test("each key keeps its own preferences; bad values are refused and change nothing")
    func preferences() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_API_KEYS": "key-one,key-two"])
        defer { server.stop() }

        let fresh = try await server.send(.GET, "/v1/settings/preferences", headers: Self.one)
        #expect(fresh.status == 200)
        #expect(fresh.json?["saved"] as? Bool == false)
        let defaults = try #require(fresh.json?["preferences"] as? [String: Any])
        #expect(defaults["silence_ms"] as? Int == 800 && defaults["review"] as? Bool == true && defaults["model"] as? String == "auto")
        #expect(defaults.keys.contains("max_tokens") && defaults["max_tokens"] is NSNull)
        #expect(defaults["turn_detection"] as? String == "semantic_vad" && defaults["eagerness"] as? String == "auto")

        let chosen: [String: Any] = [
            "model": "smollm2-135m", "system_prompt": "Answer like a patient tutor.", "max_tokens": 200,
            "voice": " en-gb ", "silence_ms": 1200, "large_text": true, "dyslexia_font": true, "continuous": true,
            "turn_detection": "server_vad", "eagerness": "high",
        ]
        let saved = try await server.send(
            .PUT, "/v1/settings/preferences", headers: Self.one + [("content-type", "application/json")],
            body: try JSONSerialization.data(withJSONObject: chosen))
        #expect(saved.status == 200, "\(saved.text)")
        let read = try await server.send(.GET, "/v1/settings/preferences", headers: Self.one)
        #expect(read.json?["saved"] as? Bool == true)
        let kept = try #require(read.json?["preferences"] as? [String: Any])
        #expect(kept["model"] as? String == "smollm2-135m" && kept["system_prompt"] as? String == "Answer like a patient tutor.")
        #expect(kept["max_tokens"] as? Int == 200 && kept["silence_ms"] as? Int == 1200 && kept["voice"] as? String == "en-gb")
        #expect(kept["large_text"] as? Bool == true && kept["dyslexia_font"] as? Bool == true && kept["continuous"] as? Bool == true)
        #expect(kept["turn_detection"] as? String == "server_vad" && kept["eagerness"] as? String == "high")
        #expect(kept["high_contrast"] as? Bool == false && kept["review"] as? Bool == true)  // left out: the default

        // The second key sees its own (none), and its save does not touch the first key's.
        #expect(try await server.send(.GET, "/v1/settings/preferences", headers: Self.two).json?["saved"] as? Bool == false)
        let other = try await server.send(
            .PUT, "/v1/settings/preferences", headers: Self.two + [("content-type", "application/json")],
            body: Data(#"{"high_contrast": true}"#.utf8))
        #expect(other.status == 200)
        let first = try await server.send(.GET, "/v1/settings/preferences", headers: Self.one).json?["preferences"] as? [String: Any]
        #expect(first?["high_contrast"] as? Bool == false && first?["silence_ms"] as? Int == 1200)

        // Refused with the member named; what was saved stays.
        for (body, param) in [
            (#"{"silence_ms": 50}"#, "silence_ms"), (#"{"max_tokens": 0}"#, "max_tokens"),
            (#"{"model": "  "}"#, "model"), (#"{"large_text": "yes"}"#, "large_text"),
            (#"{"colour": "blue"}"#, "colour"), (#"{"turn_detection": "magic_vad"}"#, "turn_detection"),
            (#"{"eagerness": "eventually"}"#, "eagerness"),
        ] {
            let refused = try await server.send(
                .PUT, "/v1/settings/preferences", headers: Self.one + [("content-type", "application/json")],
                body: Data(body.utf8))
            #expect(refused.status == 400, "\(body)")
            #expect(refused.error?["param"] as? String == param, "\(body): \(refused.text)")
        }
        let malformed = try await server.send(
            .PUT, "/v1/settings/preferences", headers: Self.one + [("content-type", "application/json")],
            body: Data("{\"silence_ms\": ".utf8))
        #expect(malformed.status == 400)
        let after = try await server.send(.GET, "/v1/settings/preferences", headers: Self.one).json?["preferences"] as? [String: Any]
        #expect(after?["silence_ms"] as? Int == 1200)

        let forgotten = try await server.send(.DELETE, "/v1/settings/preferences", headers: Self.one)
        #expect(forgotten.json?["saved"] as? Bool == false)
        #expect(try await server.send(.GET, "/v1/settings/preferences", headers: Self.one).json?["saved"] as? Bool == false)
        #expect(try await server.send(.GET, "/v1/settings/preferences").status == 401)
    }

    static let outline = """
        {"topic": "Volcanoes", "branches": [
          {"label": "Magma", "ideas": [{"label": "Rises through crust", "details": ["Hot rock"]}]},
          {"label": "Eruptions", "ideas": [{"label": "Ash clouds", "details": []}, {"label": "Lava flows", "details": []}]}
        ]}
        """

    @Test("a mind map of the caller's own conversation: its words go to the model, and the SVG draws every label")
    func mindMapOfThread() async throws {
        let model = ScriptedLanguageModel(replies: [[Self.outline], [Self.outline]], capabilities: .init(jsonSchema: true))
        let server = try await TestServer.scripted(model: model, settings: ["PARLEY_API_KEYS": "key-one,key-two"])
        defer { server.stop() }

        let thread = try await server.post("/v1/threads", json: ["title": "Volcano lesson"], headers: Self.one)
        let id = try #require(thread.json?["id"] as? Int)
        for message: [String: Any] in [
            ["role": "user", "text": "How do volcanoes erupt?", "raw_transcript": "how do vol canoes erupt", "edited_text": "How do volcanoes erupt?"],
            ["role": "assistant", "text": "Magma rises through the crust and bursts out as lava and ash."],
        ] {
            #expect(try await server.post("/v1/threads/\(id)/messages", json: message, headers: Self.one).status == 201)
        }

        let map = try await server.post("/v1/mindmaps", json: ["thread": id], headers: Self.one)
        #expect(map.status == 200, "\(map.text)")
        let document = try #require(map.json)
        #expect(document["object"] as? String == "mindmap" && document["topic"] as? String == "Volcanoes")
        #expect((document["branches"] as? [[String: Any]])?.map { $0["label"] as? String } == ["Magma", "Eruptions"])
        let svg = try #require(document["svg"] as? String)
        #expect(svg.contains("<svg") && svg.contains("role=\"img\""))
        for label in ["Volcanoes", "Magma", "Eruptions", "Rises through", "Ash clouds", "Lava flows", "Hot rock"] {
            #expect(svg.contains(label), "the SVG does not draw \(label)")
        }
        // The model got the conversation as the person meant it (the edited words) and the reply.
        let asked = try #require(await model.requests.last?.messages.last?.text)
        #expect(asked.contains("How do volcanoes erupt?") && asked.contains("Magma rises through the crust"))
        #expect(!asked.contains("vol canoes"))

        // Another key's conversation is not found; nothing, or two sources, is refused.
        let hidden = try await server.post("/v1/mindmaps", json: ["thread": id], headers: Self.two)
        #expect(hidden.status == 404)
        let both = try await server.post("/v1/mindmaps", json: ["thread": id, "text": "Volcanoes"], headers: Self.one)
        #expect(both.status == 400)
        let empty = try await server.post("/v1/mindmaps", json: ["text": "   "], headers: Self.one)
        #expect(empty.status == 400 && empty.error?["code"] as? String == "empty_source")
        let unknown = try await server.post("/v1/mindmaps", json: ["thread": id, "size": 3], headers: Self.one)
        #expect(unknown.status == 400 && unknown.error?["param"] as? String == "size")

        let fromText = try await server.post("/v1/mindmaps", json: ["text": "Volcanoes erupt when magma rises.", "seed": 7], headers: Self.two)
        #expect(fromText.status == 200 && fromText.json?["topic"] as? String == "Volcanoes")
    }

    @Test("an answer that does not fit the mind map's schema is a 502 in OpenAI's shape")
    func invalidOutline() async throws {
        let model = ScriptedLanguageModel(replies: Array(repeating: [#"{"topic": "Volcanoes"}"#], count: 4), capabilities: .init(jsonSchema: true))
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let map = try await server.post("/v1/mindmaps", json: ["text": "Volcanoes erupt when magma rises."])
        #expect(map.status == 502, "\(map.text)")
        #expect(map.error?["code"] as? String == "invalid_structured_output")
        #expect(map.error?["message"] as? String != nil && !(map.error?["message"] as? String ?? "").contains("cannot follow"))
        #expect(await model.requests.count >= 2)  // asked again to repair before giving up
    }
}
