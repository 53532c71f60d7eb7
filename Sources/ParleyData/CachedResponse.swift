import Foundation

/// A response kept in the store so that an identical request can be answered without asking a
/// model again (the server's response cache). The store does not read ``body``: what it holds
/// is the caller's business (the server keeps the answer's text, finish reason, usage and
/// provider as JSON).
public struct CachedResponse: Sendable, Equatable {
    /// What the response is cached under: the caller's hash of the request.
    public var key: String
    /// The cached response, encoded by the caller.
    public var body: Data
    /// When it was cached.
    public var createdAt: Date
    /// When it stops being served (and may be deleted).
    public var expiresAt: Date

    /// Creates a cached response.
    public init(key: String, body: Data, createdAt: Date, expiresAt: Date) {
        self.key = key
        self.body = body
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
