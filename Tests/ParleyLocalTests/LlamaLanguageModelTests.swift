import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// These run the real llama.cpp engine on SmolLM2-135M-Instruct. One model is shared by the
/// suite (loading takes a fraction of a second, but the context is the point of some tests).
@Suite("llama.cpp language model", .serialized, .onDeviceEngines)
struct LlamaLanguageModelTests {
    static let model: LlamaLanguageModel? = {
        let path = TestEnvironment.paths.defaultLanguageModel.path
        return LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2))
    }()

    func llm() throws -> LlamaLanguageModel {
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel)
        return try #require(Self.model)
    }

    let greedy = SamplingOptions(temperature: 0, maxTokens: 48)

    @Test("answers a factual question correctly")
    func capitalOfFrance() async throws {
        let (text, usage, finish) = try await llm().completeText(
            ChatRequest(
                messages: [.system("You are a helpful assistant."), .user("What is the capital of France?")], sampling: greedy))
        #expect(text.contains("Paris"), "reply: \(text)")
        #expect(finish == .stop)
        #expect(usage.outputTokens > 0 && usage.inputTokens > 10)
    }

    @Test("streams the reply in several pieces")
    func streams() async throws {
        var pieces = 0
        for try await event in try llm().complete(ChatRequest(messages: [.user("Name three colours.")], sampling: greedy)) {
            if case .text = event { pieces += 1 }
        }
        #expect(pieces > 3)
    }

    @Test("the next turn of a conversation reuses the context instead of evaluating it again")
    func contextReuse() async throws {
        let llm = try llm()
        var history: [ChatMessage] = [.system("You are a helpful assistant."), .user("What is the capital of France?")]
        let first = try await llm.completeText(ChatRequest(messages: history, sampling: greedy))
        history += [.assistant(first.text), .user("And the capital of Italy?")]
        let second = try await llm.completeText(ChatRequest(messages: history, sampling: greedy))
        #expect(
            second.usage.cachedInputTokens >= first.usage.inputTokens - 1,
            "reused \(second.usage.cachedInputTokens) of \(second.usage.inputTokens); first prompt was \(first.usage.inputTokens)")
        #expect(second.text.contains("Rome"), "reply: \(second.text)")
    }

    @Test("a prompt prefilled with the first words of a question leaves only the rest to evaluate, and the reply is the same")
    func prefill() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        // Fresh models: the shared one's memory holds other tests' prompts.
        let ahead = LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2))
        let cold = LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2))
        let conversation: [ChatMessage] = [.system("You are a helpful assistant.")]
        let request = ChatRequest(messages: conversation + [.user("What is the capital of France?")], sampling: greedy)

        // Not loaded: a prefill never loads the model, so nothing is kept.
        try await ahead.prefill(conversation + [.user("What is the")])
        #expect(await ahead.isLoaded == false)
        try await ahead.load()
        try await ahead.prefill(conversation + [.user("What is the")])
        let prefilled = try await ahead.completeText(request)
        let baseline = try await cold.completeText(request)

        #expect(baseline.usage.cachedInputTokens == 0)
        // Left to evaluate: " capital of France?" and the template's close of the message.
        #expect(
            prefilled.usage.inputTokens - prefilled.usage.cachedInputTokens <= 12,
            "reused \(prefilled.usage.cachedInputTokens) of \(prefilled.usage.inputTokens)")
        #expect(prefilled.text == baseline.text)
        #expect(prefilled.text.contains("Paris"), "reply: \(prefilled.text)")

        // A cancelled prefill evaluates nothing more.
        let conversationB: [ChatMessage] = [.system("You answer in French.")]
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await ahead.prefill(conversationB + [.user("Where is the Eiffel Tower?")])
        }
        try await cancelled.value
        let next = try await ahead.completeText(ChatRequest(messages: conversationB + [.user("Where is the Eiffel Tower?")], sampling: greedy))
        #expect(next.usage.cachedInputTokens < next.usage.inputTokens / 2, "reused \(next.usage.cachedInputTokens) of \(next.usage.inputTokens)")
    }

    @Test("a new process reads its instructions' memory back from disk, kept by the one before: only the question is evaluated")
    func instructionsMemory() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-prompts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = LlamaLanguageModel.Configuration(modelPath: path, contextLength: 1024, threads: 2)
        configuration.promptMemoryDirectory = folder
        let system = ChatMessage.system(
            """
            You are a friendly study companion for a student. Answer in one or two short sentences, in plain words, \
            without lists or code. If you do not know the answer, say so. Spell out numbers as a teacher would say them. \
            The student reads slowly, so keep every sentence short and use common words; never use abbreviations.
            """)
        // Memory is kept for instructions of 64 tokens or more.
        #expect(try LlamaSession(modelPath: path, contextLength: 256, threads: 1).tokenize(system.text).count >= 64)
        // Left by processes killed while writing: one long ago (pruned when a file is kept), one just now (kept).
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let abandoned = folder.appendingPathComponent(".writing-abandoned"), underWay = folder.appendingPathComponent(".writing-under-way")
        for file in [abandoned, underWay] { try Data([1, 2, 3]).write(to: file) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: abandoned.path)
        // The run before: nothing on disk yet, so it evaluates everything and keeps the instructions.
        let before = LlamaLanguageModel(configuration: configuration)
        let first = try await before.completeText(ChatRequest(messages: [system, .user("What is the capital of France?")], sampling: greedy))
        #expect(first.usage.cachedInputTokens == 0)
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("prompt-") }
        #expect(kept.count == 1, "files: \(kept)")
        #expect(!FileManager.default.fileExists(atPath: abandoned.path) && FileManager.default.fileExists(atPath: underWay.path))

        let request = ChatRequest(messages: [system, .user("What is the capital of Italy?")], sampling: greedy)
        let next = LlamaLanguageModel(configuration: configuration)
        let reply = try await next.completeText(request)
        let cold = try await LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2)).completeText(request)
        #expect(reply.usage.cachedInputTokens >= 64, "reused \(reply.usage.cachedInputTokens) of \(reply.usage.inputTokens)")
        // Left: the question and the template's close of it.
        #expect(
            reply.usage.inputTokens - reply.usage.cachedInputTokens <= 16,
            "reused \(reply.usage.cachedInputTokens) of \(reply.usage.inputTokens)")
        #expect(reply.text.contains("Rome") && cold.text.contains("Rome"), "replies: \(reply.text) / \(cold.text)")
    }

    @Test(
        """
        a process whose first evaluation is an end-of-turn score (real time) keeps its instructions and tools on disk; the next \
        process's first score evaluates only its words; another tool list or other instructions are not read from that file
        """)
    func scoreKeepsInstructionsMemory() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-prompts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = LlamaLanguageModel.Configuration(modelPath: path, contextLength: 1024, threads: 2)
        configuration.promptMemoryDirectory = folder
        let system = ChatMessage.system("You are a helpful assistant. Answer in one short sentence.")
        let timer = try ToolDefinition(
            name: "set_timer", description: "Starts a countdown timer.",
            schema: .object([.init("minutes", .integer(minimum: 1, maximum: 120))]))
        let clock = try ToolDefinition(name: "current_date_time", description: "Today's date and time.", schema: .object([]))
        func kept() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("prompt-") }
        }

        // The first run: nothing on disk, so the score evaluates everything and keeps the instructions.
        let first = LlamaLanguageModel(configuration: configuration)
        _ = try await first.completion(of: "What is the capital of France?", after: [system], tools: [timer, clock])
        #expect(first.scoredTokens > 100, "scored \(first.scoredTokens) tokens")
        #expect(kept().count == 1, "files: \(kept())")

        // The next run: the instructions come back from disk; the score evaluates the words only.
        let second = LlamaLanguageModel(configuration: configuration)
        _ = try await second.completion(of: "What is the capital of Italy?", after: [system], tools: [timer, clock])
        #expect(second.scoredTokens <= 10, "scored \(second.scoredTokens) tokens")
        // And the reply to those words evaluates only the final mark and the template's close.
        let reply = try await second.completeReply(
            ChatRequest(
                messages: [system, .user("What is the capital of Italy?")],
                sampling: greedy, tools: [timer, clock]))
        #expect(
            reply.usage.inputTokens - reply.usage.cachedInputTokens <= 8,
            "reused \(reply.usage.cachedInputTokens) of \(reply.usage.inputTokens)")
        #expect(kept().count == 1, "files: \(kept())")

        // Another tool list, and other instructions: evaluated whole, and kept in files of their own.
        let fewerTools = LlamaLanguageModel(configuration: configuration)
        _ = try await fewerTools.completion(of: "What is the capital of Italy?", after: [system], tools: [timer])
        #expect(fewerTools.scoredTokens > 100, "scored \(fewerTools.scoredTokens) tokens")
        let otherInstructions = LlamaLanguageModel(configuration: configuration)
        _ = try await otherInstructions.completion(
            of: "What is the capital of Italy?",
            after: [.system("You are a tour guide. Answer in one short sentence.")],
            tools: [timer, clock])
        #expect(otherInstructions.scoredTokens > 100, "scored \(otherInstructions.scoredTokens) tokens")
        #expect(kept().count == 3, "files: \(kept())")
    }

    @Test("scoring the end of a turn leaves the reply to those words only the final mark and the template's close to evaluate")
    func scoreThenReply() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        let model = LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2))
        let conversation: [ChatMessage] = [.system("You are a helpful assistant.")]
        let score = try await model.completion(of: "What is the capital of France?", after: conversation)
        #expect(score > 0.005)
        let reply = try await model.completeText(ChatRequest(messages: conversation + [.user("What is the capital of France?")], sampling: greedy))
        // "?", then "<|im_end|>", a line break, "<|im_start|>assistant" and another (SmolLM2's template).
        #expect(
            reply.usage.inputTokens - reply.usage.cachedInputTokens <= 8,
            "reused \(reply.usage.cachedInputTokens) of \(reply.usage.inputTokens)")
        #expect(reply.text.contains("Paris"), "reply: \(reply.text)")
    }

    @Test("a prefill of fewer words than a score left in memory (a late partial transcript) keeps the scored words for the reply")
    func latePrefillAfterScore() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        let model = LlamaLanguageModel(configuration: .init(modelPath: path, contextLength: 1024, threads: 2))
        let conversation: [ChatMessage] = [.system("You are a helpful assistant.")]
        _ = try await model.completion(of: "What is the capital of France?", after: conversation)
        try await model.prefill(conversation + [.user("What is the capital")])
        #expect(model.prefilledTokens == 0)
        let reply = try await model.completeText(ChatRequest(messages: conversation + [.user("What is the capital of France?")], sampling: greedy))
        #expect(
            reply.usage.inputTokens - reply.usage.cachedInputTokens <= 8,
            "reused \(reply.usage.cachedInputTokens) of \(reply.usage.inputTokens)")
    }

    /// A model of its own (the shared one's memory holds other tests' prompts), loaded.
    func loadedModel(prefillLimit: Int) async throws -> LlamaLanguageModel {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        var configuration = LlamaLanguageModel.Configuration(modelPath: path, contextLength: 2048, threads: 2)
        configuration.prefillLimit = prefillLimit
        let model = LlamaLanguageModel(configuration: configuration)
        try await model.load()
        return model
    }

    @Test("a prefill stops at its next batch when a request arrives, and the request is answered")
    func prefillStandsAside() async throws {
        let model = try await loadedModel(prefillLimit: 1_000)
        // About 600 tokens: dozens of batches.
        let long = Array(repeating: "The quick brown fox jumps over the lazy dog.", count: 60).joined(separator: " ")
        let prefill = Task { try await model.prefill([.system("You are a helpful assistant."), .user(long)]) }
        for _ in 0..<2_000 where model.prefilledTokens == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(model.prefilledTokens > 0)
        let reply = try await model.completeText(ChatRequest(messages: [.user("What is the capital of France?")], sampling: greedy))
        try await prefill.value
        #expect(reply.text.contains("Paris"), "reply: \(reply.text)")
        #expect(model.prefilledTokens < 300, "prefilled \(model.prefilledTokens) tokens")
    }

    @Test("a prefill that would evaluate more than its limit beyond memory (another conversation) does nothing")
    func prefillLimit() async throws {
        let model = try await loadedModel(prefillLimit: 40)
        let conversation: [ChatMessage] = [.system("You are a helpful assistant."), .user("What is the capital of France?")]
        let answer = try await model.completeText(ChatRequest(messages: conversation, sampling: greedy))
        // The next turn of the same conversation: a few tokens beyond memory.
        try await model.prefill(conversation + [.assistant(answer.text), .user("And of")])
        let nextTurn = model.prefilledTokens
        #expect(nextTurn > 0)
        // Another conversation, about a hundred tokens long: left alone.
        let other = Array(repeating: "Tell me about the history of Rome.", count: 12).joined(separator: " ")
        try await model.prefill([.system("You are a tour guide."), .user(other)])
        #expect(model.prefilledTokens == nextTurn)
    }

    @Test("respects the token limit")
    func tokenLimit() async throws {
        let result = try await llm().completeText(
            ChatRequest(
                messages: [.user("Write a long story about a dragon.")], sampling: SamplingOptions(temperature: 0, maxTokens: 5)))
        #expect(result.finish == .length)
        #expect(result.usage.outputTokens == 5)
    }

    @Test("stop sequences end the reply and are not included")
    func stopSequence() async throws {
        let result = try await llm().completeText(
            ChatRequest(
                messages: [.user("What is the capital of France?")], sampling: SamplingOptions(temperature: 0, maxTokens: 48, stop: ["Paris"])))
        #expect(!result.text.contains("Paris"))
        #expect(result.finish == .stop)
    }

    @Test("cancelling the consumer stops generation, and the model serves the next request")
    func cancellation() async throws {
        let llm = try llm()
        let task = Task {
            var pieces = 0
            for try await event in llm.complete(
                ChatRequest(
                    messages: [.user("Count from one to one hundred in words.")],
                    sampling: SamplingOptions(temperature: 0, maxTokens: 400)))
            {
                if case .text = event { pieces += 1 }
                if pieces == 3 { break }
            }
            return pieces
        }
        #expect(try await task.value == 3)
        let after = try await llm.completeText(ChatRequest(messages: [.user("What is the capital of France?")], sampling: greedy))
        #expect(after.text.contains("Paris"))
    }

    @Test("tokens guessed from the question and checked in one batch leave a greedy reply as it was, with and without tools; some are confirmed")
    func guessedTokens() async throws {
        let path = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel).path
        var plain = LlamaLanguageModel.Configuration(modelPath: path, contextLength: 1024, threads: 2)
        plain.lookupDrafts = 0
        var guessing = plain
        guessing.lookupDrafts = 3
        let without = LlamaLanguageModel(configuration: plain), with = LlamaLanguageModel(configuration: guessing)
        let timer = try ToolDefinition(
            name: "set_timer", description: "Starts a timer.",
            schema: .object([.init("minutes", .integer(minimum: 1, maximum: 120))]))
        let system = ChatMessage.system("You are a helpful assistant. Answer in one sentence.")
        let requests = [
            ChatRequest(messages: [system, .user("What is the name of the longest river in Africa?")], sampling: greedy),
            ChatRequest(messages: [system, .user("Repeat after me: the quick brown fox jumps over the lazy dog.")], sampling: greedy),
            ChatRequest(messages: [system, .user("What is the capital of France?")], sampling: greedy, tools: [timer]),
        ]
        for request in requests {
            let expected = try await without.completeReply(request)
            let reply = try await with.completeReply(request)
            #expect(reply.text == expected.text)
            #expect(reply.toolCalls.map(\.name) == expected.toolCalls.map(\.name))
            #expect(reply.usage.outputTokens == expected.usage.outputTokens)
        }
        #expect(without.guessedTokens == .init())
        let guessed = with.guessedTokens
        #expect(guessed.confirmed > 0 && guessed.confirmed <= guessed.proposed, "\(guessed)")
    }

    @Test("a missing model is reported by availability and by a typed error")
    func missingModel() async throws {
        let missing = LlamaLanguageModel(configuration: .init(modelPath: "/nonexistent/model.gguf"))
        #expect(
            await missing.availability()
                == .missingModel(path: "/nonexistent/model.gguf", hint: "download a GGUF chat model there or pass its path in the configuration"))
        await #expect(throws: LlamaError.modelNotFound(path: "/nonexistent/model.gguf")) {
            _ = try await missing.completeText(ChatRequest(messages: [.user("hi")]))
        }
    }

    @Test("a file that is not a model is reported, not a crash")
    func notAModel() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(UUID()).gguf")
        try Data("definitely not gguf".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let bogus = LlamaLanguageModel(configuration: .init(modelPath: file.path))
        await #expect(throws: LlamaError.modelLoadFailed(path: file.path)) {
            _ = try await bogus.completeText(ChatRequest(messages: [.user("hi")]))
        }
    }
}

@Suite("Token text assembly")
struct TokenTextTests {
    @Test("a character split across tokens comes out whole")
    func utf8Split() {
        var decoder = UTF8StreamDecoder()
        let bytes = Array("é🙂".utf8)  // 2 + 4 bytes
        #expect(decoder.push([bytes[0]]) == "")
        #expect(decoder.push([bytes[1], bytes[2]]) == "é")
        #expect(decoder.push([bytes[3], bytes[4]]) == "")
        #expect(decoder.push([bytes[5]]) == "🙂")
        #expect(decoder.flush() == "")
    }

    @Test("stop sequences split across pieces are caught and held text is released otherwise")
    func stopFilter() {
        var filter = StopSequenceFilter(stops: ["</end>"])
        #expect(filter.push("Hello <") == ("Hello ", false))
        #expect(filter.push("/en") == ("", false))
        #expect(filter.push("d> more") == ("", true))
        var other = StopSequenceFilter(stops: ["</end>"])
        #expect(other.push("a <b") == ("a <b", false))
        #expect(other.flush("</e") == "</e")
    }
}
