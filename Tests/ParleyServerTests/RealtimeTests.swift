import Foundation
import HTTPTypes
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyTesting
import Testing

/// `/v1/realtime` on scripted providers (a real VAD on the spoken question): the protocol.
@Suite("realtime voice over a WebSocket")
struct RealtimeTests {
    static func question() throws -> AudioBuffer {
        try WAV.decode(try Samples.question())
    }

    @Test("a spoken turn: speech events, the transcript, the reply's text and audio, saved")
    func spokenTurn() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let question = try Self.question()
        try await RealtimeTestClient.with(server) { client in
            let created = try await client.next("session.created")
            let session = created["session"] as? [String: Any]
            #expect(((session?["audio"] as? [String: Any])?["input"] as? [String: Any]).map { ($0["format"] as? [String: Any])?["rate"] as? Int } == 24_000)
            try await client.send([
                "type": "session.update",
                "session": [
                    "type": "realtime", "instructions": "Answer briefly.",
                    "audio": ["input": ["turn_detection": ["type": "server_vad", "silence_duration_ms": 600]]],
                ],
            ])
            let updated = try await client.next("session.updated")
            #expect((updated["session"] as? [String: Any])?["instructions"] as? String == "Answer briefly.")
            try await client.append(question.followed(bySilence: 1.5))

            let started = try await client.next("input_audio_buffer.speech_started")
            let stopped = try await client.next("input_audio_buffer.speech_stopped")
            #expect(started["item_id"] as? String == stopped["item_id"] as? String)
            #expect((stopped["audio_end_ms"] as? Int ?? 0) > (started["audio_start_ms"] as? Int ?? 0) + 1_000)
            try await client.next("input_audio_buffer.committed")
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(transcript["transcript"] as? String == "hello there")
            try await client.next("response.created")
            let done = try await client.next("response.done")
            let response = done["response"] as? [String: Any]
            #expect(response?["status"] as? String == "completed")
            let events = await client.all()
            let text = events.filter { $0["type"] as? String == "response.output_audio_transcript.delta" }.compactMap { $0["delta"] as? String }.joined()
            #expect(text == "Paris is the capital.")
            let audio = events.filter { $0["type"] as? String == "response.output_audio.delta" }
                .compactMap { ($0["delta"] as? String).flatMap { Data(base64Encoded: $0) } }.reduce(0) { $0 + $1.count }
            #expect(audio > 24_000 * 2 / 10, "\(audio) bytes of reply audio")
            let output = (response?["output"] as? [[String: Any]])?.first
            #expect(((output?["content"] as? [[String: Any]])?.first?["transcript"]) as? String == "Paris is the capital.")
        }
        let store = try await server.runtime.store()
        let threads = try await store.threads(owner: .local)
        #expect(threads.count == 1)
        let messages = try await store.messages(in: try #require(threads.first).thread.id, owner: .local)
        #expect(messages.map(\.text) == ["hello there", "Paris is the capital."])
        #expect(messages.first?.content.chatMessage.parts.count == 1)
    }

    @Test("a typed message with response.create is answered in text and audio")
    func typedTurn() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user", "content": [["type": "input_text", "text": "What is the capital of France?"]],
                ],
            ])
            let added = try await client.next("conversation.item.added")
            #expect((added["item"] as? [String: Any])?["role"] as? String == "user")
            try await client.send(["type": "response.create"])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            #expect(await client.types().contains("response.output_audio.delta"))
        }
    }

    @Test("text-only output: output_text deltas and no audio")
    func textOnly() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.send(["type": "session.update", "session": ["output_modalities": ["text"]]])
            try await client.next("session.updated")
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "Hi"]],
                ],
            ])
            try await client.send(["type": "response.create"])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            let types = await client.types()
            #expect(types.contains("response.output_text.delta"))
            #expect(!types.contains("response.output_audio.delta"))
        }
    }

    @Test("barge-in: speech during a reply cancels it, and the saved reply is what was played")
    func bargeIn() async throws {
        let sentence = "This sentence is one of many in a long answer that takes seconds to play. "
        let model = ScriptedLanguageModel(replies: [Array(repeating: sentence, count: 12)])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let question = try Self.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("response.created")
            try await client.next("response.output_audio.delta")
            try await Task.sleep(for: .milliseconds(800))
            try await client.append(question.followed(bySilence: 1.5))
            // The reply pauses while the user speaks, and is cut once the words prove meant.
            try await client.next("input_audio_buffer.speech_started")
            try await client.next("parley.response.paused")
            let done = try await client.next("response.done")
            let response = done["response"] as? [String: Any]
            #expect(response?["status"] as? String == "cancelled")
            try await client.next("input_audio_buffer.committed")
            // The second question is answered in full.
            let second = try await client.next("response.done")
            #expect((second["response"] as? [String: Any])?["status"] as? String == "completed")
        }
        // The last reply is saved just after its response.done.
        let store = try await server.runtime.store()
        let thread = try #require(try await store.threads(owner: .local).first).thread.id
        var messages = try await store.messages(in: thread, owner: .local)
        for _ in 0..<50 where messages.count < 4 {
            try await Task.sleep(for: .milliseconds(100))
            messages = try await store.messages(in: thread, owner: .local)
        }
        #expect(messages.count == 4)
        let cut = try #require(messages.dropFirst().first)
        #expect(cut.interrupted)
        #expect(!cut.text.isEmpty && cut.text.count < sentence.count * 12, "\(cut.text.count) characters kept")
    }

    @Test("manual turns: commit ends the turn; response.create after it does not answer twice; an empty commit is an error")
    func manualTurns() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let question = try Self.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send(["type": "session.update", "session": ["turn_detection": NSNull()]])
            let updated = try await client.next("session.updated")
            let input = ((updated["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
            #expect(input?["turn_detection"] is NSNull)
            try await client.send(["type": "input_audio_buffer.commit"])
            let empty = try await client.next("error")
            #expect((empty["error"] as? [String: Any])?["code"] as? String == "input_audio_buffer_commit_empty")
            // Long silence does not end a manual turn.
            try await client.append(question.followed(bySilence: 2.5))
            try await Task.sleep(for: .milliseconds(300))
            #expect(await !client.types().contains("input_audio_buffer.speech_stopped"))
            try await client.send(["type": "input_audio_buffer.commit"])
            try await client.send(["type": "response.create"])
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(transcript["transcript"] as? String == "hello there")
            try await client.next("response.done")
            try await Task.sleep(for: .milliseconds(500))
            #expect(await client.types().filter { $0 == "response.created" }.count == 1)
        }
    }

    @Test("malformed frames get an error event and the session lives on")
    func malformedFrames() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let frames = [
            "not json", "[1,2,3]", "{}", #"{"type": 5}"#, #"{"type": "no.such.event", "event_id": "e1"}"#,
            #"{"type": "input_audio_buffer.append"}"#, #"{"type": "input_audio_buffer.append", "audio": "***"}"#,
            #"{"type": "input_audio_buffer.append", "audio": "AAEC"}"#,
            #"{"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/opus"}}}}}"#,
            #"{"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/pcm", "rate": 3}}}}}"#,
            #"{"type": "session.update", "session": {"turn_detection": {"type": "magic"}}}"#,
            #"{"type": "session.update", "session": {"output_modalities": ["smell"]}}"#,
            #"{"type": "session.update", "session": {"max_output_tokens": -4}}"#,
            #"{"type": "session.update", "session": 7}"#,
            #"{"type": "conversation.item.create", "item": {"type": "message", "role": "critic", "content": [{"type": "input_text", "text": "x"}]}}"#,
            #"{"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "https://example.com/a.png"}]}}"#,
            #"{"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": []}}"#,
            #"{"type": "conversation.item.truncate", "item_id": "nope"}"#,
            #"{"type": "response.cancel"}"#, #"{"type": "response.create", "response": {"conversation": "sideways"}}"#,
            #"{"type": "conversation.item.delete", "item_id": "nope"}"#, #"{"type": "conversation.item.retrieve"}"#,
        ]
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            for frame in frames { try await client.sendText(frame) }
            // Random bytes as text and as a binary frame.
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<20 {
                let bytes = (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 32...126, using: &generator) }
                try await client.sendText(String(decoding: bytes, as: UTF8.self))
            }
            try await client.outbound.write(.binary(.init(bytes: [0, 1, 2, 3])))
            for _ in 0..<(frames.count + 21) { try await client.next("error", within: 10) }
            let errors = await client.all().filter { $0["type"] as? String == "error" }
            let named = errors.first { ($0["error"] as? [String: Any])?["event_id"] as? String == "e1" }
            #expect((named?["error"] as? [String: Any])?["code"] as? String == "unknown_event")
            // Still alive: a typed turn is answered.
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "Hi"]],
                ],
            ])
            try await client.send(["type": "response.create"])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
        }
        let health = try await server.send(.GET, "/health")
        #expect(health.status == 200)
    }

    @Test("each key's realtime conversation is its own: another key can neither list nor continue it")
    func isolation() async throws {
        let server = try await TestServer.scripted { $0.apiKeys = ["key-a", "key-b"] }
        defer { server.stop() }
        var a = HTTPFields(), b = HTTPFields()
        a[.authorization] = "Bearer key-a"
        b[.authorization] = "Bearer key-b"
        try await RealtimeTestClient.with(server, headers: a) { client in
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "Remember 42."]],
                ],
            ])
            try await client.send(["type": "response.create"])
            try await client.next("response.done")
        }
        var listA = try await server.send(.GET, "/v1/threads", headers: [("authorization", "Bearer key-a")])
        for _ in 0..<50 where ((listA.json?["data"] as? [[String: Any]]) ?? []).isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            listA = try await server.send(.GET, "/v1/threads", headers: [("authorization", "Bearer key-a")])
        }
        let thread = try #require((((listA.json?["data"] as? [[String: Any]])?.first)?["thread"] as? [String: Any])?["id"] as? Int, "\(listA.text)")
        let listB = try await server.send(.GET, "/v1/threads", headers: [("authorization", "Bearer key-b")])
        #expect((listB.json?["data"] as? [[String: Any]])?.isEmpty == true, "\(listB.text)")
        try await RealtimeTestClient.with(server, query: "thread=\(thread)", headers: b) { client in
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "What did I ask you to remember?"]],
                ],
            ])
            let error = try await client.next("error")
            #expect(((error["error"] as? [String: Any])?["message"] as? String)?.contains("\(thread)") == true, "\(error)")
        }
        // Its owner continues it.
        try await RealtimeTestClient.with(server, query: "thread=\(thread)", headers: a) { client in
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "user",
                    "content": [["type": "input_text", "text": "And now?"]],
                ],
            ])
            try await client.send(["type": "response.create"])
            try await client.next("response.done")
        }
    }

    @Test("with keys on, the upgrade needs one")
    func authentication() async throws {
        let server = try await TestServer.start(settings: ["PARLEY_API_KEYS": "key-one"])
        defer { server.stop() }
        await #expect(throws: (any Error).self) {
            try await RealtimeTestClient.with(server) { client in _ = try await client.next("session.created", within: 5) }
        }
        var headers = HTTPFields()
        headers[.authorization] = "Bearer key-one"
        try await RealtimeTestClient.with(server, headers: headers) { client in
            try await client.next("session.created", within: 10)
        }
    }
}

extension RealtimeTests {
    @Test("semantic_vad: its eagerness is taken and reported, auto by default; an unknown one is an error event, and nothing changes")
    func semanticVAD() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            func detection(_ event: [String: Any]) -> [String: Any]? {
                (((event["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any])?["turn_detection"] as? [String: Any]
            }
            try await client.send([
                "type": "session.update", "session": ["audio": ["input": ["turn_detection": ["type": "semantic_vad", "eagerness": "low"]]]],
            ])
            var updated = try await client.next("session.updated")
            #expect(detection(updated)?["type"] as? String == "semantic_vad")
            #expect(detection(updated)?["eagerness"] as? String == "low")
            try await client.send(["type": "session.update", "session": ["turn_detection": ["type": "semantic_vad", "eagerness": "eventually"]]])
            let error = try await client.next("error")
            #expect((error["error"] as? [String: Any])?["param"] as? String == "session.turn_detection.eagerness")
            try await client.send(["type": "session.update", "session": ["turn_detection": ["type": "semantic_vad"]]])
            updated = try await client.next("session.updated")
            #expect(detection(updated)?["eagerness"] as? String == "auto")
        }
    }
}

extension OnDeviceServerTests {
    @Suite("realtime on the on-device engines")
    struct Realtime {
        @Test("semantic_vad on the on-device engines: words that sound whole end the turn before the long silence, and it says why")
        func semanticTurnEnd() async throws {
            let server = try await TestServer.start()
            defer { server.stop() }
            let question = try RealtimeTests.question()
            try await RealtimeTestClient.with(server) { client in
                // Low eagerness: the pause is scored from 0.8 s of silence and the turn taken
                // anyway at 2 s, so a loaded machine (the whole suite in parallel: the final
                // transcript alone took 0.59 s there) still scores it in time; at high (0.3 s
                // and 0.8 s) the long silence sometimes came first.
                try await client.send([
                    "type": "session.update", "session": ["audio": ["input": ["turn_detection": ["type": "semantic_vad", "eagerness": "low"]]]],
                ])
                try await client.next("session.updated")
                // A first turn, however it ends: in a fresh server the engines are still
                // loading while it is heard (a debug build's first pause on this machine
                // class was scored after the long silence in 4 of 5 runs). The claim is
                // about a conversation under way.
                try await client.append(question.followed(bySilence: 3), paced: true)
                try await client.next("response.done", within: 180)
                // Played as a microphone would, so that the pause is scored while it lasts.
                try await client.append(question.followed(bySilence: 3), paced: true)
                let done = try await client.next("response.done", within: 180)
                let response = done["response"] as? [String: Any]
                let parley = response?["parley"] as? [String: Any]
                let why = parley?["end_of_turn"] as? String
                #expect(why?.contains("complete") == true, "\(parley ?? [:])")
                #expect(parley?["reply_started_early"] is Bool)
                let content = ((response?["output"] as? [[String: Any]])?.first?["content"] as? [[String: Any]])?.first
                #expect((content?["transcript"] as? String)?.contains("Paris") == true, "\(content ?? [:])")
            }
        }

        @Test("the spoken question through the WebSocket: Silero, whisper.cpp, llama.cpp and the neural voice answer Paris")
        func spokenQuestion() async throws {
            let server = try await TestServer.start()
            defer { server.stop() }
            let question = try RealtimeTests.question()
            try await RealtimeTestClient.with(server) { client in
                try await client.append(question.followed(bySilence: 1.5))
                let transcript = try await client.next("conversation.item.input_audio_transcription.completed", within: 120)
                #expect((transcript["transcript"] as? String)?.lowercased().contains("france") == true, "\(transcript)")
                let done = try await client.next("response.done", within: 180)
                let response = done["response"] as? [String: Any]
                #expect(response?["status"] as? String == "completed")
                let content = ((response?["output"] as? [[String: Any]])?.first?["content"] as? [[String: Any]])?.first
                #expect((content?["transcript"] as? String)?.contains("Paris") == true, "\(content ?? [:])")
                let audio = await client.all().filter { $0["type"] as? String == "response.output_audio.delta" }
                    .compactMap { ($0["delta"] as? String).flatMap { Data(base64Encoded: $0) } }.reduce(0) { $0 + $1.count }
                #expect(Double(audio) / 2 / 24_000 > 0.5, "\(audio) bytes of reply audio")
            }
        }
    }
}
