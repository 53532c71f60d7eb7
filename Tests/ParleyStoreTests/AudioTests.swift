import Foundation
import ParleyStore
import Testing

@Suite("Kept audio")
struct AudioTests {
    @Test("attaching records the file; deleting removes it and clears the path")
    func attachAndDelete() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let message = try fixture.store.append(NewMessage(role: .user, text: "hi", rawTranscript: "hi"), to: thread.id)
        let audio = try fixture.makeAudioFile("turn-1.wav")

        try fixture.store.attachAudio(message: message.id, file: audio)
        #expect(try fixture.store.message(message.id)?.audioPath == audio.path)

        try fixture.store.deleteAudio(message: message.id)
        #expect(!fixture.exists(audio))
        #expect(try fixture.store.message(message.id)?.audioPath == nil)
        // Nothing left to delete: a no-op.
        try fixture.store.deleteAudio(message: message.id)
    }

    @Test("deleting audio whose file is already gone still clears the path")
    func fileAlreadyGone() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let message = try fixture.store.append(NewMessage(role: .user, text: "hi"), to: thread.id)
        let audio = try fixture.makeAudioFile("gone.wav")
        try fixture.store.attachAudio(message: message.id, file: audio)
        try FileManager.default.removeItem(at: audio)
        try fixture.store.deleteAudio(message: message.id)
        #expect(try fixture.store.message(message.id)?.audioPath == nil)
    }

    @Test("attaching another file replaces and removes the previous one")
    func replace() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let message = try fixture.store.append(NewMessage(role: .user, text: "hi"), to: thread.id)
        let first = try fixture.makeAudioFile("first.wav")
        let second = try fixture.makeAudioFile("second.wav")
        try fixture.store.attachAudio(message: message.id, file: first)
        try fixture.store.attachAudio(message: message.id, file: second)
        #expect(!fixture.exists(first))
        #expect(fixture.exists(second))
        #expect(try fixture.store.message(message.id)?.audioPath == second.path)
        // Attaching the same file again keeps it.
        try fixture.store.attachAudio(message: message.id, file: second)
        #expect(fixture.exists(second))
    }

    @Test("a missing file cannot be attached")
    func missingFile() throws {
        let fixture = try StoreFixture()
        let thread = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let message = try fixture.store.append(NewMessage(role: .user, text: "hi"), to: thread.id)
        let missing = fixture.directory.appendingPathComponent("nowhere.wav")
        #expect(throws: StoreError.audioFileMissing(path: missing.path)) {
            try fixture.store.attachAudio(message: message.id, file: missing)
        }
        #expect(try fixture.store.message(message.id)?.audioPath == nil)
    }

    @Test("deleting a thread removes its messages' audio files and leaves other threads' alone")
    func deleteThreadRemovesAudio() throws {
        let fixture = try StoreFixture()
        let doomed = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        let kept = try fixture.store.createThread(title: nil, settings: ThreadSettings())
        var doomedFiles: [URL] = []
        for index in 0..<3 {
            let message = try fixture.store.append(NewMessage(role: .user, text: "t\(index)"), to: doomed.id)
            let file = try fixture.makeAudioFile("doomed-\(index).wav")
            try fixture.store.attachAudio(message: message.id, file: file)
            doomedFiles.append(file)
        }
        try fixture.store.append(NewMessage(role: .assistant, text: "no audio"), to: doomed.id)
        let keptMessage = try fixture.store.append(NewMessage(role: .user, text: "mine"), to: kept.id)
        let keptFile = try fixture.makeAudioFile("kept.wav")
        try fixture.store.attachAudio(message: keptMessage.id, file: keptFile)

        try fixture.store.deleteThread(doomed.id)
        #expect(doomedFiles.allSatisfy { !fixture.exists($0) })
        #expect(fixture.exists(keptFile))
        #expect(try fixture.store.message(keptMessage.id)?.audioPath == keptFile.path)
    }
}
