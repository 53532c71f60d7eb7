/// What a store wrote when it took ``StoreContents``: how many rows of each kind, and the new
/// ids it gave the source's threads and messages (the store numbers rows afresh).
public struct ImportedContents: Sendable, Equatable {
    /// How many rows of each kind were written.
    public var counts: StoreCounts
    /// The new id of each source thread, by its id in the source.
    public var threadIDs: [Int64: Int64]
    /// The new id of each source message, by its id in the source.
    public var messageIDs: [Int64: Int64]

    /// Creates the outcome of an import.
    public init(counts: StoreCounts, threadIDs: [Int64: Int64], messageIDs: [Int64: Int64]) {
        self.counts = counts
        self.threadIDs = threadIDs
        self.messageIDs = messageIDs
    }
}
