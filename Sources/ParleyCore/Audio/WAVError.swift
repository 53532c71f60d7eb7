/// Why a WAV file could not be read, phrased so the message can be shown to a user as is.
public enum WAVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file at the path.
    case fileNotFound(path: String)
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The data does not start with a RIFF/WAVE header.
    case notWAV
    /// The header or the data chunk ends before it says it does.
    case truncated(String)
    /// A valid WAV file in an encoding Parley does not decode.
    case unsupportedFormat(String)
    /// The file holds no audio frames.
    case empty

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "No such file: \(path)."
        case .unreadable(let path, let reason):
            return "Could not read \(path): \(reason)."
        case .notWAV:
            return "The input is not a WAV file (no RIFF/WAVE header); convert it with e.g. `sox in.mp3 out.wav`."
        case .truncated(let detail):
            return "The WAV file is truncated (\(detail)); re-record or re-export it."
        case .unsupportedFormat(let detail):
            return "Unsupported WAV encoding: \(detail). Use PCM 8/16/24/32-bit or 32/64-bit float."
        case .empty:
            return "The WAV file contains no audio."
        }
    }
}
