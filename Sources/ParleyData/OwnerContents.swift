import Foundation

/// What one ``Owner`` has in a store, as part of ``StoreContents``. Each list is in the order
/// the rows were saved (by id, oldest first), so that a store taking the contents can give
/// them new ids in the same order.
public struct OwnerContents: Sendable, Equatable {
    /// Whose rows these are.
    public var owner: Owner
    /// The owner's threads, each with every message (images included; a kept recording as its
    /// ``StoredMessage/audioPath``), oldest first.
    public var threads: [ExportedThread]
    /// The owner's stash; an item's thread and message ids refer to ``threads``.
    public var stash: [StashItem]
    /// The owner's study materials, synced ones with their origin.
    public var materials: [Material]
    /// The owner's assignments.
    public var assignments: [Assignment]
    /// The owner's sync state values (increment tokens, a sign-in's OAuth tokens: secrets), by
    /// key.
    public var syncState: [SyncStateValue]

    /// Creates one owner's contents.
    public init(
        owner: Owner, threads: [ExportedThread] = [], stash: [StashItem] = [], materials: [Material] = [],
        assignments: [Assignment] = [], syncState: [SyncStateValue] = []
    ) {
        self.owner = owner
        self.threads = threads
        self.stash = stash
        self.materials = materials
        self.assignments = assignments
        self.syncState = syncState
    }

    /// Whether the owner has nothing at all.
    public var isEmpty: Bool {
        threads.isEmpty && stash.isEmpty && materials.isEmpty && assignments.isEmpty && syncState.isEmpty
    }
}
