import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// `/v1/realtime`: speech over a response that is no interruption.
@Suite("realtime: speech over a response")
struct RealtimeInterruptionTests {
    @Test("a backchannel over a response pauses it and resumes it: no commit, no cancel, no user turn saved")
    func backchannelResumes() async throws {
        let sentence = "This sentence is one of a few in an answer. "
        let model = ScriptedLanguageModel(replies: [Array(repeating: sentence, count: 5)])
        let server = try await TestServer.scripted(model: model, transcripts: ["hello there", "Mm-hmm."])
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("response.created")
            try await client.next("response.output_audio.delta")
            try await client.append(question.followed(bySilence: 1.5))
            let started = try await client.next("input_audio_buffer.speech_started")
            let paused = try await client.next("parley.response.paused")
            #expect(paused["item_id"] as? String == started["item_id"] as? String)
            try await client.next("input_audio_buffer.speech_stopped")
            let resumed = try await client.next("parley.response.resumed")
            #expect(resumed["transcript"] as? String == "Mm-hmm.")
            #expect(resumed["response_id"] as? String == paused["response_id"] as? String)
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            let types = await client.types()
            #expect(types.filter { $0 == "input_audio_buffer.committed" }.count == 1)
            #expect(types.filter { $0 == "conversation.item.input_audio_transcription.completed" }.count == 1)
            #expect(types.filter { $0 == "response.created" }.count == 1)
        }
        let store = try await server.runtime.store()
        let thread = try #require(try await store.threads(owner: .local).first).thread.id
        var messages = try await store.messages(in: thread, owner: .local)
        for _ in 0..<50 where messages.count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            messages = try await store.messages(in: thread, owner: .local)
        }
        #expect(messages.map(\.text) == ["hello there", String(repeating: sentence, count: 5).trimmingCharacters(in: .whitespaces)])
        #expect(messages.last?.interrupted == false)
    }

    @Test("with create_response false, words that cut a paused response are sent for review, and answered once sent")
    func reviewedInterruption() async throws {
        let sentence = "This sentence is one of a few in an answer. "
        let model = ScriptedLanguageModel(replies: [Array(repeating: sentence, count: 5), ["Something else, then."]])
        let server = try await TestServer.scripted(model: model, transcripts: ["hello there", "Tell me something else."])
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send([
                "type": "session.update",
                "session": [
                    "audio": [
                        "input": [
                            "turn_detection": [
                                "type": "server_vad", "silence_duration_ms": 600, "create_response": false,
                            ]
                        ]
                    ]
                ],
            ])
            try await client.next("session.updated")
            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("conversation.item.input_audio_transcription.completed")
            try await client.send(["type": "response.create"])
            try await client.next("response.output_audio.delta")
            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("parley.response.paused")
            let heard = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(heard["transcript"] as? String == "Tell me something else.")
            try await client.send(["type": "response.create"])
            let cut = try await client.next("response.done")
            #expect((cut["response"] as? [String: Any])?["status"] as? String == "cancelled")
            let answered = try await client.next("response.done")
            #expect((answered["response"] as? [String: Any])?["status"] as? String == "completed")
            #expect(!(await client.types()).contains("parley.response.resumed"))
        }
    }

    @Test("interrupt_response, min_interruption_ms and backchannels are set, reported, and checked")
    func settings() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            let created = try await client.next("session.created")
            func detection(_ event: [String: Any]) -> [String: Any]? {
                (((event["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any])?["turn_detection"] as? [String: Any]
            }
            func parley(_ event: [String: Any]) -> [String: Any]? { (event["session"] as? [String: Any])?["parley"] as? [String: Any] }
            #expect(detection(created)?["interrupt_response"] as? Bool == true)
            #expect(parley(created)?["min_interruption_ms"] as? Int == 400)
            #expect(parley(created)?["echo_cancellation"] as? Bool == false)
            try await client.send([
                "type": "session.update",
                "session": [
                    "audio": ["input": ["turn_detection": ["type": "server_vad", "interrupt_response": false]]],
                    "parley": ["min_interruption_ms": 250, "backchannels": ["vale", "venga"], "echo_cancellation": true],
                ],
            ])
            let updated = try await client.next("session.updated")
            #expect(detection(updated)?["interrupt_response"] as? Bool == false)
            #expect(parley(updated)?["min_interruption_ms"] as? Int == 250)
            #expect(parley(updated)?["backchannels"] as? [String] == ["vale", "venga"])
            #expect(parley(updated)?["echo_cancellation"] as? Bool == true)
            #expect(parley(updated)?["echo_canceller"] is NSNull)
            try await client.send(["type": "session.update", "session": ["parley": ["echo_canceller": "webrtc"]]])
            #expect(parley(try await client.next("session.updated"))?["echo_canceller"] as? String == "webrtc")
            try await client.send(["type": "session.update", "session": ["parley": ["echo_canceller": "webrtc-then-speex"]]])
            #expect(parley(try await client.next("session.updated"))?["echo_canceller"] as? String == "webrtc-then-speex")
            try await client.send(["type": "session.update", "session": ["parley": ["echo_canceller": "aec3"]]])
            let unknownEngine = try await client.next("error")
            #expect(((unknownEngine["error"] as? [String: Any])?["param"] as? String) == "session.parley.echo_canceller")
            try await client.send(["type": "session.update", "session": ["parley": ["echo_cancellation": "on"]]])
            let notBool = try await client.next("error")
            #expect(((notBool["error"] as? [String: Any])?["param"] as? String) == "session.parley.echo_cancellation")
            try await client.send(["type": "session.update", "session": ["parley": ["backchannels": [1, 2]]]])
            let error = try await client.next("error")
            #expect(((error["error"] as? [String: Any])?["param"] as? String) == "session.parley.backchannels")
            try await client.send(["type": "session.update", "session": ["audio": ["input": ["turn_detection": ["interrupt_response": "yes"]]]]])
            let second = try await client.next("error")
            #expect(((second["error"] as? [String: Any])?["message"] as? String)?.contains("interrupt_response") == true)
        }
    }
}
