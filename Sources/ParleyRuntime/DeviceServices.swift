import Foundation
import Logging
import ParleyCore
import ParleyLocal

/// The on-device engines a runtime owns (``Runtime/engines``): llama.cpp, whisper.cpp, the voices.
public typealias OnDeviceEngines = LocalEngines
/// Which on-device models, voice and threads to use instead of the settings' (``RuntimeOptions/engines``).
public typealias EngineOverrides = LocalEngines.Overrides

/// Audio files in and out through the `ffmpeg` program, run as a separate process: WAV and raw
/// PCM never need it. The server decodes uploads and encodes speech with it.
public typealias AudioFiles = FFmpegAudio

/// What a face takes from this machine beside the runtime's providers: echo cancellation, audio
/// files through ffmpeg, the machine's memory and temperature. The faces ask here, so that they
/// need not know which engine does it.
public enum DeviceServices {
    /// An echo canceller for mono audio at `sampleRate`: `engine`'s, or without one the
    /// standard engine's for a canceller that `startsCold` or not (``EchoEngine/standard(startsCold:)``),
    /// falling back to the other (after a warning on `logger`) when it is missing. Throws when no
    /// engine can be had (install them with scripts/setup) or on a platform without them (on
    /// Apple platforms use the system's voice processing instead).
    public static func echoCanceller(sampleRate: Int, engine: EchoEngine? = nil, startsCold: Bool, logger: Logger? = nil) throws -> any EchoCanceller {
        if let engine { return try engine.make(sampleRate: sampleRate) }
        let standard = EchoEngine.standard(startsCold: startsCold)
        let failure: any Error
        do {
            return try standard.make(sampleRate: sampleRate)
        } catch {
            failure = error
        }
        for fallback in standard.fallbacks {
            guard let canceller = try? fallback.make(sampleRate: sampleRate) else { continue }
            logger?.warning("echo cancellation falls back to \(fallback.rawValue): \(failure)")
            return canceller
        }
        throw failure
    }

    /// Audio files through the `ffmpeg` at `executable` (a name looked up on `PATH`, or a path).
    public static func audioFiles(ffmpeg executable: String) -> AudioFiles {
        FFmpegAudio(executable: executable)
    }

    /// The machine's free and total memory, memory pressure and thermal state, as far as this
    /// platform tells them.
    public static func resources() async -> ResourceSnapshot {
        await SystemResourceMonitor().snapshot()
    }
}

/// Which echo canceller cancels the replies' echo where Parley owns the microphone and the speaker.
public enum EchoEngine: String, Sendable, CaseIterable {
    /// SpeexDSP's adaptive filter and residual echo suppressor (`SpeexEchoCanceller`).
    case speex
    /// WebRTC's audio processing: its filter, echo suppressor and high-pass filter (`WebRTCEchoCanceller`).
    case webrtc
    /// WebRTC's until SpeexDSP's, hearing the same audio, has heard 1.5 s of the speaker, then
    /// SpeexDSP's (`HandoverEchoCanceller`).
    case webrtcThenSpeex = "webrtc-then-speex"

    /// The engine used unless one is asked for, chosen by measurement in the room rig
    /// (Benchmarks/README.md, "The room rig"). For a canceller whose first sound may be a reply
    /// (a realtime session), WebRTC's first (only it keeps that reply's echo out) and SpeexDSP's
    /// once it has learnt the room (it leaves more of a user who talks over a reply); for one
    /// that hears the room first (`parley talk` plays a chime on start), SpeexDSP's.
    public static func standard(startsCold: Bool) -> EchoEngine {
        startsCold ? .webrtcThenSpeex : .speex
    }

    /// The engines tried, in order, when this one cannot be had.
    var fallbacks: [EchoEngine] {
        switch self {
        case .speex: [.webrtc]
        case .webrtc: [.speex]
        case .webrtcThenSpeex: [.webrtc, .speex]
        }
    }

    func make(sampleRate: Int) throws -> any EchoCanceller {
        switch self {
        case .speex: try SpeexEchoCanceller(sampleRate: sampleRate)
        case .webrtc: try WebRTCEchoCanceller(sampleRate: sampleRate)
        case .webrtcThenSpeex:
            try HandoverEchoCanceller(first: try WebRTCEchoCanceller(sampleRate: sampleRate), then: try SpeexEchoCanceller(sampleRate: sampleRate))
        }
    }
}

extension Runtime {
    /// Whether `name` asks for the on-device embedding model: `local`, `llama.cpp`, or the
    /// model's own name or file name (any case, with or without `.gguf`).
    public nonisolated func namesOnDeviceEmbedder(_ name: String) -> Bool {
        let lowered = name.lowercased()
        let file = URL(fileURLWithPath: engines.embedder.configuration.modelPath).deletingPathExtension().lastPathComponent.lowercased()
        return ["local", "llama.cpp", engines.embedder.modelName.lowercased(), file, file + ".gguf"].contains(lowered)
    }

    /// Where the on-device embedding model is (or would be) installed.
    public nonisolated var onDeviceEmbedderPath: String { engines.embedder.configuration.modelPath }
}

/// What a face must tell its client of an on-device engine's or an audio file's failure, read
/// from the error without naming the engines' own error types.
public enum EngineFault: Sendable, Equatable {
    /// The prompt does not fit the on-device model's context: the client's to shorten.
    case promptTooLong
    /// The on-device language model failed otherwise: the server's fault.
    case languageModelFailed
    /// The audio file is longer than the limit.
    case audioTooLong
    /// Encoding audio into a compressed format failed: the server's fault.
    case audioEncodingFailed
    /// The audio file cannot be read (unrecognized, corrupt, empty, or needs ffmpeg).
    case invalidAudio

    /// The fault `error` is, or nil when it is no engine's or audio file's failure.
    public init?(_ error: any Error) {
        switch error {
        case let error as LlamaError:
            if case .promptTooLong = error { self = .promptTooLong } else { self = .languageModelFailed }
        case let error as AudioFileError:
            switch error {
            case .encodingFailed: self = .audioEncodingFailed
            case .tooLong: self = .audioTooLong
            default: self = .invalidAudio
            }
        default:
            return nil
        }
    }
}
