import ParleyCore
#if canImport(CSpeexDSP)
import CSpeexDSP
#endif

/// SpeexDSP's acoustic echo canceller (an adaptive multi-delay block frequency-domain filter),
/// followed by its residual echo suppressor: the ``EchoCanceller`` Parley uses where it owns
/// both the microphone and the speaker.
///
/// Audio is processed in 10 ms frames; a call's samples beyond whole frames wait for the next
/// call. The filter covers echoes up to ``filterSeconds`` after the reference (the speaker's
/// delay plus the room's reverberation must fit).
public actor SpeexEchoCanceller: EchoCanceller {
    public nonisolated let sampleRate: Int
    /// How long an echo the filter can model, in seconds.
    public nonisolated let filterSeconds: Double
    /// Whether Speex's residual echo suppressor runs after the filter.
    public nonisolated let suppressesResidualEcho: Bool
    private let frameSize: Int
    #if canImport(CSpeexDSP)
    private let engine: SpeexEngine
    #endif
    private var pending: EchoFrames

    /// A canceller for mono audio at `sampleRate` (8–48 kHz). Throws when SpeexDSP is missing
    /// (install it with scripts/setup) or on a platform without it (on Apple platforms use the
    /// system's voice processing instead).
    ///
    /// `residualSuppression` is how far (in dB, negative) the residual echo suppressor may
    /// lower what is left of the echo while the speaker plays (Speex's default is -15 dB when
    /// someone also speaks near the microphone, -40 dB otherwise; Parley's -40/-60 keep the echo
    /// out of the voice detector while the filter is still learning the room).
    public init(
        sampleRate: Int = 16_000, filterSeconds: Double = 0.3, suppressesResidualEcho: Bool = true,
        residualSuppression: (whileTalking: Int, alone: Int) = (-40, -60)
    ) throws(EchoCancellerError) {
        guard (8_000...48_000).contains(sampleRate) else {
            throw EchoCancellerError("echo cancellation runs at 8,000–48,000 Hz, not \(sampleRate) Hz")
        }
        guard (0.02...2).contains(filterSeconds) else {
            throw EchoCancellerError("the echo filter must cover 0.02–2 s, not \(filterSeconds) s")
        }
        self.sampleRate = sampleRate
        self.filterSeconds = filterSeconds
        self.suppressesResidualEcho = suppressesResidualEcho
        frameSize = sampleRate / 100
        pending = EchoFrames(frameSize: frameSize)
        #if canImport(CSpeexDSP)
        let library = try SpeexDSPLibrary.shared.get()
        let frames = Int((filterSeconds * Double(sampleRate) / Double(frameSize)).rounded(.up))
        engine = try SpeexEngine(
            library: library, frameSize: frameSize, filterLength: frames * frameSize,
            sampleRate: sampleRate, suppressor: suppressesResidualEcho ? residualSuppression : nil)
        #else
        throw EchoCancellerError("SpeexDSP is not built for this platform; on Apple platforms use voice processing I/O")
        #endif
    }

    public func cancel(microphone: [Float], speaker: [Float]) -> [Float] {
        pending.append(microphone: microphone, speaker: speaker)
        #if canImport(CSpeexDSP)
        var near = [Int16](repeating: 0, count: frameSize), far = near, cleaned = near
        return pending.drain { microphoneFrame, speakerFrame in
            for (index, (heard, played)) in zip(microphoneFrame, speakerFrame).enumerated() {
                near[index] = Self.pcm(heard)
                far[index] = Self.pcm(played)
            }
            engine.process(near: near, far: far, into: &cleaned)
            return cleaned.map { Float($0) / 32_768 }
        }
        #else
        return pending.drain { microphoneFrame, _ in [Float](repeating: 0, count: microphoneFrame.count) }
        #endif
    }

    public func reset() {
        pending.removeAll()
        #if canImport(CSpeexDSP)
        engine.reset()
        #endif
    }

    private static func pcm(_ sample: Float) -> Int16 {
        Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
    }
}

#if canImport(CSpeexDSP)
/// The echo and preprocessor states, owned by one ``SpeexEchoCanceller`` (its actor serialises
/// every call); freed when it goes.
private final class SpeexEngine {
    private let library: SpeexDSPLibrary
    private let echo: OpaquePointer
    private let preprocessor: OpaquePointer?
    private let frameSize: Int

    init(library: SpeexDSPLibrary, frameSize: Int, filterLength: Int, sampleRate: Int, suppressor: (whileTalking: Int, alone: Int)?) throws(EchoCancellerError)
    {
        guard let echo = library.echoInit(Int32(frameSize), Int32(filterLength)) else {
            throw EchoCancellerError("SpeexDSP could not make an echo canceller for \(frameSize)-sample frames")
        }
        var rate = Int32(sampleRate)
        _ = library.echoCtl(echo, PARLEY_SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        var preprocessor: OpaquePointer?
        if let suppressor {
            guard let made = library.preprocessInit(Int32(frameSize), Int32(sampleRate)) else {
                library.echoDestroy(echo)
                throw EchoCancellerError("SpeexDSP could not make its residual echo suppressor")
            }
            // Speex applies the residual echo suppression through its noise suppressor's gain:
            // with the denoiser off, the suppressor does nothing.
            var on: Int32 = 1
            _ = library.preprocessCtl(made, PARLEY_SPEEX_PREPROCESS_SET_DENOISE, &on)
            _ = library.preprocessCtl(made, PARLEY_SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echo))
            var alone = Int32(max(-100, min(0, suppressor.alone))), talking = Int32(max(-100, min(0, suppressor.whileTalking)))
            _ = library.preprocessCtl(made, PARLEY_SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &alone)
            _ = library.preprocessCtl(made, PARLEY_SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &talking)
            preprocessor = made
        }
        self.library = library
        self.echo = echo
        self.preprocessor = preprocessor
        self.frameSize = frameSize
    }

    func process(near: [Int16], far: [Int16], into cleaned: inout [Int16]) {
        near.withUnsafeBufferPointer { nearPointer in
            far.withUnsafeBufferPointer { farPointer in
                cleaned.withUnsafeMutableBufferPointer { outPointer in
                    guard let nearBase = nearPointer.baseAddress, let farBase = farPointer.baseAddress,
                        let outBase = outPointer.baseAddress
                    else { return }
                    library.echoCancellation(echo, nearBase, farBase, outBase)
                    if let preprocessor { _ = library.preprocessRun(preprocessor, outBase) }
                }
            }
        }
    }

    func reset() { library.echoReset(echo) }

    deinit {
        if let preprocessor { library.preprocessDestroy(preprocessor) }
        library.echoDestroy(echo)
    }
}
#endif
