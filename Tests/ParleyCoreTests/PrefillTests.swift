import Foundation
import Testing
import ParleyTesting
@testable import ParleyCore

/// Records what it is asked to prefill.
actor RecordingPrefiller: PromptPrefiller {
    private(set) var prefilled: [[ChatMessage]] = []

    func prefill(_ messages: [ChatMessage], tools: [ToolDefinition]) async throws {
        prefilled.append(messages)
    }
}

@Suite("The reply's prompt evaluated while the user speaks, with test doubles")
struct PrefillTests {
    @Test(
        "the words of a partial transcript that will stay: all but the last, without the transcriber's punctuation",
        arguments: [
            ("What is the capy?", "What is the"), ("Can you tell me?", "Can you tell"), ("Hello.", ""), ("", ""),
            ("I would like to know, how", "I would like to know"), ("What is the name of ...", "What is the name of"),
        ])
    func settledWords(partial: String, settled: String) {
        #expect(ConversationSession<ContinuousClock>.settledWords(of: partial) == settled)
    }

    @Test("the conversation is prefilled when speech starts, then with each partial's settled words; the reply asks for the whole prompt")
    func prefilledWhileSpeaking() async throws {
        let stt = ScriptedSpeechToText(transcripts: ["what is the capy", "what is the capital of France?"])
        let llm = ScriptedLanguageModel(replies: [["Paris."]])
        let prefiller = RecordingPrefiller()
        let session = makeSession(stt: stt, llm: llm) {
            $0.partialInterval = 0.8
            $0.prefiller = prefiller
        }
        let (input, feed) = AsyncStream.makeStream(of: AudioBuffer.self)
        let updates = await session.updates()
        let watcher = Task {
            for await update in updates {
                if case .partialTranscript = update {
                    for frame in TestAudio.frames(TestAudio.silence(1.5)) { feed.yield(frame) }
                    feed.finish()
                }
                if case .transition(_, .idle) = update { break }
            }
        }
        for frame in TestAudio.frames(TestAudio.speech(1)) { feed.yield(frame) }
        let turns = try await session.run(input)
        await watcher.value
        #expect(turns.first?.reply == "Paris.")

        let prefilled = await prefiller.prefilled
        #expect(prefilled.map { $0.last?.text } == ["", "what is the"])
        // Each is the reply's request but for the user's last words.
        let request = try #require(await llm.requests.first)
        #expect(request.messages.last?.text == "what is the capital of France?")
        for messages in prefilled {
            #expect(Array(messages.dropLast()) == Array(request.messages.dropLast()))
            #expect(messages.last?.role == .user)
        }
    }

    @Test("a typed turn prefills nothing: its reply starts at once")
    func notDuringAReply() async throws {
        let prefiller = RecordingPrefiller()
        // Typed turns start their replies at once: no speech, nothing to prefill.
        let session = makeSession(stt: ScriptedSpeechToText(transcripts: []), llm: ScriptedLanguageModel(replies: [["Hi."]])) {
            $0.prefiller = prefiller
        }
        _ = try await session.send(text: "Hello")
        await session.close()
        #expect(await prefiller.prefilled.isEmpty)
    }
}
