import Foundation
import ParleyData

/// Where a Google sign-in is kept between runs.
public protocol GoogleTokenKeeping: Sendable {
    /// The saved sign-in, or `nil`.
    func load() async throws -> GoogleToken?
    /// Saves the sign-in; `nil` forgets it.
    func save(_ token: GoogleToken?) async throws
}

/// Keeps the sign-in in the conversation store (sync state `google.token`), as JSON, per
/// owner. The SQLite store's file is readable by its owner only.
public struct StoreTokenKeeper: GoogleTokenKeeping {
    /// The store.
    public let store: any ConversationStoring
    /// Whose sign-in.
    public let owner: Owner

    static let key = "google.token"

    /// Keeps `owner`'s sign-in in `store`.
    public init(store: any ConversationStoring, owner: Owner = .local) {
        self.store = store
        self.owner = owner
    }

    public func load() async throws -> GoogleToken? {
        guard let text = try await store.syncState(Self.key, owner: owner) else { return nil }
        do {
            return try JSONDecoder.google.decode(GoogleToken.self, from: Data(text.utf8))
        } catch {
            // A damaged sign-in is no sign-in; saying what was in it would show a token.
            return nil
        }
    }

    public func save(_ token: GoogleToken?) async throws {
        let text = try token.map { String(decoding: try JSONEncoder.google.encode($0), as: UTF8.self) }
        try await store.setSyncState(Self.key, to: text, owner: owner)
    }
}

extension JSONEncoder {
    /// ISO 8601 dates, sorted keys.
    static var google: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    /// ISO 8601 dates.
    static var google: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
