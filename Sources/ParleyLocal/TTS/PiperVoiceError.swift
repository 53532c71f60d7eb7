import ParleyCore

/// Why a Piper voice could not speak, each case saying what to do.
public enum PiperVoiceError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// No voice is installed.
    case noVoice(folder: String)
    /// The voice's `.onnx.json` is missing or not a Piper configuration.
    case unreadableConfiguration(path: String, reason: String)
    /// The copy of the model that sherpa-onnx reads could not be written.
    case preparationFailed(path: String, reason: String)
    /// sherpa-onnx refused the model.
    case modelLoadFailed(path: String)
    /// sherpa-onnx's library could not be opened (the message says why and what to do).
    case engineUnavailable(String)
    /// espeak-ng, which gives the voice its phonemes, failed or is missing.
    case phonemizerFailed(String)
    /// sherpa-onnx produced no audio.
    case synthesisFailed(voice: String)

    public var failureKind: FailureKind {
        switch self {
        case .noVoice, .unreadableConfiguration, .preparationFailed, .modelLoadFailed, .engineUnavailable: .configuration
        case .phonemizerFailed, .synthesisFailed: .transient(retryAfter: nil)
        }
    }

    public var description: String {
        switch self {
        case .noVoice(let folder):
            "no Piper voice is installed in \(folder): run `parley models pull piper-joe` (or scripts/setup)"
        case .unreadableConfiguration(let path, let reason):
            "the voice configuration \(path) cannot be used (\(reason)): pull the voice again with `parley models pull piper-joe`"
        case .preparationFailed(let path, let reason):
            "the voice could not be prepared for sherpa-onnx at \(path) (\(reason)): check that the data directory is writable and has room"
        case .engineUnavailable(let message):
            message
        case .modelLoadFailed(let path):
            "sherpa-onnx could not load the voice \(path): verify it with `parley models verify` and pull it again"
        case .phonemizerFailed(let detail):
            "espeak-ng could not phonemize the text (\(detail)): install the espeak-ng package"
        case .synthesisFailed(let voice):
            "sherpa-onnx produced no audio for the voice \(voice)"
        }
    }
}
