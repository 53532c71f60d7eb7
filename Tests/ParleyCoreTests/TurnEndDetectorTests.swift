import Testing
import ParleyTesting
@testable import ParleyCore

/// A scorer of either kind that answers `score` (or fails with `failure`), takes `latency` on
/// the manual clock, and counts its calls.
final class TimedScorer: AudioTurnScorer, TurnPredictor, Sendable {
    struct Failure: Error {}
    let score: Double?
    let latency: Duration
    let clock: ManualClock
    private let counter = CallCount()

    init(_ score: Double?, latency: Duration, clock: ManualClock) {
        self.score = score
        self.latency = latency
        self.clock = clock
    }

    var calls: Int { get async { await counter.value } }

    private func answer() async throws -> Double {
        await counter.increment()
        clock.advance(by: latency)
        guard let score else { throw Failure() }
        return score
    }

    func completion(of speech: AudioBuffer) async throws -> Double { try await answer() }
    func completion(of utterance: String, after history: [ChatMessage], tools: [ToolDefinition]) async throws -> Double {
        try await answer()
    }
}

actor CallCount {
    private(set) var value = 0
    func increment() { value += 1 }
}

@Suite("Judging a pause by the voice and the words")
struct TurnEndDetectorTests {
    let speech = AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000)
    let clock = ManualClock()

    func judge(
        audio: Double?, text: Double?, audioLatency: Duration = .milliseconds(70), textLatency: Duration = .milliseconds(300),
        hasAudio: Bool = true, hasText: Bool = true
    ) async -> (TurnJudgement, audioCalls: Int, textCalls: Int) {
        let audioScorer = TimedScorer(audio, latency: audioLatency, clock: clock)
        let textScorer = TimedScorer(text, latency: textLatency, clock: clock)
        let detector = TurnEndDetector(
            audio: hasAudio ? audioScorer : nil, text: hasText ? textScorer : nil,
            bands: TurnEndDetector.Bands(complete: 0.8, incomplete: 0.2))
        let judgement = await detector.judge(speech: speech, words: "What is the capital of France", textThreshold: 0.02, clock: clock)
        return (judgement, await audioScorer.calls, await textScorer.calls)
    }

    @Test("a voice that sounds finished takes the turn without the words being read", arguments: [0.8, 0.97])
    func audioComplete(score: Double) async {
        let (judgement, audioCalls, textCalls) = await judge(audio: score, text: 0.0001)
        #expect(judgement.verdict == .complete)
        #expect(judgement.source == .audio)
        #expect(judgement.completion == 1)
        #expect(judgement.audioTook == .milliseconds(70))
        #expect(judgement.textTook == nil && judgement.text == nil)
        #expect(audioCalls == 1 && textCalls == 0)
    }

    @Test("a voice that stopped short waits without the words being read", arguments: [0.01, 0.2])
    func audioIncomplete(score: Double) async {
        let (judgement, _, textCalls) = await judge(audio: score, text: 0.9)
        #expect(judgement.verdict == .incomplete)
        #expect(judgement.source == .audio)
        #expect(judgement.completion == 0)
        #expect(textCalls == 0)
    }

    @Test("an unsure voice has its words read, and the words decide", arguments: [(0.5, 0.3, TurnJudgement.Verdict.complete), (0.7, 0.001, .incomplete)])
    func unsure(audio: Double, text: Double, verdict: TurnJudgement.Verdict) async {
        let (judgement, audioCalls, textCalls) = await judge(audio: audio, text: text)
        #expect(judgement.verdict == verdict)
        #expect(judgement.source == .text)
        #expect(judgement.audio == audio && judgement.text == text)
        #expect(judgement.completion == text)
        #expect(judgement.audioTook == .milliseconds(70) && judgement.textTook == .milliseconds(300))
        #expect(audioCalls == 1 && textCalls == 1)
        #expect(clock.now.offset == .milliseconds(370))
    }

    @Test("without the audio model (or when it fails) the words alone decide")
    func textOnly() async {
        let (missing, _, _) = await judge(audio: 0.99, text: 0.001, hasAudio: false)
        #expect(missing.verdict == .incomplete && missing.source == .text && missing.audio == nil)
        let (failed, audioCalls, _) = await judge(audio: nil, text: 0.5)
        #expect(failed.verdict == .complete && failed.source == .text && failed.audio == nil)
        #expect(audioCalls == 1)
    }

    @Test("without a text score an unsure voice is judged at the audio model's own threshold")
    func audioOnly() async {
        let (above, _, _) = await judge(audio: 0.6, text: nil, hasText: false)
        #expect(above.verdict == .complete && above.source == .audio && above.completion == 1)
        let (below, _, textCalls) = await judge(audio: 0.4, text: nil)
        #expect(below.verdict == .incomplete && below.source == .audio && below.completion == 0)
        #expect(textCalls == 1, "the text scorer was asked and failed")
    }

    @Test("with neither signal nothing is known")
    func nothing() async {
        let (judgement, _, _) = await judge(audio: nil, text: nil)
        #expect(judgement.verdict == .unknown && judgement.source == nil && judgement.completion == nil)
    }

    @Test("a voice scored beforehand (as a conversation does, during the transcription) is judged the same; no scorer, no score")
    func voiceScoredBeforehand() async {
        let audioScorer = TimedScorer(0.9, latency: .milliseconds(70), clock: clock)
        let textScorer = TimedScorer(0.001, latency: .milliseconds(300), clock: clock)
        let detector = TurnEndDetector(audio: audioScorer, text: textScorer, bands: TurnEndDetector.Bands(complete: 0.8, incomplete: 0.2))
        let voice = await detector.scoreVoice(speech, clock: clock)
        #expect(voice?.score == 0.9 && voice?.took == .milliseconds(70))
        let judgement = await detector.judge(voice: voice, words: "What is", textThreshold: 0.02, clock: clock)
        #expect(judgement.verdict == .complete && judgement.source == .audio && judgement.audioTook == .milliseconds(70))
        #expect(await textScorer.calls == 0)
        #expect(await TurnEndDetector(audio: nil, text: textScorer).scoreVoice(speech, clock: clock) == nil)
        #expect(await detector.scoreVoice(AudioBuffer(samples: [], sampleRate: 16_000), clock: clock) == nil)
    }

    @Test("by default the voice decides alone only above 0.99 or below 0.1")
    func defaultBands() {
        #expect(TurnEndDetector.Bands() == TurnEndDetector.Bands(complete: 0.99, incomplete: 0.1, audioThreshold: 0.5))
    }

    @Test("bands keep incomplete at or below complete")
    func bands() {
        let bands = TurnEndDetector.Bands(complete: 0.6, incomplete: 0.9)
        #expect(bands.incomplete == 0.6)
    }
}
