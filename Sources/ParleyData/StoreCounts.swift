/// How many rows of each kind some ``StoreContents`` hold, or a copy wrote.
public struct StoreCounts: Sendable, Equatable, Codable {
    /// Owners with anything at all (the local user, and one per API key).
    public var owners = 0
    /// Conversations.
    public var threads = 0
    /// Messages, in all the threads.
    public var messages = 0
    /// Images attached to messages.
    public var images = 0
    /// Kept recordings (messages with an audio path).
    public var recordings = 0
    /// Recordings whose file was gone, so that only their path could be kept.
    public var missingRecordings = 0
    /// Stash items.
    public var stashItems = 0
    /// Study materials.
    public var materials = 0
    /// Assignments.
    public var assignments = 0
    /// Sync state values.
    public var syncValues = 0
    /// Charges of the spending ledger.
    public var spendingCharges = 0

    /// No rows at all.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case owners, threads, messages, images, recordings, materials, assignments
        case missingRecordings = "missing_recordings"
        case stashItems = "stash_items"
        case syncValues = "sync_values"
        case spendingCharges = "spending_charges"
    }
}
