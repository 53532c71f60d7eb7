/// The rules a conversation follows: which gates must be open, how long to listen for speech
/// that does not come, whether speech interrupts a reply, and whether to listen again after it.
public struct ConversationRules: Sendable, Equatable {
    /// The gates that must be open before arming.
    public var requiredGates: Set<ConversationGate>
    /// Listening with no speech for this long returns to armed; `nil` listens forever.
    public var listenTimeout: Duration?
    /// Whether user speech during thinking or speaking interrupts the reply.
    public var allowsBargeIn: Bool
    /// Whether the conversation listens again after each reply (a conversation loop) or
    /// returns to armed (push-to-talk).
    public var continuous: Bool
    /// With barge-in: how speech over a reply is told from an interruption that is meant (the
    /// reply pauses, then resumes or is cut); `nil` cuts the reply on the first speech.
    public var interruption: InterruptionRules?

    /// Creates rules; the defaults suit a hands-free conversation loop.
    public init(
        requiredGates: Set<ConversationGate> = Set(ConversationGate.allCases), listenTimeout: Duration? = nil,
        allowsBargeIn: Bool = true, continuous: Bool = true, interruption: InterruptionRules? = nil
    ) {
        self.interruption = interruption
        self.requiredGates = requiredGates
        self.listenTimeout = listenTimeout
        self.allowsBargeIn = allowsBargeIn
        self.continuous = continuous
    }
}
