import Testing
import ParleyTesting
@testable import ParleyCore

@Suite("What the listener heard")
struct SpokenReplyTests {
    let reply = SpokenReply(sentences: [
        .init(text: "The capital is Paris.", duration: 2),
        .init(text: "It is a lovely city by the river.", duration: 3),
    ])

    @Test(
        "cut points",
        arguments: [
            (0.0, ""),
            (0.5, "The"),
            (2.0, "The capital is Paris."),
            (3.0, "The capital is Paris. It is a lovely"),
            (5.0, "The capital is Paris. It is a lovely city by the river."),
            (9.0, "The capital is Paris. It is a lovely city by the river."),
        ])
    func heard(played: Double, expected: String) {
        #expect(reply.heard(upTo: played) == expected)
    }

    @Test("a playback timeline counts gaps when audio arrives late")
    func timeline() {
        let clock = ManualClock()
        var timeline = PlaybackTimeline<ManualClock.Instant>()
        let start = clock.now
        timeline.enqueue(seconds: 1, at: start)
        // The second chunk arrives 2 s in, after the first finished: a 1 s gap.
        timeline.enqueue(seconds: 1, at: start.advanced(by: .seconds(2)))
        #expect(timeline.played(at: start.advanced(by: .milliseconds(500))) == 0.5)
        #expect(timeline.played(at: start.advanced(by: .milliseconds(1500))) == 1)
        #expect(timeline.played(at: start.advanced(by: .milliseconds(2500))) == 1.5)
        #expect(timeline.finish == start.advanced(by: .seconds(3)))
        #expect(timeline.queued == 2)
    }

    @Test("a realtime recording keeps only what was played before stop")
    func recordingStops() async {
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock, realtime: true)
        await output.beginReply()
        await output.play(AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000))
        clock.advance(by: .milliseconds(250))
        #expect(await output.stop() == 0.25)
        #expect(await output.heardAudio?.duration == 0.25)
    }

    @Test("a paused timeline holds what is still to play, and resumes it where it paused")
    func timelinePauses() {
        let clock = ManualClock()
        var timeline = PlaybackTimeline<ManualClock.Instant>()
        let start = clock.now
        timeline.enqueue(seconds: 2, at: start)
        timeline.pause(at: start.advanced(by: .milliseconds(500)))
        #expect(timeline.isPaused)
        #expect(timeline.played(at: start.advanced(by: .seconds(3))) == 0.5)
        // A chunk queued while paused waits behind the rest.
        timeline.enqueue(seconds: 1, at: start.advanced(by: .seconds(1)))
        timeline.resume(at: start.advanced(by: .seconds(4)))
        #expect(timeline.played(at: start.advanced(by: .seconds(4))) == 0.5)
        #expect(timeline.played(at: start.advanced(by: .seconds(5))) == 1.5)
        #expect(timeline.finish == start.advanced(by: .milliseconds(6_500)))
        #expect(timeline.played(at: start.advanced(by: .seconds(7))) == 3)
    }

    @Test("a realtime recording paused mid-reply keeps what was heard before and after the pause")
    func recordingPauses() async {
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock, realtime: true)
        await output.beginReply()
        await output.play(AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000))
        clock.advance(by: .milliseconds(250))
        await output.pause()
        clock.advance(by: .seconds(2))
        await output.resume()
        clock.advance(by: .milliseconds(250))
        let heard = await output.stop()
        #expect(abs(heard - 0.5) < 1e-9)
        let kept = await output.heardAudio?.duration ?? 0
        #expect(abs(kept - 0.5) < 1e-3)
    }
}
