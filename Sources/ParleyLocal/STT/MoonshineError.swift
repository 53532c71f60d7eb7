import ParleyCore

/// Failures of the Moonshine engine (sherpa-onnx), each saying what to do.
public enum MoonshineError: Error, Equatable, Sendable, ClassifiedError, CustomStringConvertible {
    /// A model file is missing.
    case modelNotFound(path: String)
    /// The tokenizer is not Moonshine's `tokenizer.bin`.
    case unreadableTokenizer(path: String)
    /// The tokens file sherpa-onnx reads could not be written.
    case preparationFailed(path: String, reason: String)
    /// sherpa-onnx could not load the model.
    case modelLoadFailed(path: String)
    /// sherpa-onnx's library could not be opened (the message says why and what to do).
    case engineUnavailable(String)
    /// sherpa-onnx gave no result.
    case transcriptionFailed

    public var failureKind: FailureKind {
        switch self {
        case .modelNotFound, .unreadableTokenizer, .preparationFailed, .modelLoadFailed, .engineUnavailable: .configuration
        case .transcriptionFailed: .transient(retryAfter: nil)
        }
    }

    public var description: String {
        switch self {
        case .modelNotFound(let path):
            "no Moonshine model file at \(path): run `parley models pull moonshine-base` (scripts/setup does)"
        case .unreadableTokenizer(let path):
            "\(path) is not a Moonshine tokenizer.bin: pull the model again with `parley models pull moonshine-base`"
        case .preparationFailed(let path, let reason):
            "the Moonshine tokens file could not be written at \(path) (\(reason)): check that the data directory is writable and has room"
        case .engineUnavailable(let message):
            message
        case .modelLoadFailed(let path):
            "sherpa-onnx could not load the Moonshine model in \(path): verify it with `parley models verify` and pull it again"
        case .transcriptionFailed:
            "sherpa-onnx gave no transcript for the audio"
        }
    }
}
