/// The kind of an audio file, told from its first bytes (never from a name or a declared
/// type, which clients get wrong).
public enum AudioContainer: String, Sendable, Equatable, CaseIterable {
    /// RIFF/WAVE.
    case wav
    /// Ogg (Opus, Vorbis or FLAC inside).
    case ogg
    /// Matroska or WebM (a browser's `MediaRecorder`: Opus inside).
    case webm
    /// MP3, with or without an ID3 tag.
    case mp3
    /// Native FLAC.
    case flac
    /// MPEG-4 (a phone's m4a: AAC or ALAC inside; also mp4 and mov).
    case mp4
    /// AAC in ADTS frames.
    case aac
    /// Core Audio Format (Apple).
    case caf
    /// AIFF or AIFF-C.
    case aiff

    /// The container of `bytes`, or `nil` when its first bytes match none of the kinds.
    public static func sniff(_ bytes: some Collection<UInt8>) -> AudioContainer? {
        let head = Array(bytes.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts(Array("RIFF".utf8)), starts(Array("WAVE".utf8), at: 8) { return .wav }
        if starts(Array("RF64".utf8)), starts(Array("WAVE".utf8), at: 8) { return .wav }
        if starts(Array("OggS".utf8)) { return .ogg }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .webm }
        if starts(Array("fLaC".utf8)) { return .flac }
        if starts(Array("ftyp".utf8), at: 4) { return .mp4 }
        if starts(Array("caff".utf8)) { return .caf }
        if starts(Array("FORM".utf8)), starts(Array("AIF".utf8), at: 8) { return .aiff }
        if starts(Array("ID3".utf8)) { return .mp3 }
        guard head.count >= 2, head[0] == 0xFF else { return nil }
        // A frame header: 11 sync bits, then the MPEG version and layer.
        let second = head[1]
        guard second & 0xE0 == 0xE0 else { return nil }
        let layer = (second >> 1) & 0x03
        if layer == 0 { return second & 0x10 != 0 ? .aac : nil }  // ADTS: MPEG-4/2 with layer 00
        return .mp3
    }
}
