/// A line of the conversation list: the thread, how many messages it holds, and a preview of
/// its last exchange.
public struct ThreadSummary: Sendable, Equatable, Codable {
    /// The thread (``StoredThread/updatedAt`` is its last activity).
    public var thread: StoredThread
    /// How many messages the thread holds, system messages included.
    public var messageCount: Int
    /// The start of the last user or assistant message on one line, or `nil` when there is none.
    public var lastMessagePreview: String?

    /// Creates a summary.
    public init(thread: StoredThread, messageCount: Int, lastMessagePreview: String?) {
        self.thread = thread
        self.messageCount = messageCount
        self.lastMessagePreview = lastMessagePreview
    }

    enum CodingKeys: String, CodingKey {
        case thread
        case messageCount = "message_count"
        case lastMessagePreview = "last_message_preview"
    }

    /// Encodes every field; a missing preview is written as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(thread, forKey: .thread)
        try container.encode(messageCount, forKey: .messageCount)
        try container.encode(lastMessagePreview, forKey: .lastMessagePreview)
    }

    /// The most characters a preview holds before it is cut with an ellipsis.
    public static let previewLength = 80

    /// Makes a one-line preview of `text`: whitespace runs become one space, and text longer
    /// than ``previewLength`` is cut and ends with "…".
    public static func preview(of text: String) -> String {
        let line = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard line.count > previewLength else { return line }
        return String(line.prefix(previewLength - 1)) + "…"
    }
}
