import Foundation
import ParleyCore
import ParleyStore
import Testing

@Suite("The response cache and the spending ledger in the store (SQLite and PostgreSQL)")
struct ResponseCacheStoreTests {
    static let alice = Owner.key("key-a11ce")

    static func entry(_ key: String, _ text: String, at date: Date, ttl: TimeInterval = 60) -> CachedResponse {
        CachedResponse(key: key, body: Data(text.utf8), createdAt: date, expiresAt: date.addingTimeInterval(ttl))
    }

    @Test("a cached response is found by its key and owner until it expires, then not", arguments: StoreBackend.available)
    func expiry(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let now = tested.clock.now()
            try await store.cacheResponse(Self.entry("k1", "paris", at: now), owner: .local)
            #expect(try await store.cachedResponse("k1", owner: .local, at: now) == Self.entry("k1", "paris", at: now))
            #expect(try await store.cachedResponse("k1", owner: .local, at: now.addingTimeInterval(59.9))?.body == Data("paris".utf8))
            #expect(try await store.cachedResponse("k1", owner: .local, at: now.addingTimeInterval(60)) == nil)
            #expect(try await store.cachedResponse("k2", owner: .local, at: now) == nil)
            // The row is still there until it is swept.
            #expect(try await tested.rowCount("response_cache") == 1)
        }
    }

    @Test("another owner's cached response is not found, and its key is not taken over", arguments: StoreBackend.available)
    func owners(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let now = tested.clock.now()
            try await store.cacheResponse(Self.entry("shared-key", "alice's", at: now), owner: Self.alice)
            #expect(try await store.cachedResponse("shared-key", owner: .local, at: now) == nil)
            #expect(try await store.cachedResponse("shared-key", owner: .key("key-b0b"), at: now) == nil)
            try await store.cacheResponse(Self.entry("shared-key", "bob's", at: now), owner: .key("key-b0b"))
            #expect(try await store.cachedResponse("shared-key", owner: Self.alice, at: now)?.body == Data("alice's".utf8))
            #expect(try await store.cachedResponse("shared-key", owner: .key("key-b0b"), at: now) == nil)
        }
    }

    @Test("caching again under a key replaces the response and its expiry", arguments: StoreBackend.available)
    func replace(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let now = tested.clock.now()
            try await store.cacheResponse(Self.entry("k", "old", at: now, ttl: 10), owner: .local)
            try await store.cacheResponse(Self.entry("k", "new", at: now.addingTimeInterval(5), ttl: 100), owner: .local)
            let found = try await store.cachedResponse("k", owner: .local, at: now.addingTimeInterval(50))
            #expect(found?.body == Data("new".utf8))
            #expect(found?.expiresAt == now.addingTimeInterval(105))
        }
    }

    @Test("expired responses are swept, every owner's, and live ones kept", arguments: StoreBackend.available)
    func sweep(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let now = tested.clock.now()
            try await store.cacheResponse(Self.entry("a", "1", at: now, ttl: 10), owner: .local)
            try await store.cacheResponse(Self.entry("b", "2", at: now, ttl: 10), owner: Self.alice)
            try await store.cacheResponse(Self.entry("c", "3", at: now, ttl: 1_000), owner: .local)
            #expect(try await store.removeExpiredResponses(at: now.addingTimeInterval(5)) == 0)
            #expect(try await store.removeExpiredResponses(at: now.addingTimeInterval(10)) == 2)
            #expect(try await tested.rowCount("response_cache") == 1)
            #expect(try await store.cachedResponse("c", owner: .local, at: now.addingTimeInterval(10))?.body == Data("3".utf8))
        }
    }

    @Test("charges are summed over a period and seen by another store on the database", arguments: StoreBackend.available)
    func spending(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let march = Date(timeIntervalSince1970: 1_772_323_200)  // 2026-03-01T00:00:00Z
            try await tested.store.record(cost: 1.25, provider: "openai (gpt-4o-mini)", at: march.addingTimeInterval(3_600))
            try await tested.store.record(cost: 2.5, provider: "anthropic (claude)", at: march.addingTimeInterval(86_400 * 10))
            try await tested.store.record(cost: 100, provider: "openai (gpt-4o-mini)", at: march.addingTimeInterval(-1))
            let other = try await tested.reopen()
            #expect(try await other.spent(from: march, to: march.addingTimeInterval(86_400 * 31)) == 3.75)
            #expect(try await other.spent(from: march.addingTimeInterval(-86_400 * 40), to: march.addingTimeInterval(-86_400 * 35)) == 0)

            let tracker = SpendingTracker(
                monthlyBudget: 4, alertThreshold: 3, prices: PriceTable(), ledger: other,
                now: { march.addingTimeInterval(86_400 * 20) })
            try await tracker.restore()
            #expect(await tracker.spent == 3.75)
            #expect(await tracker.state == .alert)
        }
    }
}
