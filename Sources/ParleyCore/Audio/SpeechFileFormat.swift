/// The formats speech is sent in, by OpenAI's names (`response_format` of
/// `/v1/audio/speech`), mono: PCM and the compressed ones at ``sampleRate``, WAV at the
/// voice's own rate.
public enum SpeechFileFormat: String, Sendable, Equatable, CaseIterable {
    /// MP3 (128 kbit/s).
    case mp3
    /// Opus in Ogg (64 kbit/s).
    case opus
    /// AAC in ADTS frames (128 kbit/s).
    case aac
    /// FLAC (lossless).
    case flac
    /// 16-bit WAV.
    case wav
    /// Raw 16-bit little-endian samples, no header.
    case pcm

    /// The rate every format is sent at, as OpenAI sends it.
    public static let sampleRate = 24_000

    /// The media type of a response in this format.
    public var contentType: String {
        switch self {
        case .mp3: return "audio/mpeg"
        case .opus: return "audio/ogg"
        case .aac: return "audio/aac"
        case .flac: return "audio/flac"
        case .wav: return "audio/wav"
        case .pcm: return "audio/pcm"
        }
    }

    /// Whether Parley writes this format itself; the others need an encoder (ffmpeg).
    public var isBuiltIn: Bool { self == .wav || self == .pcm }
}
