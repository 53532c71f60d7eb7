import Foundation
import ParleyCore

/// Writes a conversation's turns into one thread of a store (``ConversationStoring``: the SQLite
/// file or a shared PostgreSQL database): the
/// ``ConversationJournal`` that a ``ConversationSession`` calls at each turn boundary.
///
/// A new conversation's thread is created with its first message (titled after it), so a
/// session in which nobody spoke leaves no empty thread behind. The thread belongs to the
/// journal's ``owner``; continuing a thread of another owner fails as if it did not exist.
public actor ThreadJournal: ConversationJournal {
    /// Whose thread this journal writes: the local user, or an API key of the server.
    public nonisolated let owner: Owner
    private let store: any ConversationStoring
    private let settings: ThreadSettings
    private let audioDirectory: URL?
    private var threadID: Int64?
    /// The write in progress, which the next one waits for: entries land in the order they
    /// were recorded, and only the first creates the thread, even while a write is suspended
    /// on a database round trip.
    private var lastWrite: Task<Void, any Error>?

    /// Continues thread `thread`, or starts a new one with `settings` when it is `nil`.
    /// - Parameters:
    ///   - owner: whose thread it is (``Owner/local`` by default); a new thread is created for
    ///     this owner, and a continued one must be theirs.
    ///   - keepAudioIn: where to keep the user's recorded speech, one WAV file per turn,
    ///     attached to its message (deletable with ``ConversationStoring/deleteAudio(message:owner:)``);
    ///     `nil` (the default) keeps no audio.
    public init(store: any ConversationStoring, thread: Int64?, settings: ThreadSettings, owner: Owner = .local, keepAudioIn: URL? = nil) {
        self.store = store
        self.threadID = thread
        self.settings = settings
        self.owner = owner
        self.audioDirectory = keepAudioIn
    }

    /// The thread written to, once there is one.
    public var thread: Int64? { threadID }

    /// Appends `entry` to the thread (creating the thread first if this is its first entry),
    /// in one committed transaction, and keeps its audio as a WAV file when asked to. Entries
    /// recorded at once are written one after the other, in the order of the calls.
    ///
    /// - Throws: `StoreError.threadNotFound` when the thread being continued is not the
    ///   owner's (or no longer exists).
    public func record(_ entry: JournalEntry) async throws {
        let previous = lastWrite
        let write = Task {
            _ = await previous?.result
            try await self.write(entry)
        }
        lastWrite = write
        try await write.value
    }

    private func write(_ entry: JournalEntry) async throws {
        let thread: Int64
        if let threadID {
            thread = threadID
        } else {
            let title = entry.text.count > 60 ? String(entry.text.prefix(59)) + "…" : entry.text
            thread = try await store.createThread(title: title.isEmpty ? nil : title, settings: settings, owner: owner).id
            threadID = thread
        }
        let message = try await store.append(entry, to: thread, owner: owner)
        if let audioDirectory, let audio = entry.audio, !audio.isEmpty {
            try FileManager.default.createDirectory(at: audioDirectory, withIntermediateDirectories: true)
            let file = audioDirectory.appendingPathComponent("thread-\(thread)-message-\(message.id).wav")
            try WAV.write(audio, to: file)
            try await store.attachAudio(message: message.id, file: file, owner: owner)
        }
    }

    /// The messages of `thread` as model history (the edited text where the user corrected a
    /// transcript, with the images the user attached; system messages left out, since the
    /// current system prompt leads).
    ///
    /// Tool exchanges come back in order: an assistant message with its calls (even with no
    /// text), then the tools' results, so a continued conversation gives the model what its
    /// tools answered before. A call without a saved result (the process stopped between the
    /// two) and a result that answers no saved call are left out, as providers refuse either.
    ///
    /// - Throws: `StoreError.threadNotFound` when `owner` has no thread with the id.
    public static func history(of thread: Int64, in store: any ConversationStoring, owner: Owner = .local) async throws -> [ChatMessage] {
        history(of: try await store.messages(in: thread, owner: owner).map(\.content))
    }

    /// `messages` as a model's history, by the same rules as ``history(of:in:owner:)``.
    public static func history(of messages: [ConversationMessage]) -> [ChatMessage] {
        let answered = Set(messages.compactMap { $0.role == .tool ? $0.toolCallID : nil })
        var called = Set<String>()
        return messages.compactMap { message -> ChatMessage? in
            switch message.role {
            case .system: return nil
            case .user: return message.chatMessage
            case .assistant:
                var reply = message
                reply.toolCalls = message.toolCalls.filter { answered.contains($0.id) }
                called.formUnion(reply.toolCalls.map(\.id))
                return reply.text.isEmpty && reply.toolCalls.isEmpty ? nil : reply.chatMessage
            case .tool:
                guard let id = message.toolCallID, called.contains(id) else { return nil }
                return message.chatMessage
            }
        }
    }
}
