import Foundation
import ParleyStore
import Synchronization
import Testing

@Suite("Concurrency (SQLite and PostgreSQL)")
struct ConcurrencyTests {
    @Test("appends from many tasks at once all land, each exactly once", arguments: StoreBackend.available)
    func concurrentAppends(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let tasks = 8
            let perTask = 25
            let returned = try await withThrowingTaskGroup(of: [StoredMessage].self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var saved: [StoredMessage] = []
                        for index in 0..<perTask {
                            saved.append(try await store.append(NewMessage(role: .user, text: "\(task)-\(index)"), to: thread.id, owner: .local))
                            // Readers run alongside the writers.
                            _ = try await store.threads(owner: .local)
                        }
                        return saved
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let read = try await store.messages(in: thread.id, owner: .local)
            #expect(read.count == tasks * perTask)
            #expect(Set(read.map(\.text)).count == tasks * perTask)
            #expect(Set(read.map(\.id)) == Set(returned.map(\.id)))
            #expect(try await store.threads(owner: .local).first?.messageCount == tasks * perTask)
            // Within each task, its own messages keep their order.
            for task in 0..<tasks {
                let own = read.filter { $0.text.hasPrefix("\(task)-") }.map(\.text)
                #expect(own == (0..<perTask).map { "\(task)-\($0)" })
            }
        }
    }

    @Test(
        "two stores on the same database (as two processes or instances would) see each other's writes",
        arguments: StoreBackend.available)
    func twoConnections(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let other = try await tested.reopen()
            let thread = try await tested.store.createThread(title: "shared", settings: ThreadSettings(), owner: .local)
            try await other.append(NewMessage(role: .user, text: "from the other"), to: thread.id, owner: .local)
            #expect(try await tested.store.messages(in: thread.id, owner: .local).map(\.text) == ["from the other"])
            try await other.updateThread(thread.id, owner: .local) { $0.title = "renamed there" }
            #expect(try await tested.store.thread(thread.id, owner: .local)?.title == "renamed there")
        }
    }

    @Test("a new SQLite database opened by several connections at once gets its tables once, and every open succeeds")
    func simultaneousFirstOpens() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-first-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Mutex<[String]>([])
        for round in 0..<6 {
            let path = directory.appendingPathComponent("round-\(round).sqlite")
            // Like two processes starting together (separate pools, separate connections).
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    _ = try ConversationStore(path: path)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }
}
