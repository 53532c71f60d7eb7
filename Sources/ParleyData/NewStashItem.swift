/// Something to keep for later: a reply, a transcript or a note, optionally tied to the
/// conversation and message it came from.
public struct NewStashItem: Sendable, Equatable {
    /// What the item is, e.g. `"reply"`, `"transcript"` or `"note"`.
    public var kind: String
    /// The saved text.
    public var text: String
    /// The thread the item came from, if any. Filled in from ``messageID`` when left `nil`.
    public var threadID: Int64?
    /// The message the item came from, if any.
    public var messageID: Int64?

    /// Creates an item to stash.
    public init(kind: String, text: String, threadID: Int64? = nil, messageID: Int64? = nil) {
        self.kind = kind
        self.text = text
        self.threadID = threadID
        self.messageID = messageID
    }
}
