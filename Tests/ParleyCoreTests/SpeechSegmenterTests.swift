import Testing
@testable import ParleyCore

@Suite("Speech segmentation and endpointing")
struct SpeechSegmenterTests {
    // 100 frames per second makes the arithmetic readable: frameSize 160 at 16 kHz = 10 ms.
    func segmenter(endSilence: Double = 0.3, minSpeech: Double = 0.1, padding: Double = 0, maxSpeech: Double = 30) -> SpeechSegmenter {
        SpeechSegmenter(
            configuration: .init(minSpeech: minSpeech, endSilence: endSilence, padding: padding, maxSpeech: maxSpeech),
            frameSize: 160, sampleRate: 16_000)
    }

    func run(_ probabilities: [Float], _ segmenter: SpeechSegmenter) -> [SpeechSegmenter.Event] {
        var segmenter = segmenter
        var events = probabilities.compactMap { segmenter.process(probability: $0) }
        if let last = segmenter.finish() { events.append(.speechEnded(last)) }
        return events
    }

    @Test("speech, then silence as long as the end silence, closes a segment")
    func endpointing() {
        let probabilities = [Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 50) + [Float](repeating: 0.1, count: 40)
        let events = run(probabilities, segmenter(endSilence: 0.3))
        #expect(
            events == [
                .speechStarted(at: 10 * 160),
                .speechEnded(SpeechSegment(start: 10 * 160, end: 60 * 160, sampleRate: 16_000)),
            ])
    }

    @Test("a pause shorter than the end silence does not split the segment")
    func shortPause() {
        let speech = [Float](repeating: 0.9, count: 30), pause = [Float](repeating: 0, count: 20)
        let ends = run(speech + pause + speech, segmenter(endSilence: 0.3)).filter { if case .speechEnded = $0 { true } else { false } }
        #expect(ends.count == 1)
    }

    @Test("a pause longer than the end silence makes two segments")
    func longPause() {
        let speech = [Float](repeating: 0.9, count: 30), pause = [Float](repeating: 0, count: 40)
        let ends = run(speech + pause + speech, segmenter(endSilence: 0.3)).compactMap { if case .speechEnded(let s) = $0 { s } else { nil } }
        #expect(ends.map(\.start) == [0, 70 * 160])
    }

    @Test("a click shorter than the minimum speech is ignored")
    func click() {
        let events = run([0, 0, 0.9, 0.9, 0, 0] + [Float](repeating: 0, count: 50), segmenter(minSpeech: 0.1))
        #expect(events.isEmpty)
    }

    @Test("hysteresis: a dip between the two thresholds stays speech")
    func hysteresis() {
        let probabilities = [Float](repeating: 0.9, count: 20) + [Float](repeating: 0.4, count: 60) + [Float](repeating: 0, count: 40)
        let ends = run(probabilities, segmenter()).compactMap { if case .speechEnded(let s) = $0 { s } else { nil } }
        #expect(ends == [SpeechSegment(start: 0, end: 80 * 160, sampleRate: 16_000)])
    }

    @Test("padding widens the segment, but never before the start")
    func padding() {
        let probabilities = [Float](repeating: 0, count: 5) + [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: 40)
        let ends = run(probabilities, segmenter(padding: 0.1)).compactMap { if case .speechEnded(let s) = $0 { s } else { nil } }
        #expect(ends == [SpeechSegment(start: 0, end: 25 * 160 + 1600, sampleRate: 16_000)])
    }

    @Test("a segment reaching the maximum length is cut")
    func maxLength() {
        let ends = run([Float](repeating: 0.9, count: 250), segmenter(maxSpeech: 1.0)).compactMap { if case .speechEnded(let s) = $0 { s } else { nil } }
        #expect(ends.count == 3)
        #expect(ends.first?.end == 100 * 160)
    }

    @Test("speech still going at the end of the audio is closed by finish()")
    func openAtEnd() {
        var segmenter = self.segmenter()
        for _ in 0..<30 { _ = segmenter.process(probability: 0.9) }
        #expect(segmenter.isInSpeech)
        #expect(segmenter.finish() == SpeechSegment(start: 0, end: 30 * 160, sampleRate: 16_000))
    }
}
