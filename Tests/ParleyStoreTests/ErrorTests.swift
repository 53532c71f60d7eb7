import Foundation
import ParleyStore
import Testing

@Suite("Unknown ids (SQLite and PostgreSQL)")
struct ErrorTests {
    /// Every operation that takes an id, called with one that does not exist.
    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case updateSettings, updateThread, messages, deleteThread, append, editTranscript, attachAudio, audio, deleteAudio
        case deleteStashItem, export

        var testDescription: String { rawValue }

        func run(_ store: any ConversationStoring, audio: URL) async throws {
            switch self {
            case .updateSettings: try await store.updateSettings(ThreadSettings(), thread: 404, owner: .local)
            case .updateThread: try await store.updateThread(404, owner: .local) { $0.title = "x" }
            case .messages: _ = try await store.messages(in: 404, owner: .local)
            case .deleteThread: try await store.deleteThread(404, owner: .local)
            case .append: try await store.append(NewMessage(role: .user, text: "x"), to: 404, owner: .local)
            case .editTranscript: try await store.editTranscript(message: 404, text: "x", owner: .local)
            case .attachAudio: try await store.attachAudio(message: 404, file: audio, owner: .local)
            case .audio: _ = try await store.audio(message: 404, owner: .local)
            case .deleteAudio: try await store.deleteAudio(message: 404, owner: .local)
            case .deleteStashItem: try await store.deleteStashItem(404, owner: .local)
            case .export: _ = try await store.exported(thread: 404, owner: .local)
            }
        }

        var expected: StoreError {
            switch self {
            case .updateSettings, .updateThread, .messages, .deleteThread, .append, .export: .threadNotFound(404)
            case .editTranscript, .attachAudio, .audio, .deleteAudio: .messageNotFound(404)
            case .deleteStashItem: .stashItemNotFound(404)
            }
        }
    }

    @Test("fail with a not-found error that says what to do", arguments: Operation.allCases, StoreBackend.available)
    func unknownID(_ operation: Operation, backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            try await store.append(NewMessage(role: .user, text: "existing"), to: thread.id, owner: .local)
            let audio = try tested.makeAudioFile("a.wav")
            let error = await #expect(throws: StoreError.self) { try await operation.run(store, audio: audio) }
            #expect(error == operation.expected)
            #expect(error?.isNotFound == true)
            #expect(error?.description.contains("404") == true)
            #expect(error?.description.contains("parley history") == true || operation == .deleteStashItem)
            // Nothing was written.
            #expect(try await store.messages(in: thread.id, owner: .local).count == 1)
            #expect(try await store.threads(owner: .local).count == 1)
        }
    }

    @Test("looking up a missing thread or message gives nil, not an error", arguments: StoreBackend.available)
    func lookups(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let thread = try await tested.store.thread(1, owner: .local)
            let message = try await tested.store.message(1, owner: .local)
            #expect(thread == nil)
            #expect(message == nil)
        }
    }
}
