/// The speech of an utterance in which no words were recognised, kept for the utterance that
/// follows it. A transcriber may hear nothing in a fragment ("Can you give me …") that it
/// would understand with the rest of the sentence; when the user goes on after the pause, the
/// next utterance is transcribed from the start of the kept speech, so the words of both reach
/// its transcript, once.
///
/// Bounded: speech is kept only until the next utterance begins, and only if it begins within
/// ``maxGap`` of the kept speech's end; at most ``maxLength`` of it is kept. Sample positions
/// are the detector's (absolute, at its rate).
///
/// A value held by the conversation: it says where an utterance's audio starts, and which
/// audio the detector must hold on to (``firstNeeded``).
struct KeptSpeech: Sendable {
    /// The most samples between the end of the kept speech and the start of the next
    /// utterance that joins it.
    let maxGap: Int
    /// The most samples of speech kept.
    let maxLength: Int

    /// Speech waiting for the next utterance: its first sample and the sample just past it.
    private(set) var waiting: (start: Int, end: Int)?
    /// Where the open utterance's audio starts, when it took kept speech in or is being
    /// transcribed.
    private(set) var open: Int?

    /// Keeps speech for the next utterance if it begins within `maxGap` seconds of the kept
    /// speech's end; keeps at most `maxLength` seconds of it.
    init(sampleRate: Int, maxGap: Double, maxLength: Double = 30) {
        self.maxGap = Int(maxGap * Double(sampleRate))
        self.maxLength = Int(maxLength * Double(sampleRate))
    }

    /// The first sample the detector must keep (`nil`: none is needed).
    var firstNeeded: Int? { open ?? waiting?.start }

    /// An utterance begins at sample `start`: returns where its audio starts (at the kept
    /// speech, when it is recent enough).
    mutating func begin(at start: Int) -> Int {
        defer { waiting = nil }
        guard let waiting, start - waiting.end <= maxGap else {
            open = nil
            return start
        }
        open = min(waiting.start, start)
        return min(waiting.start, start)
    }

    /// `segment` of the open utterance, from the start of the kept speech it took in.
    func covering(_ segment: SpeechSegment) -> SpeechSegment {
        guard let open, open < segment.start else { return segment }
        return SpeechSegment(start: open, end: segment.end, sampleRate: segment.sampleRate)
    }

    /// The open utterance ended with `segment`: returns its whole speech (``covering(_:)``),
    /// which is needed until it is transcribed (``keep(_:)`` or ``transcribed()``).
    mutating func end(_ segment: SpeechSegment) -> SpeechSegment {
        let whole = covering(segment)
        open = whole.start
        return whole
    }

    /// No words were recognised in `segment` (an utterance's whole speech): it waits for the
    /// next utterance.
    mutating func keep(_ segment: SpeechSegment) {
        open = nil
        waiting = (max(segment.start, segment.end - maxLength), segment.end)
    }

    /// The utterance that ended has been transcribed (and kept, or not).
    mutating func transcribed() {
        open = nil
    }

    /// Nothing is kept (the utterance was answered, or listening stopped).
    mutating func clear() {
        open = nil
        waiting = nil
    }

    /// The audio up to sample `now` has been heard with no utterance open: speech kept longer
    /// ago than ``maxGap`` is let go. Returns whether it was.
    mutating func expire(at now: Int) -> Bool {
        guard let waiting, now - waiting.end > maxGap else { return false }
        self.waiting = nil
        return true
    }
}
