/// Whose conversations a store call reads or changes: the local user (the command line, and a
/// server without keys) or the holder of one of `parley serve`'s API keys.
///
/// Every method of ``ConversationStore`` that reads or changes threads, messages, kept audio or
/// the stash takes an owner and acts on that owner's rows only. Another owner's thread,
/// message or stash item is *not found*, exactly as if it did not exist, so a caller learns
/// nothing about rows that are not its own. Methods default to ``local``.
public struct Owner: Sendable, Hashable, CustomStringConvertible {
    /// What the `owner` column holds: `nil` for the local user.
    public let id: String?

    private init(id: String?) {
        self.id = id
    }

    /// The local user: the command line, `ThreadJournal`s of local conversations, and a server
    /// without keys. Rows saved before owners existed belong to it.
    public static let local = Owner(id: nil)

    /// The holder of one API key, named by an id derived from the key, never the key itself
    /// (the server uses `key-` and a hash of the key).
    public static func key(_ id: String) -> Owner {
        Owner(id: id)
    }

    /// Whether this is the local user.
    public var isLocal: Bool { id == nil }

    /// `local`, or the key's id.
    public var description: String { id ?? "local" }
}
