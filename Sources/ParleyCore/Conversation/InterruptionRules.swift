/// How speech over a reply is told from an interruption that is meant.
///
/// On the first speech during a reply the reply is paused (``ConversationState/paused``); it is
/// cut only when the speech lasts at least ``minimumSpeech`` and its words are not a
/// backchannel ("mm-hmm", "yeah", "okay") or noise (no words at all). Otherwise the reply
/// resumes where it paused, and nothing of the speech becomes a turn.
public struct InterruptionRules: Sendable, Equatable {
    /// The shortest speech that may cut a reply (voiced audio, as the VAD measured it).
    public var minimumSpeech: Duration
    /// The words that never cut a reply.
    public var backchannels: Backchannels
    /// The user's language (a code such as "en"), whose list of backchannels applies; `nil`:
    /// every listed language's.
    public var language: String?

    /// The default shortest interrupting speech (``Tunable/minInterruption``).
    public static let defaultMinimumSpeech = Duration.seconds(Tunable.minInterruption.defaultValue)

    /// Creates the rules; the defaults pause on any speech and cut on real words that last
    /// ``defaultMinimumSpeech``.
    public init(minimumSpeech: Duration = defaultMinimumSpeech, backchannels: Backchannels = Backchannels(), language: String? = nil) {
        self.minimumSpeech = minimumSpeech
        self.language = language
        self.backchannels = backchannels
    }
}
