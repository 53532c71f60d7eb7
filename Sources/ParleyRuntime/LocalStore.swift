import ParleyStore

/// The conversation store in a SQLite file on this machine (ParleyStore's `ConversationStore`,
/// the one `RuntimeSettings.database` names): what the command line opens for `history`,
/// `materials`, `google` and `store copy`, without naming the SQLite target. Open one with
/// `LocalStore(path:)`; it implements `ConversationStoring`.
public typealias LocalStore = ConversationStore
