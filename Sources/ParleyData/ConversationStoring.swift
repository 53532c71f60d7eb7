import Foundation
import ParleyCore

/// Where conversations are kept, as the server, the ``ThreadJournal`` and the runtime use it:
/// threads, their messages (raw and edited transcripts, images, structured results, kept
/// recordings), the stash, study materials, assignments, sync state, the spending ledger and the
/// response cache.
///
/// Two implementations exist: ``ConversationStore`` (one SQLite file, the default) and
/// `PostgresConversationStore` in the `ParleyPostgres` library (one PostgreSQL database that
/// several server instances share). Both keep the same rules:
///
/// - Every call that reads or changes a thread, a message, kept audio, a stash item, a
///   material, an assignment, a sync state value or a cached response takes an ``Owner`` and acts on that owner's rows only, in the query
///   itself: another owner's id (or origin, or key) is *not found*, exactly as if it did not
///   exist.
/// - Each call is one transaction; once it returns, what it wrote is committed.
/// - Ids are unique and never reused; a thread's messages come back in append order.
/// - Deleting a thread deletes its messages, their images and kept audio; stash items that
///   came from it are kept, without the thread and message ids.
///
/// Failures are ``StoreError``s that say what to do.
public protocol ConversationStoring: SpendingLedger {
    /// Where the conversations are, for logs and diagnostics: a file path, or a database URL
    /// without its password.
    var location: String { get }

    // MARK: Threads

    /// Starts a conversation that belongs to `owner`.
    func createThread(title: String?, settings: ThreadSettings, owner: Owner) async throws(StoreError) -> StoredThread

    /// `owner`'s conversations, most recently active first, each with its message count and a
    /// preview of its last user or assistant message.
    func threads(owner: Owner) async throws(StoreError) -> [ThreadSummary]

    /// The conversation with this id, or `nil` when `owner` has none with it.
    func thread(_ id: Int64, owner: Owner) async throws(StoreError) -> StoredThread?

    /// Replaces a conversation's settings; throws ``StoreError/threadNotFound(_:)`` when
    /// `owner` has no thread with the id.
    func updateSettings(_ settings: ThreadSettings, thread: Int64, owner: Owner) async throws(StoreError)

    /// Changes a conversation's title or settings in one transaction: `change` gets the thread
    /// as saved, and its title and settings are written back (its id and dates are not).
    /// Returns the thread as saved; throws ``StoreError/threadNotFound(_:)`` when `owner` has
    /// no thread with the id.
    @discardableResult
    func updateThread(_ id: Int64, owner: Owner, _ change: (inout StoredThread) -> Void) async throws(StoreError) -> StoredThread

    /// Deletes a conversation with its messages, their images and kept audio (files
    /// included). Throws ``StoreError/threadNotFound(_:)`` when `owner` has no thread with the
    /// id.
    func deleteThread(_ id: Int64, owner: Owner) async throws(StoreError)

    /// One of `owner`'s conversations with every message, or all of them (most recently active
    /// first) when `thread` is `nil`.
    func exported(thread: Int64?, owner: Owner) async throws(StoreError) -> ConversationExport

    // MARK: Messages

    /// Appends a message with its images to a conversation and marks the conversation active.
    /// The message's `audio` is not written: keep a recording with
    /// ``attachAudio(message:file:owner:)``.
    @discardableResult
    func append(_ message: NewMessage, to thread: Int64, owner: Owner) async throws(StoreError) -> StoredMessage

    /// A conversation's messages, in append order; throws ``StoreError/threadNotFound(_:)``
    /// when `owner` has no thread with the id.
    func messages(in thread: Int64, owner: Owner) async throws(StoreError) -> [StoredMessage]

    /// The message with this id, or `nil` when none of `owner`'s threads holds it.
    func message(_ id: Int64, owner: Owner) async throws(StoreError) -> StoredMessage?

    /// Records the person's correction of a transcript; the raw transcript is kept as heard.
    func editTranscript(message: Int64, text: String, owner: Owner) async throws(StoreError)

    /// Keeps `file` as the message's recording; a different file attached before is removed.
    /// The store takes charge of the file: deleting the audio or the thread removes it.
    func attachAudio(message: Int64, file: URL, owner: Owner) async throws(StoreError)

    /// The bytes of the message's kept recording, or `nil` when it has none (or its file is
    /// gone). Throws ``StoreError/messageNotFound(_:)`` when none of `owner`'s threads holds
    /// the message.
    func audio(message: Int64, owner: Owner) async throws(StoreError) -> Data?

    /// Removes a message's kept recording and forgets it; does nothing when it has none.
    func deleteAudio(message: Int64, owner: Owner) async throws(StoreError)

    // MARK: Stash

    /// Saves an item to `owner`'s stash; its thread and message must be `owner`'s. When only
    /// the message is given, the thread is taken from it.
    @discardableResult
    func stash(_ item: NewStashItem, owner: Owner) async throws(StoreError) -> StashItem

    /// `owner`'s stash, newest first.
    func stashItems(owner: Owner) async throws(StoreError) -> [StashItem]

    /// Removes an item from `owner`'s stash; throws ``StoreError/stashItemNotFound(_:)`` when
    /// `owner` has no item with the id.
    func deleteStashItem(_ id: Int64, owner: Owner) async throws(StoreError)

    // MARK: Study materials

    /// Adds a study material for `owner`.
    @discardableResult
    func addMaterial(_ material: NewMaterial, owner: Owner) async throws(StoreError) -> Material

    /// `owner`'s materials, newest first.
    func materials(owner: Owner) async throws(StoreError) -> [Material]

    /// `owner`'s material `id`, or `nil` when `owner` has none with that id.
    func material(_ id: Int64, owner: Owner) async throws(StoreError) -> Material?

    /// Removes `owner`'s material `id`; throws ``StoreError/materialNotFound(_:)`` when `owner`
    /// has none with that id.
    func deleteMaterial(_ id: Int64, owner: Owner) async throws(StoreError)

    /// Searches `owner`'s materials for `query` (a typed or spoken question: its words are
    /// looked for, stemmed by the store's full-text engine, function words left out, any one
    /// word enough) and returns the best passages, best first, one per material, at most
    /// `limit`. Empty when nothing matches, when the query has no searchable words (only
    /// punctuation, say), or when `limit` is not positive. The query is never read as search
    /// syntax: quotes and operators in it are no error. Another owner's materials are never
    /// found.
    func searchMaterials(_ query: String, limit: Int, owner: Owner) async throws(StoreError) -> [MaterialSearch.Hit]

    /// The vectors `model` made of `owner`'s materials' passages (see ``MaterialVectors``),
    /// newest material first; materials without any are left out.
    func materialVectors(model: String, owner: Owner) async throws(StoreError) -> [MaterialVectors]

    /// Keeps `vectors` as `model`'s vectors of `owner`'s material, replacing any it had. A
    /// change to the material's title or text drops them; deleting it deletes them.
    ///
    /// - Throws: ``StoreError/materialNotFound(_:)`` when `owner` has no material with the id.
    func saveMaterialVectors(_ vectors: MaterialVectors, model: String, owner: Owner) async throws(StoreError)

    // MARK: Synced materials

    /// Adds the material from `material.origin`, or replaces the one `owner` already has from
    /// that origin (keeping its id and creation date). A material without an origin is simply
    /// added.
    @discardableResult
    func saveMaterial(_ material: NewMaterial, owner: Owner) async throws(StoreError) -> Material

    /// `owner`'s material from `origin`, or `nil`.
    func material(origin: String, owner: Owner) async throws(StoreError) -> Material?

    /// Removes `owner`'s material from `origin`; returns whether there was one.
    @discardableResult
    func deleteMaterial(origin: String, owner: Owner) async throws(StoreError) -> Bool

    // MARK: Assignments

    /// Adds the assignment from `assignment.origin`, or replaces the one `owner` has from that
    /// origin (keeping its id and ``Assignment/createdAt``; ``Assignment/updatedAt`` becomes
    /// now).
    @discardableResult
    func saveAssignment(_ assignment: NewAssignment, owner: Owner) async throws(StoreError) -> Assignment

    /// `owner`'s assignments, soonest due first: by ``Assignment/dueDay``, then by
    /// ``Assignment/dueAt`` (a whole-day one, without a time, after the timed ones of its day),
    /// then by id.
    func assignments(owner: Owner) async throws(StoreError) -> [Assignment]

    /// Removes `owner`'s assignment from `origin`; returns whether there was one.
    @discardableResult
    func deleteAssignment(origin: String, owner: Owner) async throws(StoreError) -> Bool

    // MARK: Sync state

    /// The value `owner` saved under `key` (e.g. `google.drive.page-token`), or `nil`. Values
    /// may be secrets (a sign-in's OAuth tokens): they never appear in errors or logs.
    func syncState(_ key: String, owner: Owner) async throws(StoreError) -> String?

    /// Saves `value` under `key` for `owner`, replacing what was there; `nil` removes it.
    func setSyncState(_ key: String, to value: String?, owner: Owner) async throws(StoreError)

    // MARK: Response cache

    /// The response cached under `key` for `owner`, if it has not expired at `now`. An
    /// expired response, or another owner's, is not found.
    func cachedResponse(_ key: String, owner: Owner, at now: Date) async throws(StoreError) -> CachedResponse?

    /// Caches `response` for `owner` until its ``CachedResponse/expiresAt``, replacing what
    /// was cached under the same key.
    func cacheResponse(_ response: CachedResponse, owner: Owner) async throws(StoreError)

    /// Deletes every cached response that has expired at `now`, whoever it belongs to, and
    /// returns how many were deleted.
    @discardableResult
    func removeExpiredResponses(at now: Date) async throws(StoreError) -> Int

    // MARK: Lifetime

    /// Releases the store's connections. The store must not be used afterwards; closing twice
    /// does nothing.
    func close() async
}

extension ConversationStoring {
    /// Searches `owner`'s materials with ``MaterialSearch``, in Swift over all of them: the
    /// portable way, for a store without a full-text engine of its own.
    public func searchMaterials(_ query: String, limit: Int, owner: Owner) async throws(StoreError) -> [MaterialSearch.Hit] {
        guard limit > 0, !MaterialSearch.queryWords(query).isEmpty else { return [] }
        return MaterialSearch(try await materials(owner: owner)).search(query, limit: limit)
    }
}
