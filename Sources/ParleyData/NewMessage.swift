import ParleyCore

/// A message to append to a thread: the one message model of ParleyCore (what was said or
/// typed, what went to or came from the model, and how the turn went).
///
/// The store keeps every field but ``ConversationMessage/audio``: a recording is kept as a
/// file with ``ConversationStore/attachAudio(message:file:owner:)`` (``ThreadJournal`` does it when
/// asked to keep audio).
public typealias NewMessage = ConversationMessage
