#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Finds utterances in audio that arrives in pieces: converts it to the detector's rate as one
/// continuous stream, scores each frame for speech, segments the speech, measures the level,
/// and keeps the audio that an utterance may still need (the padding before speech, and the
/// speech itself).
///
/// A value: ``append(_:)`` a piece of audio, then take its frames with ``next()`` until it
/// returns `nil`. Sample positions count from the detector's creation, at its rate.
public struct UtteranceDetector: Sendable {
    /// One frame scored.
    public struct Frame: Sendable, Equatable {
        /// The probability in [0, 1] that the frame is speech.
        public var probability: Float
        /// The frame's RMS level, from 0 (silence) to 1 (a full-scale square wave).
        public var level: Float
        /// Whether speech started or an utterance ended at this frame.
        public var event: SpeechSegmenter.Event?
        /// The sample just past the frame.
        public var end: Int
    }

    /// The rate audio is analysed at (the VAD's).
    public let sampleRate: Int
    /// Samples per frame.
    public let frameSize: Int
    /// Samples received so far, at ``sampleRate``.
    public private(set) var received = 0

    private var session: any VoiceActivitySession
    private var segmenter: SpeechSegmenter
    private var converter: StreamingResampler?
    // Audio from absolute sample `base` on; `next` is the first sample not yet scored.
    private var audio: [Float] = []
    private var base = 0
    private var nextSample = 0
    private var frame: [Float]
    /// Samples kept outside speech: the padding before the next utterance, and some slack.
    private let keep: Int
    /// The first sample kept whatever happens (see ``holdAudio(from:)``).
    private var held: Int?

    /// Creates a detector on `vad` with `segmentation`'s thresholds and timings.
    /// - Throws: the VAD's error when it cannot run (e.g. its weights are missing).
    public init(vad: any VoiceActivityDetector, segmentation: SpeechSegmenter.Configuration) throws {
        sampleRate = vad.sampleRate
        frameSize = vad.frameSize
        session = try vad.makeSession()
        segmenter = SpeechSegmenter(configuration: segmentation, frameSize: vad.frameSize, sampleRate: vad.sampleRate)
        frame = [Float](repeating: 0, count: vad.frameSize)
        keep = Int((segmentation.padding + 0.5) * Double(vad.sampleRate))
    }

    /// Whether an utterance is open (speech was heard and has not ended).
    public var isInSpeech: Bool { segmenter.isInSpeech }

    /// Seconds of silence in the open utterance since its last speech (see ``SpeechSegmenter/silence``).
    public var silence: Double? { segmenter.silence }

    /// The open utterance as it would end now (see ``SpeechSegmenter/openSegment``).
    public var openSegment: SpeechSegment? { segmenter.openSegment }

    /// Adds a piece of mono audio at any rate (a change of rate starts a new conversion) and
    /// returns how many samples it gave at ``sampleRate``.
    @discardableResult
    public mutating func append(_ buffer: AudioBuffer) -> Int {
        let samples: [Float]
        if buffer.sampleRate == sampleRate || buffer.isEmpty {
            samples = buffer.samples
        } else {
            if converter?.resampler.inputRate != buffer.sampleRate {
                converter = StreamingResampler(from: buffer.sampleRate, to: sampleRate)
            }
            samples = converter?.process(buffer.samples) ?? []
        }
        received += samples.count
        audio.append(contentsOf: samples)
        return samples.count
    }

    /// Scores the next whole frame, or returns `nil` when none is left (audio no utterance
    /// needs is then let go).
    public mutating func next() -> Frame? {
        guard nextSample + frameSize <= base + audio.count else {
            // Outside speech only the padding before the next utterance is needed.
            if !segmenter.isInSpeech, audio.count > 2 * keep {
                let drop = min(audio.count - keep, max(0, (held ?? .max) - base))
                audio.removeFirst(drop)
                base += drop
            }
            return nil
        }
        let offset = nextSample - base
        var energy: Float = 0
        for index in 0..<frameSize {
            let sample = audio[offset + index]
            frame[index] = sample
            energy += sample * sample
        }
        let probability = session.speechProbability(of: frame)
        nextSample += frameSize
        let event = segmenter.process(probability: probability)
        return Frame(probability: probability, level: sqrtf(energy / Float(frameSize)), event: event, end: nextSample)
    }

    /// Ends the open utterance now (at the end of the input, or when the user stops
    /// listening) and returns it, if it was long enough to count.
    public mutating func endSpeech() -> SpeechSegment? {
        segmenter.finish()
    }

    /// Keeps the audio from absolute sample `start` on, in and out of speech, until called
    /// again (`nil`: only what an utterance may need, as usual). Audio let go already stays gone.
    mutating func holdAudio(from start: Int?) {
        held = start
    }

    /// The kept audio between absolute samples `start` and `end` (clipped to what is kept).
    public func audio(from start: Int, to end: Int) -> AudioBuffer {
        let lower = min(max(0, start - base), audio.count), upper = min(max(0, end - base), audio.count)
        return AudioBuffer(samples: lower < upper ? Array(audio[lower..<upper]) : [], sampleRate: sampleRate)
    }
}
