import Foundation
import ParleyCore
import Testing
@testable import ParleyServer

/// `session.parley.wake_word`: read, reported, checked, and a new conversation when it changes.
@Suite("realtime: wake word setting")
struct RealtimeWakeWordTests {
    @Test("wake_word is off by default, set by session.update, reported, and refused when not a boolean")
    func setting() throws {
        let fresh = RealtimeSessionSettings(model: "auto", silence: Tunable.endSilence.defaultValue)
        #expect(!fresh.wakeWord)
        #expect(fresh.json(id: "sess_test", transcriptionModel: "whisper")["parley"]?["wake_word"] == .bool(false))
        var on = fresh
        try on.apply(["parley": ["wake_word": true]])
        #expect(on.wakeWord)
        #expect(on.json(id: "sess_test", transcriptionModel: "whisper")["parley"]?["wake_word"] == .bool(true))
        #expect(fresh.needsNewConversation(for: on))
        var other = fresh
        try other.apply(["parley": ["echo_cancellation": true]])
        #expect(!other.wakeWord, "another Parley field leaves the wake word as it was")
        var wrong = fresh
        do {
            try wrong.apply(["parley": ["wake_word": "yes"]])
            Issue.record("a string was taken for wake_word")
        } catch {
            #expect(error.param == "session.parley.wake_word")
        }
        #expect(!wrong.wakeWord)
    }
}

extension OnDeviceServerTests.Realtime {
    @Test("wake_word through the WebSocket on the on-device engines: speech before \"Hey Parley\" is not heard; the question after it is answered")
    func wakeWord() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        // An espeak-ng voice the wake word head was not trained on.
        func said(_ text: String) throws -> AudioBuffer {
            try WAV.decode(OnDeviceServerTests.TranscriptionLanguage.spoken(text, voice: "en-us-nyc+m3"))
        }
        let before = try said("Tell me about the party tonight. And what about the weather tomorrow?")
        let phrase = try said("Hey Parley")
        let question = try said("What is the capital of France?")
        try await RealtimeTestClient.with(server) { client in
            try await client.send(["type": "session.update", "session": ["parley": ["wake_word": true]]])
            let updated = try await client.next("session.updated")
            #expect(((updated["session"] as? [String: Any])?["parley"] as? [String: Any])?["wake_word"] as? Bool == true)
            try await client.append(before.followed(bySilence: 2))
            try await client.append(phrase.followed(bySilence: 0.2))
            try await client.append(question.followed(bySilence: 1.5))
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed", within: 120)
            let heard = (transcript["transcript"] as? String ?? "").lowercased()
            #expect(heard.contains("france"), "\(heard)")
            #expect(!heard.contains("party") && !heard.contains("weather"), "heard before the phrase: \(heard)")
            let done = try await client.next("response.done", within: 180)
            let response = done["response"] as? [String: Any]
            let content = ((response?["output"] as? [[String: Any]])?.first?["content"] as? [[String: Any]])?.first
            #expect((content?["transcript"] as? String)?.contains("Paris") == true, "\(content ?? [:])")
            let types = await client.types()
            #expect(types.filter { $0 == "input_audio_buffer.speech_started" }.count == 1, "\(types)")
            #expect(types.filter { $0 == "conversation.item.input_audio_transcription.completed" }.count == 1, "\(types)")
        }
    }
}
