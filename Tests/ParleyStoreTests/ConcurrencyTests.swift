import Foundation
import ParleyStore
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("appends from many tasks at once all land, each exactly once")
    func concurrentAppends() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let thread = try store.createThread(title: nil, settings: ThreadSettings())
        let tasks = 8
        let perTask = 25
        let returned = try await withThrowingTaskGroup(of: [StoredMessage].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var saved: [StoredMessage] = []
                    for index in 0..<perTask {
                        saved.append(try store.append(NewMessage(role: .user, text: "\(task)-\(index)"), to: thread.id))
                        // Readers run alongside the writers.
                        _ = try store.threads()
                    }
                    return saved
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let read = try store.messages(in: thread.id)
        #expect(read.count == tasks * perTask)
        #expect(Set(read.map(\.text)).count == tasks * perTask)
        #expect(Set(read.map(\.id)) == Set(returned.map(\.id)))
        #expect(try store.threads().first?.messageCount == tasks * perTask)
        // Within each task, its own messages keep their order.
        for task in 0..<tasks {
            let own = read.filter { $0.text.hasPrefix("\(task)-") }.map(\.text)
            #expect(own == (0..<perTask).map { "\(task)-\($0)" })
        }
    }

    @Test("two stores on the same file (as two processes would) see each other's writes")
    func twoConnections() throws {
        let fixture = try StoreFixture()
        let other = try fixture.reopen()
        let thread = try fixture.store.createThread(title: "shared", settings: ThreadSettings())
        try other.append(NewMessage(role: .user, text: "from the other"), to: thread.id)
        #expect(try fixture.store.messages(in: thread.id).map(\.text) == ["from the other"])
    }
}
