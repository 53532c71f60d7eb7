import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// What realtime clients beyond the browser do (LiveKit's chat context, Pipecat's bots, phone
/// lines): items of every role anywhere, their deletion and retrieval, responses with their
/// own parameters, a bot that speaks first, out-of-band answers, G.711 audio, transcription
/// sessions, the VAD's settings and rate limits.
@Suite("realtime parity with OpenAI's protocol")
struct RealtimeParityTests {
    static func message(_ role: String, _ text: String, id: String? = nil, after previous: String? = nil) -> [String: Any] {
        var item: [String: Any] = ["type": "message", "role": role, "content": [["type": role == "assistant" ? "output_text" : "input_text", "text": text]]]
        if let id { item["id"] = id }
        var event: [String: Any] = ["type": "conversation.item.create", "item": item]
        if let previous { event["previous_item_id"] = previous }
        return event
    }

    @Test("system and assistant items join the conversation where the client puts them; delete and retrieve; the next reply sees exactly that")
    func contextItems() async throws {
        let model = ScriptedLanguageModel(replies: [["Paris", " is the capital."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send(Self.message("system", "Speak like a pirate.", id: "sys1"))
            try await client.send(Self.message("user", "Earlier question.", id: "old1", after: "root"))
            try await client.send(Self.message("assistant", "Earlier answer.", id: "old2", after: "old1"))
            try await client.send(Self.message("user", "Something to forget.", id: "gone"))
            let added = try await client.next("conversation.item.added")
            #expect((added["item"] as? [String: Any])?["role"] as? String == "system")
            try await client.send(["type": "conversation.item.retrieve", "item_id": "old2"])
            let retrieved = try await client.next("conversation.item.retrieved")
            #expect((retrieved["item"] as? [String: Any])?["id"] as? String == "old2")
            try await client.send(["type": "conversation.item.delete", "item_id": "gone"])
            let deleted = try await client.next("conversation.item.deleted")
            #expect(deleted["item_id"] as? String == "gone")
            try await client.send(["type": "conversation.item.delete", "item_id": "never-there"])
            let missing = try await client.next("error")
            #expect((missing["error"] as? [String: Any])?["code"] as? String == "item_not_found")
            try await client.send(Self.message("user", "What is the capital of France?"))
            try await client.send(["type": "response.create"])
            try await client.next("response.done")
        }
        let request = try #require(await model.requests.last)
        let roles = request.messages.map(\.role.rawValue), texts = request.messages.map(\.text)
        // Instructions lead the request (the context window puts system messages first); the
        // rest keep the order the client gave them.
        #expect(roles == ["system", "system", "user", "assistant", "user"], "\(texts)")
        #expect(texts.dropFirst() == ["Speak like a pirate.", "Earlier question.", "Earlier answer.", "What is the capital of France?"], "\(texts)")
    }

    @Test("response.create with nothing new is answered (the bot speaks first), with the response's instructions, text only, metadata echoed")
    func speaksFirst() async throws {
        let model = ScriptedLanguageModel(replies: [["Hello!", " How can I help?"]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "response.create",
                "response": [
                    "instructions": "Greet the user.", "output_modalities": ["text"], "metadata": ["topic": "greeting"],
                ],
            ])
            let created = try await client.next("response.created")
            #expect(((created["response"] as? [String: Any])?["metadata"] as? [String: Any])?["topic"] as? String == "greeting")
            let done = try await client.next("response.done")
            let response = done["response"] as? [String: Any]
            #expect(response?["status"] as? String == "completed")
            #expect((response?["metadata"] as? [String: Any])?["topic"] as? String == "greeting")
            let types = await client.types()
            #expect(types.contains("response.output_text.delta") && !types.contains("response.output_audio.delta"))
            #expect(!types.contains("error"), "\(types)")
        }
        let request = try #require(await model.requests.first)
        #expect(request.messages.first?.text == "Greet the user.")
        #expect(request.messages.count == 1)
    }

    @Test("an out-of-band response answers its own input and leaves the conversation as it was")
    func outOfBand() async throws {
        let model = ScriptedLanguageModel(replies: [["positive"], ["Paris", " is the capital."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "response.create",
                "response": [
                    "conversation": "none", "instructions": "Classify the sentiment.", "metadata": ["purpose": "classify"],
                    "input": [["type": "message", "role": "user", "content": [["type": "input_text", "text": "I love this!"]]]],
                ],
            ])
            let done = try await client.next("response.done")
            let response = done["response"] as? [String: Any]
            #expect(response?["conversation_id"] is NSNull)
            #expect((response?["metadata"] as? [String: Any])?["purpose"] as? String == "classify")
            let text = (((response?["output"] as? [[String: Any]])?.first?["content"] as? [[String: Any]])?.first?["text"]) as? String
            #expect(text == "positive")
            #expect(!(await client.types()).contains("conversation.item.added"))
            try await client.send(Self.message("user", "What is the capital of France?"))
            try await client.send(["type": "response.create"])
            try await client.next("response.done")
        }
        let requests = await model.requests
        #expect(requests.count == 2)
        #expect(requests.last?.messages.map(\.text).contains("I love this!") == false, "the out-of-band input stayed out")
    }

    @Test("G.711 μ-law in and out: the spoken question is heard and the reply comes back as 8 kHz bytes", arguments: ["g711_ulaw", "g711_alaw"])
    func telephony(format: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let law = try #require(G711(rawValue: format))
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "session.update",
                "session": [
                    "input_audio_format": format, "output_audio_format": format,
                    "turn_detection": ["type": "server_vad", "silence_duration_ms": 600],
                ],
            ])
            let updated = try await client.next("session.updated")
            let input = (((updated["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any])?["format"] as? [String: Any]
            #expect(input?["type"] as? String == (law == .muLaw ? "audio/pcmu" : "audio/pcma"))
            let bytes = law.encode(question.followed(bySilence: 1.5))
            for start in stride(from: 0, to: bytes.count, by: 800) {
                let chunk = Data(bytes[start..<min(bytes.count, start + 800)])
                try await client.send(["type": "input_audio_buffer.append", "audio": chunk.base64EncodedString()])
            }
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(transcript["transcript"] as? String == "hello there")
            let delta = try await client.next("response.output_audio.delta")
            let audio = try #require(Data(base64Encoded: delta["delta"] as? String ?? ""))
            #expect(!audio.isEmpty)
            let decoded = law.decodeBuffer(audio)
            #expect(decoded.peak > 0.05, "the reply's tone survives companding")
            try await client.next("response.done")
        }
    }

    @Test("a transcription session transcribes and answers nothing; response.create there is an error")
    func transcriptionOnly() async throws {
        let model = ScriptedLanguageModel(replies: [["Should never be asked."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "transcription_session.update",
                "session": [
                    "input_audio_transcription": ["model": "whisper-1", "language": "en", "prompt": "Paris"],
                    "turn_detection": ["type": "server_vad", "threshold": 0.6, "prefix_padding_ms": 300, "silence_duration_ms": 600],
                ],
            ])
            let updated = try await client.next("session.updated")
            let session = updated["session"] as? [String: Any]
            #expect(session?["type"] as? String == "transcription")
            let input = (session?["audio"] as? [String: Any])?["input"] as? [String: Any]
            let detection = input?["turn_detection"] as? [String: Any]
            #expect(detection?["threshold"] as? Double == 0.6 && detection?["prefix_padding_ms"] as? Int == 300, "\(String(describing: detection))")
            #expect((input?["transcription"] as? [String: Any])?["prompt"] as? String == "Paris")
            try await client.append(question.followed(bySilence: 1.5))
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(transcript["transcript"] as? String == "hello there")
            try await Task.sleep(for: .milliseconds(500))
            try await client.send(["type": "response.create"])
            let error = try await client.next("error")
            #expect((error["error"] as? [String: Any])?["code"] as? String == "transcription_session")
            #expect(!(await client.types()).contains("response.created"))
        }
        #expect(await model.requests.isEmpty)
    }

    @Test("with rate limits on, each response is followed by rate_limits.updated")
    func rateLimits() async throws {
        let server = try await TestServer.scripted(settings: ["PARLEY_RATE_LIMIT_RPM": "100", "PARLEY_RATE_LIMIT_TPM": "10000"])
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send(Self.message("user", "Hi"))
            try await client.send(["type": "response.create"])
            try await client.next("response.done")
            let limits = try await client.next("rate_limits.updated")
            let names = (limits["rate_limits"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["requests", "tokens"])
        }
    }
}
