import Foundation

/// A transcript laid out in time for subtitles and timed JSON: its segments (the whole text
/// as one segment when the engine timed none) and words, every time clamped to the audio.
public struct TimedTranscript: Sendable, Equatable {
    /// The whole text.
    public var text: String
    /// The audio's duration in seconds.
    public var duration: Double
    /// Timed segments in order, none past the audio, none empty.
    public var segments: [Transcript.Segment]
    /// Timed words in order (empty when the engine timed none).
    public var words: [Transcript.Segment]

    /// Lays out `transcript` over audio of `duration` seconds.
    public init(_ transcript: Transcript, duration: Double) {
        self.text = transcript.text
        self.duration = duration
        /// `segment` with its times inside the audio and its text trimmed.
        func clamped(_ segment: Transcript.Segment) -> Transcript.Segment {
            let start = min(max(0, segment.start), duration)
            return Transcript.Segment(start: start, end: max(start, min(segment.end, duration)), text: segment.text.trimmingCharacters(in: .whitespaces))
        }
        let timed = transcript.segments.filter { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }
        if timed.isEmpty {
            segments = transcript.text.isEmpty ? [] : [Transcript.Segment(start: 0, end: duration, text: transcript.text)]
        } else {
            segments = timed.map(clamped)
        }
        words = transcript.words.map(clamped)
    }

    /// SubRip subtitles: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`.
    public var srt: String {
        segments.enumerated().map { index, segment in
            "\(index + 1)\n\(Self.stamp(segment.start, separator: ",")) --> \(Self.stamp(segment.end, separator: ","))\n\(segment.text)\n"
        }.joined(separator: "\n")
    }

    /// WebVTT subtitles: the `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`.
    public var vtt: String {
        "WEBVTT\n\n"
            + segments.map { segment in
                "\(Self.stamp(segment.start, separator: ".")) --> \(Self.stamp(segment.end, separator: "."))\n\(segment.text)\n"
            }.joined(separator: "\n")
    }

    /// `seconds` as hours, minutes, seconds and milliseconds.
    static func stamp(_ seconds: Double, separator: String) -> String {
        let milliseconds = Int((max(0, seconds) * 1_000).rounded())
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60, secs = milliseconds / 1_000 % 60
        return String(format: "%02d:%02d:%02d", hours, minutes, secs) + separator + String(format: "%03d", milliseconds % 1_000)
    }
}
