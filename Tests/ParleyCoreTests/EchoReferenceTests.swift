import ParleyCore
import Testing

/// The far-end side of echo cancellation: what the speaker played, handed out in step with the
/// microphone.
@Suite("echo reference: the pulled speaker and the far-end buffer")
struct EchoReferenceTests {
    @Test("the speaker hands out the reply in order, silence when paused or idle, and finishes once pulled to its end")
    func pulledSpeaker() async {
        let speaker = PulledSpeaker(sampleRate: 8)
        #expect(await speaker.pull(3) == [0, 0, 0])
        await speaker.beginReply()
        await speaker.play(AudioBuffer(samples: [1, 2, 3, 4, 5], sampleRate: 8))
        #expect(await speaker.pull(2) == [1, 2])
        await speaker.pause()
        #expect(await speaker.pull(2) == [0, 0])
        await speaker.resume()
        let finished = Task { await speaker.finish() }
        #expect(await speaker.pull(4) == [3, 4, 5, 0])
        #expect(await finished.value == 5.0 / 8)
        #expect(await speaker.isPlaying == false)
        #expect(await speaker.heardAudio?.samples == [1, 2, 3, 4, 5])
    }

    @Test("a cue plays when no reply does, is not kept among the replies heard, and a reply cuts it short")
    func cue() async {
        let speaker = PulledSpeaker(sampleRate: 4)
        let cue = Task { await speaker.playCue(AudioBuffer(samples: [0.5, 0.5, 0.5], sampleRate: 4)) }
        while await speaker.isPlaying == false { await Task.yield() }
        #expect(await speaker.pull(2) == [0.5, 0.5])
        #expect(await speaker.pull(2) == [0.5, 0])
        await cue.value
        #expect(await speaker.isPlaying == false)
        #expect(await speaker.heardAudio == nil)
        // A reply that begins during a cue takes over the speaker; the cue returns.
        let cut = Task { await speaker.playCue(AudioBuffer(samples: [Float](repeating: 0.5, count: 40), sampleRate: 4)) }
        while await speaker.isPlaying == false { await Task.yield() }
        _ = await speaker.pull(1)
        await speaker.beginReply()
        await speaker.play(AudioBuffer(samples: [1, 2], sampleRate: 4))
        await cut.value
        #expect(await speaker.isPlaying)
        #expect(await speaker.pull(2) == [1, 2])
        #expect(await speaker.stop() == 0.5)
        #expect(await speaker.heardAudio?.samples == [1, 2])
        // No cue over a reply.
        await speaker.beginReply()
        await speaker.play(AudioBuffer(samples: [1], sampleRate: 4))
        await speaker.playCue(AudioBuffer(samples: [0.5], sampleRate: 4))
        #expect(await speaker.pull(2) == [1, 0])
    }

    @Test("the ready chime sweeps the voice band at a modest level, faded in and out")
    func readyChime() {
        let samples = ReadyChime.samples(sampleRate: 16_000)
        #expect(samples.count == 19_200)
        #expect(samples.map(abs).max() ?? 0 < 0.3)
        #expect(samples.map(abs).max() ?? 0 > 0.1)
        #expect(abs(samples[0]) < 0.001 && abs(samples[samples.count - 1]) < 0.01)
        #expect(ReadyChime.samples(sampleRate: 0).isEmpty)
    }

    @Test("a stopped reply reports what was pulled of it, and plays no more")
    func stopped() async {
        let speaker = PulledSpeaker(sampleRate: 4)
        await speaker.beginReply()
        await speaker.play(AudioBuffer(samples: [1, 1, 1, 1, 1, 1, 1, 1], sampleRate: 4))
        _ = await speaker.pull(2)
        #expect(await speaker.stop() == 0.5)
        #expect(await speaker.pull(2) == [0, 0])
    }

    @Test("the far-end buffer pads with silence, converts the rate, and forgets on clear")
    func farEnd() async {
        let reference = FarEndBuffer(sampleRate: 8)
        await reference.append(AudioBuffer(samples: [1, 2], sampleRate: 8))
        #expect(await reference.take(4) == [1, 2, 0, 0])
        await reference.append(AudioBuffer(samples: [Float](repeating: 0.5, count: 160), sampleRate: 16))
        #expect(await reference.pendingSeconds > 8.0 / 8 * 0.9)
        await reference.clear()
        #expect(await reference.take(2) == [0, 0])
    }
}
