import Foundation
import ParleyStore
import Testing

@Suite("Unknown ids")
struct ErrorTests {
    /// Every operation that takes an id, called with one that does not exist.
    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case updateSettings, messages, deleteThread, append, editTranscript, attachAudio, deleteAudio, deleteStashItem, export

        var testDescription: String { rawValue }

        func run(_ store: ConversationStore, audio: URL) throws {
            switch self {
            case .updateSettings: try store.updateSettings(ThreadSettings(), thread: 404)
            case .messages: _ = try store.messages(in: 404)
            case .deleteThread: try store.deleteThread(404)
            case .append: try store.append(NewMessage(role: .user, text: "x"), to: 404)
            case .editTranscript: try store.editTranscript(message: 404, text: "x")
            case .attachAudio: try store.attachAudio(message: 404, file: audio)
            case .deleteAudio: try store.deleteAudio(message: 404)
            case .deleteStashItem: try store.deleteStashItem(404)
            case .export: _ = try store.export(thread: 404)
            }
        }

        var expected: StoreError {
            switch self {
            case .updateSettings, .messages, .deleteThread, .append, .export: .threadNotFound(404)
            case .editTranscript, .attachAudio, .deleteAudio: .messageNotFound(404)
            case .deleteStashItem: .stashItemNotFound(404)
            }
        }
    }

    @Test("fail with a not-found error that says what to do", arguments: Operation.allCases)
    func unknownID(_ operation: Operation) throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        try fixture.store.append(NewMessage(role: .user, text: "existing"), to: thread.id)
        let audio = try fixture.makeAudioFile("a.wav")
        let error = #expect(throws: StoreError.self) { try operation.run(fixture.store, audio: audio) }
        #expect(error == operation.expected)
        #expect(error?.isNotFound == true)
        #expect(error?.description.contains("404") == true)
        #expect(error?.description.contains("parley history") == true || operation == .deleteStashItem)
        // Nothing was written.
        #expect(try fixture.store.messages(in: thread.id).count == 1)
        #expect(try fixture.store.threads().count == 1)
    }

    @Test("looking up a missing thread or message gives nil, not an error")
    func lookups() throws {
        let fixture = try StoreFixture()
        #expect(try fixture.store.thread(1) == nil)
        #expect(try fixture.store.message(1) == nil)
    }
}
