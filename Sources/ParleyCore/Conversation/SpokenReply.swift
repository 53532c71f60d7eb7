/// A reply as it was spoken: its sentences in order, each with the length of its audio, so
/// that an interrupted reply can be cut back to the words the listener actually heard.
public struct SpokenReply: Sendable, Equatable {
    /// One synthesized sentence.
    public struct Sentence: Sendable, Equatable {
        /// The text.
        public var text: String
        /// Seconds of audio it took.
        public var duration: Double

        /// Creates a sentence record.
        public init(text: String, duration: Double) {
            self.text = text
            self.duration = duration
        }
    }

    /// The sentences synthesized so far, in order.
    public private(set) var sentences: [Sentence] = []

    /// Creates an empty reply.
    public init(sentences: [Sentence] = []) {
        self.sentences = sentences
    }

    /// Records another synthesized sentence.
    public mutating func append(_ text: String, duration: Double) {
        sentences.append(Sentence(text: text, duration: duration))
    }

    /// Seconds of audio in all sentences.
    public var duration: Double { sentences.reduce(0) { $0 + $1.duration } }

    /// The whole text.
    public var text: String { sentences.map(\.text).joined(separator: " ") }

    /// The text heard when playback stopped after `played` seconds: every sentence played to
    /// its end, then the words of the sentence in progress whose share of its audio had
    /// passed (speech runs at a roughly even pace through a sentence), cut at a word boundary.
    public func heard(upTo played: Double) -> String {
        var words: [String] = []
        var elapsed = 0.0
        for sentence in sentences {
            if elapsed + sentence.duration <= played + 1e-9 {
                words.append(sentence.text)
                elapsed += sentence.duration
                continue
            }
            let fraction = sentence.duration > 0 ? max(0, played - elapsed) / sentence.duration : 0
            let sentenceWords = sentence.text.split(whereSeparator: { $0.isWhitespace })
            let characters = sentenceWords.reduce(0) { $0 + $1.count }
            var budget = Int((fraction * Double(characters)).rounded(.down))
            var partial: [Substring] = []
            for word in sentenceWords {
                // A word counts as heard once most of it was played.
                guard budget >= (word.count + 1) / 2 else { break }
                partial.append(word)
                budget -= word.count
            }
            if !partial.isEmpty { words.append(partial.joined(separator: " ")) }
            break
        }
        return words.joined(separator: " ")
    }
}

/// When each queued chunk of audio plays, given when it was queued: a chunk starts at its
/// queue time or when the one before it ends, whichever is later (a late chunk leaves a gap).
/// Pure: instants come from the caller's clock.
public struct PlaybackTimeline<Instant: InstantProtocol>: Sendable where Instant.Duration == Swift.Duration {
    private var spans: [(start: Instant, duration: Double)] = []
    private var end: Instant?
    /// When playback was paused, while it is.
    public private(set) var pausedAt: Instant?

    /// Creates an empty timeline.
    public init() {}

    /// Whether playback is paused.
    public var isPaused: Bool { pausedAt != nil }

    /// Queues `seconds` of audio at `now` (while paused, it plays after the pause).
    public mutating func enqueue(seconds: Double, at now: Instant) {
        let queuedAt = pausedAt.map { min($0, now) } ?? now
        let start = end.map { max($0, queuedAt) } ?? queuedAt
        spans.append((start, seconds))
        end = start.advanced(by: .seconds(seconds))
    }

    /// Pauses playback at `now`: nothing more plays until ``resume(at:)``.
    public mutating func pause(at now: Instant) {
        guard pausedAt == nil else { return }
        pausedAt = now
    }

    /// Resumes playback at `now` where it paused: what was still to play plays from `now` on.
    public mutating func resume(at now: Instant) {
        guard let paused = pausedAt else { return }
        pausedAt = nil
        let shift = paused.duration(to: now)
        guard shift > .zero else { return }
        var shifted: [(start: Instant, duration: Double)] = []
        for span in spans {
            let played = min(max(0, span.start.duration(to: paused).seconds), span.duration)
            if played >= span.duration {
                shifted.append(span)
            } else if played > 0 {
                // Split where the pause caught it.
                shifted.append((span.start, played))
                shifted.append((now, span.duration - played))
            } else {
                shifted.append((span.start.advanced(by: shift), span.duration))
            }
        }
        spans = shifted
        if let last = end, last > paused { end = last.advanced(by: shift) }
    }

    /// Seconds queued in all.
    public var queued: Double { spans.reduce(0) { $0 + $1.duration } }

    /// Seconds played by `now` (by the pause, while paused).
    public func played(at now: Instant) -> Double {
        let until = pausedAt.map { min($0, now) } ?? now
        return spans.reduce(0) { total, span in
            let elapsed = span.start.duration(to: until).seconds
            return total + min(max(0, elapsed), span.duration)
        }
    }

    /// When everything queued has played (`nil` when nothing was queued).
    public var finish: Instant? { end }
}
