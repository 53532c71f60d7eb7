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
