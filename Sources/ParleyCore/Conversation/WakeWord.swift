/// Listens for a wake phrase ("Hey Parley") in a stream of audio, on device.
///
/// A spotter keeps what it needs of the audio it was given (about two seconds of features, or of
/// audio for a second opinion: ``CheckedWakeWordSpotter``) and nothing else: it neither stores
/// nor sends the audio. Frames arrive in order, from one task.
public protocol WakeWordSpotter: Sendable {
    /// Listens to the next frame (mono, any rate); returns the detection when the phrase ends
    /// in it, else `nil`. After a detection the spotter starts afresh, unless it is made to keep
    /// listening for a second opinion that resets it (``CheckedWakeWordSpotter``).
    func listen(to frame: AudioBuffer) async throws -> WakeWordDetection?
    /// Forgets the audio heard so far (the conversation went back to waiting for the phrase).
    func reset() async
    /// Seconds of audio before a detection that a gate should hand on with it (its
    /// ``WakeWordGate/preRoll``): enough to reach back past how late after the phrase this
    /// spotter fires, so that a question begun right after the phrase keeps its first word.
    var suggestedPreRoll: Double { get }
}

extension WakeWordSpotter {
    /// 0.3 s: for a spotter that fires as the phrase ends.
    public var suggestedPreRoll: Double { 0.3 }
}

/// A wake phrase heard.
public struct WakeWordDetection: Sendable, Equatable {
    /// The phrase's name ("hey parley").
    public var phrase: String
    /// The detector's score, 0–1, at or above its threshold.
    public var score: Double
    /// The seconds of audio the spotter had heard (since it started afresh) when it fired.
    public var heard: Double

    /// Creates a detection.
    public init(phrase: String, score: Double, heard: Double) {
        self.phrase = phrase
        self.score = score
        self.heard = heard
    }
}

/// A conversation that waits for a wake phrase (``ConversationConfiguration/wakeWord``).
///
/// While the conversation is armed and not listening, every frame goes to the spotter and to
/// nothing else: no voice activity detection, no transcript, no journal, no provider. When the
/// phrase is heard the conversation starts listening (the state machine's
/// `startListening(.user)`), with the last ``preRoll`` seconds of audio before that moment, so
/// that a question begun right after the phrase keeps its first word; older audio was dropped.
/// After a reply the conversation listens for ``followUp`` seconds for another question, then
/// goes back to waiting for the phrase.
public struct WakeWordGate: Sendable {
    /// The spotter.
    public var spotter: any WakeWordSpotter
    /// Seconds of audio before the detection handed to the conversation with it.
    public var preRoll: Double
    /// Seconds the conversation listens, after the phrase or a reply, before it needs the phrase again.
    public var followUp: Double

    /// Creates a gate; `preRoll` is the spotter's ``WakeWordSpotter/suggestedPreRoll`` unless given.
    public init(spotter: any WakeWordSpotter, preRoll: Double? = nil, followUp: Double = 6) {
        self.spotter = spotter
        let seconds = preRoll ?? spotter.suggestedPreRoll
        self.preRoll = seconds.isFinite ? max(0, seconds) : 0.3
        self.followUp = max(0.5, followUp)
    }
}

/// The last few tenths of a second of audio heard while waiting for the wake phrase: handed to
/// the conversation when the phrase is heard, dropped otherwise (older audio is let go frame by
/// frame as new audio comes).
struct WakePreRoll: Sendable {
    private var frames: [AudioBuffer] = []

    /// Adds `frame`, keeping no more than `seconds` of audio (frames at another rate than the
    /// last start the pre-roll afresh).
    mutating func keep(_ frame: AudioBuffer, seconds: Double) {
        guard frame.sampleRate > 0, !frame.isEmpty else { return }
        if let last = frames.last, last.sampleRate != frame.sampleRate { frames.removeAll() }
        frames.append(frame)
        let limit = Int((seconds * Double(frame.sampleRate)).rounded())
        var total = frames.reduce(0) { $0 + $1.samples.count }
        while total > limit, let first = frames.first {
            let excess = total - limit
            if first.samples.count <= excess {
                frames.removeFirst()
                total -= first.samples.count
            } else {
                frames[0] = first.slice(excess..<first.samples.count)
                total -= excess
            }
        }
    }

    /// The audio kept, which is kept on.
    func snapshot() -> AudioBuffer? {
        guard let rate = frames.first?.sampleRate else { return nil }
        return AudioBuffer(samples: frames.flatMap(\.samples), sampleRate: rate)
    }

    /// The audio kept, which is then forgotten.
    mutating func take() -> AudioBuffer? {
        defer { frames.removeAll() }
        return snapshot()
    }

    /// Forgets the audio kept.
    mutating func clear() { frames.removeAll() }
}
