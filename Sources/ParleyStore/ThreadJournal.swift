import Foundation
import ParleyCore

/// Writes a conversation's turns into one thread of a ``ConversationStore``: the
/// ``ConversationJournal`` that a ``ConversationSession`` calls at each turn boundary.
///
/// A new conversation's thread is created with its first message (titled after it), so a
/// session in which nobody spoke leaves no empty thread behind.
public actor ThreadJournal: ConversationJournal {
    private let store: ConversationStore
    private let settings: ThreadSettings
    private let audioDirectory: URL?
    private var threadID: Int64?

    /// Continues thread `thread`, or starts a new one with `settings` when it is `nil`.
    /// - Parameter keepAudioIn: where to keep the user's recorded speech, one WAV file per
    ///   turn, attached to its message (deletable with ``ConversationStore/deleteAudio(message:)``);
    ///   `nil` (the default) keeps no audio.
    public init(store: ConversationStore, thread: Int64?, settings: ThreadSettings, keepAudioIn: URL? = nil) {
        self.store = store
        self.threadID = thread
        self.settings = settings
        self.audioDirectory = keepAudioIn
    }

    /// The thread written to, once there is one.
    public var thread: Int64? { threadID }

    /// Appends `entry` to the thread (creating the thread first if this is its first entry),
    /// in one committed transaction, and keeps its audio as a WAV file when asked to.
    public func record(_ entry: JournalEntry) throws {
        let thread: Int64
        if let threadID {
            thread = threadID
        } else {
            let title = entry.text.count > 60 ? String(entry.text.prefix(59)) + "…" : entry.text
            thread = try store.createThread(title: title.isEmpty ? nil : title, settings: settings).id
            threadID = thread
        }
        let message = try store.append(entry, to: thread)
        if let audioDirectory, let audio = entry.audio, !audio.isEmpty {
            try FileManager.default.createDirectory(at: audioDirectory, withIntermediateDirectories: true)
            let file = audioDirectory.appendingPathComponent("thread-\(thread)-message-\(message.id).wav")
            try WAV.write(audio, to: file)
            try store.attachAudio(message: message.id, file: file)
        }
    }

    /// The messages of `thread` as model history (the edited text where the user corrected a
    /// transcript, with the images the user attached; system messages left out, since the
    /// current system prompt leads).
    public static func history(of thread: Int64, in store: ConversationStore) throws -> [ChatMessage] {
        try store.messages(in: thread).compactMap { message -> ChatMessage? in
            switch message.role {
            case .system: return nil
            case .user: return message.content.chatMessage
            case .assistant: return message.text.isEmpty ? nil : message.content.chatMessage
            }
        }
    }
}
