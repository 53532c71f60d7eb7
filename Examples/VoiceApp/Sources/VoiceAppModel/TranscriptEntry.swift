/// One line of the transcript the app shows.
public struct TranscriptEntry: Sendable, Equatable, Identifiable {
    /// Who said it.
    public enum Speaker: Sendable, Equatable {
        case user, assistant
    }

    /// Its place in the transcript.
    public let id: Int
    /// Who said it.
    public var speaker: Speaker
    /// What was said so far.
    public var text: String
    /// Whether it may still change (a provisional transcript, a reply being written).
    public var isPending: Bool
    /// Whether the reply was cut short (the user spoke over it, or stopped it).
    public var wasInterrupted = false

    /// A line.
    public init(id: Int, speaker: Speaker, text: String, isPending: Bool) {
        self.id = id
        self.speaker = speaker
        self.text = text
        self.isPending = isPending
    }
}
