import Foundation
import Testing
import ParleyCore
@testable import ParleyLocal

@Suite("Segments Whisper wrote past a clip's speech")
struct WhisperEchoTests {
    /// `seconds` of a 200 Hz tone (speech) or of silence, at 16 kHz.
    static func speech(_ seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 200 * Double($0) / 16_000)) }
    }

    static func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 16_000)) }

    static let question = "What is 7 times 8?"

    @Test("a segment that says the clip again over the silence after it is dropped")
    func repeatOverSilence() {
        // A 2.3 s clip: the question, then the padding after it.
        let samples = Self.speech(2) + Self.silence(0.3)
        let segments = [Transcript.Segment(start: 0, end: 2, text: Self.question), Transcript.Segment(start: 2, end: 4, text: Self.question)]
        #expect(WhisperSpeechToText.withoutEchoes(segments, samples: samples) == [segments[0]])
        // The same with a clip whose silence lasts: the repeat is over quiet audio.
        let longer = Self.speech(2) + Self.silence(2.2)
        let echo = [segments[0], Transcript.Segment(start: 2, end: 4, text: " what is 7 times 8 ")]
        #expect(WhisperSpeechToText.withoutEchoes(echo, samples: longer) == [segments[0]])
    }

    @Test("a segment that says the last words again over the quiet after them is dropped")
    func tailRepeat() {
        let samples = Self.speech(2.5) + Self.silence(1.5)
        let question = Transcript.Segment(start: 0, end: 2.5, text: "What is the capital of France?")
        let tail = Transcript.Segment(start: 2.5, end: 4, text: " is the capital of France.")
        #expect(WhisperSpeechToText.withoutEchoes([question, tail], samples: samples) == [question])
        // One word, or other words, are not a repeat.
        let one = Transcript.Segment(start: 2.5, end: 4, text: "France.")
        #expect(WhisperSpeechToText.withoutEchoes([question, one], samples: samples) == [question, one])
        #expect(!WhisperSpeechToText.repeatsTail("the capital of Spain", of: question.text))
        #expect(WhisperSpeechToText.repeatsTail("What is the capital of France", of: question.text))
        // Said over speech, it is kept.
        let said = Self.speech(4)
        #expect(WhisperSpeechToText.withoutEchoes([question, tail], samples: said) == [question, tail])
    }

    @Test("a segment that starts after the end of the clip is dropped")
    func pastTheEnd() {
        let segments = [Transcript.Segment(start: 0, end: 2, text: Self.question), Transcript.Segment(start: 2.4, end: 3, text: "Thank you.")]
        #expect(WhisperSpeechToText.withoutEchoes(segments, samples: Self.speech(2) + Self.silence(0.3)) == [segments[0]])
    }

    @Test("a segment made up in the quiet at the clip's very end is dropped; words said there are kept")
    func quietTail() {
        // As tiny.en heard a 3.23 s sentence: its words, then "Okay." from 3.0 s, where only the
        // fading end of the last word and 0.15 s of quiet remain.
        let fading = Self.speech(3).enumerated().map { $0.offset >= 46_400 ? $0.element * 0.05 : $0.element }
        let samples = fading + Self.silence(0.23)
        let sentence = Transcript.Segment(start: 0, end: 3, text: "Paris is the capital of France, and it is a beautiful city.")
        let madeUp = Transcript.Segment(start: 3, end: 10, text: "Okay.")
        #expect(WhisperSpeechToText.withoutEchoes([sentence, madeUp], samples: samples) == [sentence])
        // The same word, said: kept.
        let said = Self.speech(3) + Self.speech(0.3) + Self.silence(0.1)
        #expect(WhisperSpeechToText.withoutEchoes([sentence, madeUp], samples: said) == [sentence, madeUp])
        // A clip's only segment is never dropped this way (the VAD decides whether there is speech).
        #expect(WhisperSpeechToText.withoutEchoes([madeUp], samples: samples) == [madeUp])
    }

    @Test("a sentence said twice is heard twice, and different words over silence are kept")
    func realWordsKept() {
        let twice = Self.speech(2) + Self.silence(0.2) + Self.speech(2)
        let segments = [Transcript.Segment(start: 0, end: 2, text: Self.question), Transcript.Segment(start: 2.2, end: 4.2, text: Self.question)]
        #expect(WhisperSpeechToText.withoutEchoes(segments, samples: twice) == segments)
        let other = [Transcript.Segment(start: 0, end: 2, text: Self.question), Transcript.Segment(start: 2, end: 2.9, text: "And 9?")]
        #expect(WhisperSpeechToText.withoutEchoes(other, samples: Self.speech(2) + Self.silence(1)) == other)
        #expect(WhisperSpeechToText.withoutEchoes([], samples: []) == [])
    }
}
