import Testing
import ParleyTesting
@testable import ParleyCore

/// A voice that says each text as 0.2 s of tone followed by 0.3 s of silence (as espeak-ng
/// ends every text), in one buffer or, with `split`, in buffers of 0.1 s.
struct PausingVoice: TextToSpeechProvider {
    let identity = ProviderIdentity(name: "pausing-tts", isLocal: true)
    let sampleRate = 10_000
    var split = false

    func availability() async -> Availability { .ready }

    func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let rate = sampleRate, split = self.split
        return .producing { continuation in
            let samples = [Float](repeating: 0.5, count: rate / 5) + [Float](repeating: 0, count: rate * 3 / 10)
            let audio = AudioBuffer(samples: samples, sampleRate: rate)
            guard split else {
                continuation.yield(audio)
                return
            }
            for start in stride(from: 0, to: samples.count, by: rate / 10) {
                continuation.yield(audio.slice(start..<(start + rate / 10)))
            }
        }
    }
}

@Suite("The pause after a chunk of a reply")
struct SilenceTailTests {
    @Test("sound plays at once; the silence after it waits, goes before the next sound, and is cut at the end")
    func tail() {
        var tail = SilenceTail()
        let sound = AudioBuffer(samples: [0.5, 0.5, 0, 0, 0], sampleRate: 10)
        #expect(tail.play(sound) == [AudioBuffer(samples: [0.5, 0.5], sampleRate: 10)])
        #expect(tail.play(AudioBuffer(samples: [0, 0], sampleRate: 10)).isEmpty)
        // Silence between two sounds is kept whole.
        #expect(
            tail.play(AudioBuffer(samples: [0.2, 0], sampleRate: 10)) == [
                AudioBuffer(samples: [0, 0, 0, 0, 0], sampleRate: 10), AudioBuffer(samples: [0.2], sampleRate: 10),
            ])
        #expect(tail.play(AudioBuffer(samples: [0, 0, 0], sampleRate: 10)).isEmpty)
        #expect(tail.end(keeping: 0.2) == AudioBuffer(samples: [0, 0], sampleRate: 10))
        #expect(tail.end(keeping: nil) == nil)
        var whole = SilenceTail()
        _ = whole.play(sound)
        #expect(whole.end(keeping: nil) == AudioBuffer(samples: [0, 0, 0], sampleRate: 10))
    }

    @Test("a chunk that ends inside a sentence is followed by a breath, a sentence by the voice's own pause", arguments: [false, true])
    func spokenReply(split: Bool) async throws {
        let llm = ScriptedLanguageModel(replies: [["The capital of France", " is", " Paris.", " It is big."]])
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
        let speaker = ReplySpeaker(llm: llm, tts: PausingVoice(split: split))
        await output.beginReply()
        let outcome = try await speaker.speak(ChatRequest(messages: [.user("What is the capital of France?")]), to: output)
        _ = await output.finish()
        #expect(outcome.spoken.sentences.map(\.text) == ["The capital", "of France is Paris.", "It is big."])
        let heard = try #require(await output.heardAudio)
        // Three times 0.2 s of tone; 0.08 s after the first phrase, 0.3 s after each sentence.
        #expect(abs(heard.duration - (0.6 + 0.08 + 0.3 + 0.3)) < 0.001)
        let loud = heard.samples.indices.filter { heard.samples[$0] > 0 }
        let gaps = zip(loud, loud.dropFirst()).map { $1 - $0 - 1 }.filter { $0 > 0 }
        #expect(gaps == [800, 3_000])
        #expect(abs(outcome.spoken.sentences.map(\.duration).reduce(0, +) - heard.duration) < 0.001)
    }

    @Test("sentence ends are read through closing quotes and brackets")
    func sentenceEnds() {
        #expect(ReplySpeaker.endsSentence("He said \"Stop.\""))
        #expect(ReplySpeaker.endsSentence("Really?)"))
        #expect(ReplySpeaker.endsSentence("Wait…"))
        #expect(!ReplySpeaker.endsSentence("The capital of France"))
        #expect(!ReplySpeaker.endsSentence("The largest planet in our solar system,"))
    }
}
