import Foundation
import ParleyStore
import Testing

@Suite("Kept audio (SQLite and PostgreSQL)")
struct AudioTests {
    @Test("attaching records the file and serves its bytes; deleting removes it and clears the path", arguments: StoreBackend.available)
    func attachAndDelete(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await store.append(NewMessage(role: .user, text: "hi", rawTranscript: "hi"), to: thread.id, owner: .local)
            let audio = try tested.makeAudioFile("turn-1.wav")
            #expect(try await store.audio(message: message.id, owner: .local) == nil)

            try await store.attachAudio(message: message.id, file: audio, owner: .local)
            #expect(try await store.message(message.id, owner: .local)?.audioPath == audio.path)
            #expect(try await store.audio(message: message.id, owner: .local) == Data("RIFF....WAVE".utf8))

            try await store.deleteAudio(message: message.id, owner: .local)
            #expect(!tested.exists(audio))
            #expect(try await store.message(message.id, owner: .local)?.audioPath == nil)
            #expect(try await store.audio(message: message.id, owner: .local) == nil)
            // Nothing left to delete: a no-op.
            try await store.deleteAudio(message: message.id, owner: .local)
        }
    }

    @Test("deleting audio whose file is already gone still clears the path", arguments: StoreBackend.available)
    func fileAlreadyGone(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await store.append(NewMessage(role: .user, text: "hi"), to: thread.id, owner: .local)
            let audio = try tested.makeAudioFile("gone.wav")
            try await store.attachAudio(message: message.id, file: audio, owner: .local)
            try FileManager.default.removeItem(at: audio)
            try await store.deleteAudio(message: message.id, owner: .local)
            #expect(try await store.message(message.id, owner: .local)?.audioPath == nil)
        }
    }

    @Test("attaching another file replaces and removes the previous one", arguments: StoreBackend.available)
    func replace(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await store.append(NewMessage(role: .user, text: "hi"), to: thread.id, owner: .local)
            let first = try tested.makeAudioFile("first.wav", content: "first")
            let second = try tested.makeAudioFile("second.wav", content: "second")
            try await store.attachAudio(message: message.id, file: first, owner: .local)
            try await store.attachAudio(message: message.id, file: second, owner: .local)
            #expect(!tested.exists(first))
            #expect(tested.exists(second))
            #expect(try await store.message(message.id, owner: .local)?.audioPath == second.path)
            #expect(try await store.audio(message: message.id, owner: .local) == Data("second".utf8))
            // Attaching the same file again keeps it.
            try await store.attachAudio(message: message.id, file: second, owner: .local)
            #expect(tested.exists(second))
        }
    }

    @Test("a missing file cannot be attached", arguments: StoreBackend.available)
    func missingFile(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let thread = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let message = try await store.append(NewMessage(role: .user, text: "hi"), to: thread.id, owner: .local)
            let missing = tested.directory.appendingPathComponent("nowhere.wav")
            await #expect(throws: StoreError.audioFileMissing(path: missing.path)) {
                try await store.attachAudio(message: message.id, file: missing, owner: .local)
            }
            #expect(try await store.message(message.id, owner: .local)?.audioPath == nil)
        }
    }

    @Test("deleting a thread removes its messages' audio and leaves other threads' alone", arguments: StoreBackend.available)
    func deleteThreadRemovesAudio(_ backend: StoreBackend) async throws {
        try await backend.withStore { tested in
            let store = tested.store
            let doomed = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            let kept = try await store.createThread(title: nil, settings: ThreadSettings(), owner: .local)
            var doomedFiles: [URL] = []
            for index in 0..<3 {
                let message = try await store.append(NewMessage(role: .user, text: "t\(index)"), to: doomed.id, owner: .local)
                let file = try tested.makeAudioFile("doomed-\(index).wav")
                try await store.attachAudio(message: message.id, file: file, owner: .local)
                doomedFiles.append(file)
            }
            try await store.append(NewMessage(role: .assistant, text: "no audio"), to: doomed.id, owner: .local)
            let keptMessage = try await store.append(NewMessage(role: .user, text: "mine"), to: kept.id, owner: .local)
            let keptFile = try tested.makeAudioFile("kept.wav")
            try await store.attachAudio(message: keptMessage.id, file: keptFile, owner: .local)

            try await store.deleteThread(doomed.id, owner: .local)
            #expect(doomedFiles.allSatisfy { !tested.exists($0) })
            #expect(tested.exists(keptFile))
            #expect(try await store.message(keptMessage.id, owner: .local)?.audioPath == keptFile.path)
            #expect(try await store.audio(message: keptMessage.id, owner: .local) == Data("RIFF....WAVE".utf8))
        }
    }
}
