/// Turns cumulative snapshots (the whole text so far, as Apple's system language model
/// streams it) into the pieces of a reply, which can only grow: text already sent (and perhaps
/// spoken) cannot be taken back, so a snapshot that revises it is held until it agrees again,
/// and what never agreed comes at the end (``finish()``).
public struct SnapshotDeltas: Sendable, Equatable {
    /// The last snapshot.
    public private(set) var text = ""
    /// What has been handed on.
    public private(set) var sent = ""

    /// Starts with nothing seen.
    public init() {}

    /// The next piece of a reply that can only grow: the new text after what was sent when the
    /// snapshot still begins with it; nothing while a revision disagrees with what was sent
    /// (the rest follows once the snapshot agrees again, or at the end, see ``finish()``).
    public mutating func appendOnly(_ snapshot: String) -> String {
        text = snapshot
        guard snapshot.hasPrefix(sent), snapshot.count > sent.count else { return "" }
        let piece = String(snapshot.dropFirst(sent.count))
        sent = snapshot
        return piece
    }

    /// What of the last snapshot was never sent because it disagreed with what was: the revised
    /// text after their common beginning, so that the reply's last words are not lost (what
    /// was sent stands before them).
    public mutating func finish() -> String {
        guard !text.hasPrefix(sent) else { return appendOnly(text) }
        let common = zip(text, sent).prefix { $0 == $1 }.count
        let rest = String(text.dropFirst(common))
        sent += rest
        text = sent
        return rest
    }
}
