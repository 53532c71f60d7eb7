/// Turns cumulative snapshots (the whole text so far, as Apple's speech recognizer and the
/// system language model stream it) into the pieces a Parley stream carries.
///
/// A snapshot that extends the one before gives the new text as an ``Change/append(_:)``. One
/// that changes earlier text (a recognizer revising a word) gives ``Change/revise(_:)`` with the
/// whole new text: a transcript replaces its partial, while a reply's text, already spoken,
/// cannot be taken back, so a reply drops revisions and keeps appending after what it sent.
public struct SnapshotDeltas: Sendable, Equatable {
    /// What a snapshot changed.
    public enum Change: Sendable, Equatable {
        /// Nothing new.
        case none
        /// This text follows what came before.
        case append(String)
        /// Earlier text changed: this is the whole text now.
        case revise(String)
    }

    /// The last snapshot.
    public private(set) var text = ""
    /// What has been handed on as appended text (for a reply that cannot be revised).
    public private(set) var sent = ""

    /// Starts with nothing seen.
    public init() {}

    /// Takes the next snapshot.
    public mutating func take(_ snapshot: String) -> Change {
        defer { text = snapshot }
        if snapshot == text { return .none }
        if snapshot.hasPrefix(text) {
            let piece = String(snapshot.dropFirst(text.count))
            if sent == text { sent = snapshot }
            return .append(piece)
        }
        return .revise(snapshot)
    }

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
