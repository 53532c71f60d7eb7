/// What the view model asks of the conversation: in the app, a `ConversationSession`'s own
/// calls (`startListening(.user)`, `stopListening()`, `cancel()`); in tests, a recorder.
public protocol VoiceControls: Sendable {
    /// Starts listening (a deliberate act: a press, a switch to hands-free, the loop going on).
    func startListening() async throws
    /// Stops listening; what the user said so far is answered.
    func stopListening() async throws
    /// Cuts the reply in progress short.
    func cancelReply() async throws
}
