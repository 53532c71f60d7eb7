import Foundation
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyTesting
import Testing

/// A conversation saves under the owner its options name and continues only that owner's
/// threads (test doubles for the providers: no engine runs).
@Suite("runtime conversations and owners")
struct ConversationOwnerTests {
    static let owner = Owner.key("key-0123456789abcdef")

    static func scriptedRuntime(database: URL) -> Runtime<ContinuousClock> {
        let catalog = ProviderCatalog(entries: [
            ProviderEntry(
                capability: .languageModel, name: "local", placement: .onDevice, remedy: "none",
                factory: .languageModel { _ in ScriptedLanguageModel(replies: [["Hi."]]) }),
            ProviderEntry(
                capability: .speechToText, name: "local", placement: .onDevice, remedy: "none",
                factory: .speechToText { _ in ScriptedSpeechToText(transcripts: ["hello"]) }),
            ProviderEntry(
                capability: .textToSpeech, name: "local", placement: .onDevice, remedy: "none",
                factory: .textToSpeech { _ in ToneTextToSpeech() }),
        ])
        let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) }
        return Runtime(
            settings: RuntimeSettings(values: environment.merging(["PARLEY_DATABASE": database.path, "PARLEY_LLM_MODEL": "smollm2-135m"]) { $1 }),
            catalog: catalog)
    }

    @Test("a thread of another owner is not found; the owner's own continues, with a journal for that owner")
    func continuesOwnThreadsOnly() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("parley-owner-\(UUID())/parley.sqlite")
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let runtime = Self.scriptedRuntime(database: database)
        let store = try await runtime.store()
        let theirs = try await store.createThread(title: "theirs", settings: ThreadSettings(), owner: Self.owner)
        let local = try await store.createThread(title: "local", settings: ThreadSettings(), owner: .local)
        let output = RecordingOutput(clock: ContinuousClock(), realtime: false)

        await #expect(throws: StoreError.threadNotFound(theirs.id)) {
            _ = try await runtime.makeConversation(thread: theirs.id, output: output)
        }
        await #expect(throws: StoreError.threadNotFound(local.id)) {
            _ = try await runtime.makeConversation(options: ConversationOptions(owner: Self.owner), thread: local.id, output: output)
        }

        let continued = try await runtime.makeConversation(
            options: ConversationOptions(maxTokens: 32, owner: Self.owner),
            thread: theirs.id, output: output)
        #expect(continued.journal?.owner == Self.owner)
        #expect(await continued.thread == theirs.id)
        #expect(try await store.thread(theirs.id, owner: Self.owner)?.settings.maxTokens == 32)

        let fresh = try await runtime.makeConversation(options: ConversationOptions(owner: Self.owner), output: output)
        #expect(fresh.journal?.owner == Self.owner)
        #expect(try await runtime.makeConversation(output: output).journal?.owner == .local)
    }
}
