import ParleyCore

#if os(Linux)
import Glibc

/// WebRTC's echo canceller (the audio processing module of Debian's
/// `libwebrtc-audio-processing` 0.3, BSD: an adaptive filter with the extended, delay-agnostic
/// options, then nonlinear echo suppression), with its high-pass filter and, optionally, its
/// noise suppressor: an ``EchoCanceller`` beside ``SpeexEchoCanceller``, picked with
/// `--echo-canceller webrtc`.
///
/// The library's API is C++; `scripts/setup` compiles Parley's C face for it
/// (`native/webrtc-echo`) into `libparley-webrtc-echo.so`, opened on first use. Audio is
/// processed in 10 ms frames; a call's samples beyond whole frames wait for the next call.
public actor WebRTCEchoCanceller: EchoCanceller {
    /// How hard the echo suppressor after the filter works: higher takes out more echo and more
    /// of a user who talks over the reply.
    public enum Suppression: Int32, Sendable {
        case low = 0, moderate = 1, high = 2
    }

    public nonisolated let sampleRate: Int
    private let engine: WebRTCEngine
    private let delayMilliseconds: Int32
    private var pending: EchoFrames
    /// 24 kHz audio (the realtime API's) is processed at 48 kHz: 2, else 1.
    private let factor: Int
    /// The last sample of each stream's previous frame, for upsampling.
    private var lastMicrophone: Float = 0, lastSpeaker: Float = 0

    /// The rates the library processes; 24 kHz is processed at 48 kHz.
    static let nativeRates = [8_000, 16_000, 32_000, 48_000]

    /// A canceller for mono audio at 8,000, 16,000, 24,000 (processed at 48,000), 32,000 or
    /// 48,000 Hz. `noiseSuppression` is
    /// 0 (off) to 4 (very high). `delay` is how long the speaker's sound takes to come back into
    /// the microphone, a hint only: the canceller estimates it itself. Throws when the library
    /// or Parley's face for it is missing (install them with scripts/setup).
    public init(
        sampleRate: Int = 16_000, suppression: Suppression = .high, noiseSuppression: Int = 0, delay: Duration = .milliseconds(50)
    ) throws(EchoCancellerError) {
        guard Self.nativeRates.contains(sampleRate) || sampleRate == 24_000 else {
            throw EchoCancellerError("WebRTC's echo canceller runs at 8, 16, 24, 32 or 48 kHz, not \(sampleRate) Hz")
        }
        guard (0...4).contains(noiseSuppression) else {
            throw EchoCancellerError("WebRTC's noise suppression is 0 (off) to 4, not \(noiseSuppression)")
        }
        let milliseconds = delay.components.seconds * 1_000 + delay.components.attoseconds / 1_000_000_000_000_000
        guard (0...500).contains(milliseconds) else {
            throw EchoCancellerError("the speaker's delay must be 0–500 ms, not \(milliseconds) ms")
        }
        self.sampleRate = sampleRate
        factor = Self.nativeRates.contains(sampleRate) ? 1 : 2
        delayMilliseconds = Int32(milliseconds)
        pending = EchoFrames(frameSize: sampleRate / 100)
        engine = try WebRTCEngine(
            library: try WebRTCEchoLibrary.shared.get(), sampleRate: sampleRate * factor, suppression: suppression, noise: noiseSuppression)
    }

    public func cancel(microphone: [Float], speaker: [Float]) -> [Float] {
        pending.append(microphone: microphone, speaker: speaker)
        let engine = engine, delay = delayMilliseconds
        guard factor == 2 else {
            return pending.drain { near, far in engine.process(near: Array(near), far: Array(far), delay: delay) }
        }
        return pending.drain { near, far in
            let cleaned = engine.process(
                near: Self.doubled(near, after: &lastMicrophone), far: Self.doubled(far, after: &lastSpeaker), delay: delay)
            return Self.halved(cleaned)
        }
    }

    /// `samples` at twice their rate, each new sample halfway between two old ones (`last`, the
    /// sample before them, is updated).
    static func doubled(_ samples: ArraySlice<Float>, after last: inout Float) -> [Float] {
        var output: [Float] = []
        output.reserveCapacity(samples.count * 2)
        for sample in samples {
            output.append((last + sample) / 2)
            output.append(sample)
            last = sample
        }
        return output
    }

    /// `samples` at half their rate: each pair averaged (a low-pass that keeps the upsampled
    /// speech band).
    static func halved(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count - 1, by: 2).map { (samples[$0] + samples[$0 + 1]) / 2 }
    }

    public func reset() {
        pending.removeAll()
        lastMicrophone = 0
        lastSpeaker = 0
        engine.reset()
    }
}

/// The processor, owned by one ``WebRTCEchoCanceller`` (its actor serialises every call).
private final class WebRTCEngine: @unchecked Sendable {
    private let library: WebRTCEchoLibrary
    private var handle: UnsafeMutableRawPointer
    private let sampleRate: Int, suppression: WebRTCEchoCanceller.Suppression, noise: Int

    init(library: WebRTCEchoLibrary, sampleRate: Int, suppression: WebRTCEchoCanceller.Suppression, noise: Int) throws(EchoCancellerError) {
        guard let handle = library.create(Int32(sampleRate), suppression.rawValue, Int32(noise), 1) else {
            throw EchoCancellerError("WebRTC's audio processing refused \(sampleRate) Hz mono with these settings")
        }
        self.library = library
        self.handle = handle
        self.sampleRate = sampleRate
        self.suppression = suppression
        self.noise = noise
    }

    func process(near: [Float], far: [Float], delay: Int32) -> [Float] {
        var output = near
        let code = near.withUnsafeBufferPointer { nearPointer in
            far.withUnsafeBufferPointer { farPointer in
                output.withUnsafeMutableBufferPointer { outPointer -> Int32 in
                    guard let nearBase = nearPointer.baseAddress, let farBase = farPointer.baseAddress, let outBase = outPointer.baseAddress
                    else { return -1 }
                    return library.process(handle, nearBase, farBase, outBase, delay)
                }
            }
        }
        // A frame the library could not process passes through as it was heard.
        return code == 0 ? output : near
    }

    /// WebRTC's processor has no reset of its own: a new one replaces it.
    func reset() {
        guard let fresh = library.create(Int32(sampleRate), suppression.rawValue, Int32(noise), 1) else { return }
        library.destroy(handle)
        handle = fresh
    }

    deinit { library.destroy(handle) }
}

/// Parley's face for WebRTC's audio processing (`libparley-webrtc-echo.so`, made by
/// scripts/setup from `native/webrtc-echo`), opened the first time a canceller is made.
struct WebRTCEchoLibrary: Sendable {
    typealias Create = @convention(c) (Int32, Int32, Int32, Int32) -> UnsafeMutableRawPointer?
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Process = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<Float>?, UnsafePointer<Float>?, UnsafeMutablePointer<Float>?, Int32) -> Int32

    let create: Create
    let destroy: Destroy
    let process: Process

    /// The file scripts/setup installs (into `PARLEY_PREFIX`/lib, /usr/local/lib by default).
    static let fileName = "libparley-webrtc-echo.so"

    /// The library, or why it could not be opened; looked up once per process.
    static let shared: Result<WebRTCEchoLibrary, EchoCancellerError> = open()

    private static func open() -> Result<WebRTCEchoLibrary, EchoCancellerError> {
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? fileName
            return .failure(
                EchoCancellerError(
                    "WebRTC's echo canceller could not be loaded (\(reason)); install it with scripts/setup (Debian: libwebrtc-audio-processing-dev, then Parley's native/webrtc-echo)"
                ))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let create = symbol("parley_webrtc_echo_create", as: Create.self), let destroy = symbol("parley_webrtc_echo_destroy", as: Destroy.self),
            let process = symbol("parley_webrtc_echo_process", as: Process.self)
        else {
            return .failure(EchoCancellerError("\(fileName) lacks Parley's functions: run scripts/setup again to rebuild it"))
        }
        return .success(WebRTCEchoLibrary(create: create, destroy: destroy, process: process))
    }
}
#else
/// WebRTC's echo canceller is built for Linux only; on Apple platforms use voice processing I/O.
public actor WebRTCEchoCanceller: EchoCanceller {
    public enum Suppression: Int32, Sendable {
        case low = 0, moderate = 1, high = 2
    }
    public nonisolated let sampleRate: Int
    public init(
        sampleRate: Int = 16_000, suppression: Suppression = .high, noiseSuppression: Int = 0, delay: Duration = .milliseconds(50)
    ) throws(EchoCancellerError) {
        throw EchoCancellerError("WebRTC's echo canceller is built for Linux only; on Apple platforms use voice processing I/O")
    }
    public func cancel(microphone: [Float], speaker: [Float]) -> [Float] { microphone }
    public func reset() {}
}
#endif
