/// Failures of the whisper.cpp engine, each saying what to do.
public enum WhisperError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No model file at the path.
    case modelNotFound(path: String)
    /// whisper.cpp could not load the file.
    case modelLoadFailed(path: String)
    /// `whisper_full` returned an error code.
    case transcriptionFailed(code: Int32)
    /// whisper.cpp does not know the language asked for.
    case unknownLanguage(String)

    public var description: String {
        switch self {
        case .modelNotFound(let path):
            return "No Whisper model at \(path); download a whisper.cpp (ggml) model there or pass its path in the configuration."
        case .modelLoadFailed(let path):
            return "whisper.cpp could not load \(path); is it a whisper.cpp (ggml) model file?"
        case .transcriptionFailed(let code):
            return "whisper.cpp failed to transcribe the audio (whisper_full returned \(code))."
        case .unknownLanguage(let code):
            return "Whisper does not know the language '\(code.prefix(40))': use auto or a code such as en, it, es, fr or de."
        }
    }
}
