import Foundation
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyTestLanes
import Testing

/// Conversations made by a runtime, on the real on-device engines (installed by scripts/setup).
@Suite("runtime conversations on the on-device engines", .serialized, .onDeviceEngines)
struct RuntimeConversationTests {
    static let paths = ParleyPaths.current()

    static func temporaryDatabase() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-runtime-\(UUID())/parley.sqlite")
    }

    @Test("two conversations from one runtime load the language model once and share its engines")
    func loadsOnce() async throws {
        let database = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let runtime = runtime([:], options: RuntimeOptions(database: database))
        let question = try WAV.read(from: Self.paths.sampleQuestion)
        var threads: [Int64] = []
        for _ in 0..<2 {
            let output = RecordingOutput(clock: ContinuousClock(), realtime: false)
            let conversation = try await runtime.makeConversation(options: ConversationOptions(duplex: .half), output: output)
            let turns = try await conversation.session.run(
                AsyncStream { continuation in
                    continuation.yield(question)
                    continuation.finish()
                })
            #expect(turns.count == 1)
            #expect(turns.first?.reply.isEmpty == false)
            threads.append(try #require(await conversation.thread))
        }
        #expect(await runtime.engines.llm.current.loads == 1)
        #expect(Set(threads).count == 2)
        #expect(try await runtime.store().threads(owner: .local).count == 2)
    }

    @Test("continuing a thread uses its saved system prompt and reply length unless told otherwise")
    func threadSettings() async throws {
        let database = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let runtime = runtime([:], options: RuntimeOptions(database: database))
        let saved = ThreadSettings(backend: "local", systemPrompt: "You are a pirate. Answer like one.", maxTokens: 40)
        let thread = try await runtime.store().createThread(title: "pirate", settings: saved, owner: .local)
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)

        let continued = try await runtime.makeConversation(thread: thread.id, output: output)
        #expect(continued.session.configuration.systemPrompt == saved.systemPrompt)
        #expect(continued.session.configuration.sampling.maxTokens == 40)

        let overridden = try await runtime.makeConversation(options: ConversationOptions(maxTokens: 64), thread: thread.id, output: output)
        #expect(overridden.session.configuration.systemPrompt == saved.systemPrompt)
        #expect(overridden.session.configuration.sampling.maxTokens == 64)

        await #expect(throws: StoreError.threadNotFound(999)) {
            _ = try await runtime.makeConversation(thread: 999, output: output)
        }
    }
}
