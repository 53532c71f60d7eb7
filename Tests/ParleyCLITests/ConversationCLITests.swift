#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ParleyCore
import ParleyStore
import ParleyTestServers
import ParleyTestLanes
import Testing

/// `parley talk` as a conversation that is saved, and `parley history`, on the real engines.
/// Nested in the command-line suite to share its serialization: each test blocks a thread
/// while the child process runs.
extension ParleyCLITests {
    @Suite("conversations from the command line", .onDeviceEngines)
    struct ConversationCLITests {
        struct TalkDocument: Decodable {
            struct Turn: Decodable {
                var transcript: String
                var reply: String
                var interrupted: Bool
                var latency_ms: [String: Double]
            }
            var turns: [Turn]
            var thread: Int64?
        }

        struct HistoryDocument: Decodable {
            struct Thread: Decodable {
                struct Message: Decodable {
                    var role: String
                    var text: String
                    var raw_transcript: String?
                }
                var id: Int64
                var messages: [Message]
            }
            var threads: [Thread]
        }

        func sample() throws -> URL {
            let url = ParleyPaths.current().sampleConversation
            try #require(FileManager.default.fileExists(atPath: url.path), "Missing \(url.path): run scripts/setup first.")
            return url
        }

        @Test("two questions separated by a pause: two turns, two spoken replies, and history shows them after exit")
        func twoTurnsThenHistory() async throws {
            let database = CLI.temporaryDatabase()
            defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-two-\(UUID()).wav")
            defer { try? FileManager.default.removeItem(at: output) }
            let talk = try await CLI.run(["talk", "--input", try sample().path, "--output", output.path, "--json", "--database", database.path])
            #expect(talk.status == 0, "stderr: \(talk.stderr)")
            let document = try JSONDecoder().decode(TalkDocument.self, from: Data(talk.stdout.utf8))
            try #require(
                document.turns.count == 2, "turns: \(document.turns.map(\.transcript)); two-questions.wav should hold two questions (scripts/setup makes it)")
            #expect(document.turns.first?.transcript.lowercased().contains("france") == true)
            #expect(document.turns.last?.transcript.lowercased().contains("italy") == true)
            #expect(document.turns.first?.reply.contains("Paris") == true)
            #expect(document.turns.allSatisfy { ($0.latency_ms["first_audio"] ?? 0) > ($0.latency_ms["final_transcript"] ?? .infinity) })
            // Two replies with a half-second gap between them.
            #expect(try WAV.read(from: output).duration > 1.5)

            let history = try await CLI.run(["history", "--json", "--database", database.path])
            #expect(history.status == 0, "stderr: \(history.stderr)")
            let saved = try JSONDecoder().decode(HistoryDocument.self, from: Data(history.stdout.utf8))
            let thread = try #require(saved.threads.first)
            #expect(thread.id == document.thread)
            try #require(thread.messages.map(\.role) == ["user", "assistant", "user", "assistant"])
            #expect(thread.messages.map(\.raw_transcript) == [document.turns[0].transcript, nil, document.turns[1].transcript, nil])
            #expect(thread.messages[1].text == document.turns[0].reply)

            // A transcript corrected afterwards keeps the raw one beside it.
            let firstMessage = try #require(try ConversationStore(path: database).messages(in: thread.id).first)
            #expect(
                await CLI.runStatus([
                    "history", "edit", String(firstMessage.id), "What is the capital of France, please?",
                    "--database", database.path,
                ]) == 0)
            let corrected = try #require(try ConversationStore(path: database).messages(in: thread.id).first)
            #expect(corrected.editedText == "What is the capital of France, please?")
            #expect(corrected.rawTranscript == document.turns[0].transcript)

            // A reply worth keeping goes to the stash, linked to its message.
            let reply = try #require(try ConversationStore(path: database).messages(in: thread.id).dropFirst().first)
            #expect(await CLI.runStatus(["history", "stash", "add", "--message", String(reply.id), "--kind", "reply", "--database", database.path]) == 0)
            let stash = try await CLI.run(["history", "stash", "list", "--json", "--database", database.path])
            #expect(stash.stdout.contains(reply.text) && stash.stdout.contains("\"message_id\" : \(reply.id)"), "\(stash.stdout)")
            let item = try #require(try ConversationStore(path: database).stashItems().first)
            #expect(await CLI.runStatus(["history", "stash", "delete", String(item.id), "--database", database.path]) == 0)
            #expect(try ConversationStore(path: database).stashItems().isEmpty)

            // The conversation continues where it stopped; opted in, the questions' audio is kept.
            let again = try await CLI.run([
                "talk", "--input", try sample().path, "--output", output.path, "--json", "--database", database.path,
                "--thread", String(thread.id), "--keep-audio",
            ])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            let store = try ConversationStore(path: database)
            let messages = try store.messages(in: thread.id)
            #expect(messages.count == 8)
            #expect(try store.threads().count == 1)
            #expect(messages.prefix(4).allSatisfy { $0.audioPath == nil })
            let kept = messages.dropFirst(4).filter { $0.role == .user }.compactMap(\.audioPath)
            #expect(kept.count == 2)
            for path in kept { #expect(try WAV.read(from: URL(fileURLWithPath: path)).duration > 1) }
            // Deleting the conversation deletes its audio.
            #expect(await CLI.runStatus(["history", "delete", String(thread.id), "--database", database.path]) == 0)
            #expect(kept.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        }

        @Test("an unknown thread is one clear sentence")
        func unknownThread() async throws {
            let database = CLI.temporaryDatabase()
            defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
            let result = try await CLI.run(["talk", "--input", try sample().path, "--database", database.path, "--thread", "42"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("42"), "stderr: \(result.stderr)")
        }

        @Test("killed with SIGKILL mid-conversation, the turns before are intact and the database opens cleanly")
        func durableAcrossSIGKILL() async throws {
            let database = CLI.temporaryDatabase()
            defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
            // A question, a long pause, the question again, and a long silence, heard in real
            // time: the first turn is saved seconds before the input ends, whatever the load.
            let question = try WAV.read(from: ParleyPaths.current().sampleQuestion)
            func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * Double(question.sampleRate))) }
            let recording = AudioBuffer(samples: question.samples + silence(6) + question.samples + silence(20), sampleRate: question.sampleRate)
            let input = database.deletingLastPathComponent().appendingPathComponent("long.wav")
            try FileManager.default.createDirectory(at: input.deletingLastPathComponent(), withIntermediateDirectories: true)
            try WAV.write(recording, to: input)

            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = ["talk", "--input", input.path, "--realtime", "--output", "/dev/null", "--database", database.path]
            process.environment = ["PARLEY_LLM_MODEL": "smollm2-135m"].merging(ProcessInfo.processInfo.environment) { $1 }
            // What the conversation printed goes to files, to say why if it ends too early.
            let printed = database.deletingLastPathComponent().appendingPathComponent("talk.out")
            let complaints = database.deletingLastPathComponent().appendingPathComponent("talk.err")
            FileManager.default.createFile(atPath: printed.path, contents: nil)
            FileManager.default.createFile(atPath: complaints.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: printed)
            process.standardError = try FileHandle(forWritingTo: complaints)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            // Wait (bounded) until two messages have been written (the first question and its
            // answer, or, if the answer was slow, the answer cut short by the second question).
            var before: [StoredMessage] = []
            for _ in 0..<900 where before.count < 2 && process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
                guard FileManager.default.fileExists(atPath: database.path),
                    let store = try? ConversationStore(path: database),
                    let thread = try? store.threads().first,
                    let messages = try? store.messages(in: thread.thread.id)
                else { continue }
                before = messages
            }
            #expect(
                process.isRunning,
                """
                the conversation ended (status \(process.isRunning ? 0 : process.terminationStatus)) before it could be killed mid-way; \
                it printed: \((try? String(contentsOf: printed, encoding: .utf8)) ?? "") \
                and complained: \((try? String(contentsOf: complaints, encoding: .utf8)) ?? "")
                """)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let store = try ConversationStore(path: database)
            #expect(try store.integrityCheck() == "ok")
            #expect(try store.diagnostics().journalMode == "wal")
            let thread = try #require(try store.threads().first)
            let after = try store.messages(in: thread.thread.id)
            try #require(before.count >= 2)
            // Everything written before the kill is there, unchanged.
            #expect(Array(after.prefix(before.count)) == before)
            #expect(before[0].role == .user)
            #expect(before[0].rawTranscript?.lowercased().contains("france") == true)
        }

        @Test("live audio: raw 16-bit PCM on standard input is a conversation too")
        func standardInput() async throws {
            let audio = try WAV.read(from: ParleyPaths.current().sampleQuestion).resampled(to: 16_000)
            let pcm = audio.samples.reduce(into: Data()) { data, sample in
                var value = Int16(max(-1, min(1, sample)) * 32_767).littleEndian
                withUnsafeBytes(of: &value) { data.append(contentsOf: $0) }
            }
            let input = try CLI.temporaryFile("question.raw", contents: pcm)
            defer { try? FileManager.default.removeItem(at: input) }
            let result = try await CLI.run(["talk", "--input", "-", "--no-save", "--json", "--output", "/dev/null"], standardInput: input)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let document = try JSONDecoder().decode(TalkDocument.self, from: Data(result.stdout.utf8))
            #expect(document.turns.first?.transcript.lowercased().contains("capital") == true)
        }

        @Test("live audio with --speaker and --echo-cancellation: the reply goes to the player as raw PCM, the one turn is answered")
        func speakerAndEchoCancellation() async throws {
            let audio = try WAV.read(from: ParleyPaths.current().sampleQuestion).resampled(to: 16_000)
            let pcm = (audio.samples + [Float](repeating: 0, count: 32_000)).reduce(into: Data()) { data, sample in
                var value = Int16(max(-1, min(1, sample)) * 32_767).littleEndian
                withUnsafeBytes(of: &value) { data.append(contentsOf: $0) }
            }
            let input = try CLI.temporaryFile("question.raw", contents: pcm)
            let played = FileManager.default.temporaryDirectory.appendingPathComponent("parley-played-\(UUID()).raw")
            defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: played) }
            let result = try await CLI.run(
                [
                    "talk", "--input", "-", "--no-save", "--json", "--output", "/dev/null", "--echo-cancellation",
                    "--speaker", "cat > '\(played.path)'",
                ], standardInput: input)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("echo cancellation is off"), "stderr: \(result.stderr)")
            let document = try JSONDecoder().decode(TalkDocument.self, from: Data(result.stdout.utf8))
            #expect(document.turns.count == 1)
            #expect(document.turns.first?.transcript.lowercased().contains("capital") == true)
            #expect(document.turns.first?.reply.isEmpty == false)
            // The player got the spoken reply (22,050 Hz, 16-bit), written in real time.
            let bytes = (try? Data(contentsOf: played)) ?? Data()
            #expect(Double(bytes.count) / 44_100 > ReadyChime.duration + 0.5, "\(bytes.count) bytes")
            #expect(bytes.contains { $0 != 0 })
            // The ready chime opened it: sound from its first tenth of a second on.
            #expect(bytes.prefix(44_100 / 5).dropFirst(44_100 / 10).contains { $0 != 0 })
        }

        @Test(
            """
            the first real-time talk in a fresh data directory keeps the instructions' memory (with the built-in tools) on disk; \
            the next scores its first pause on only the new words
            """)
        func realtimeKeepsPromptMemory() async throws {
            // A fresh data directory with the machine's models and samples.
            let installed = ParleyPaths.current()
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-home-\(UUID())", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            for folder in [installed.models, installed.samples] {
                try FileManager.default.createSymbolicLink(at: home.appendingPathComponent(folder.lastPathComponent), withDestinationURL: folder)
            }
            let prompts = home.appendingPathComponent("cache/prompts", isDirectory: true)
            // The question and a pause long enough to be scored (its transcription may take seconds
            // on a busy machine: the turn ends after 3 s of silence) and end the turn.
            let question = try WAV.read(from: installed.sampleQuestion)
            let recording = AudioBuffer(
                samples: question.samples + [Float](repeating: 0, count: 5 * question.sampleRate),
                sampleRate: question.sampleRate)
            let input = home.appendingPathComponent("question-and-pause.wav")
            try WAV.write(recording, to: input)

            /// The tokens each pause's score evaluated, from a verbose run's log.
            func scores(_ log: String) -> [Int] {
                log.split(separator: "\n").compactMap { line in
                    guard let range = line.range(of: "scored the end of the turn on ") else { return nil }
                    return Int(line[range.upperBound...].prefix { $0.isNumber })
                }
            }
            func keptFiles() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: prompts.path)) ?? []).filter { $0.hasPrefix("prompt-") }
            }
            let arguments = ["talk", "--input", input.path, "--realtime", "--end-silence", "3", "--no-save", "--output", "/dev/null", "--verbose"]
            let first = try await CLI.run(arguments, environment: ["PARLEY_HOME": home.path])
            #expect(first.status == 0, "stderr: \(first.stderr.suffix(2_000))")
            #expect(keptFiles().count == 1, "kept: \(keptFiles())")
            // The instructions with the built-in tools are a few hundred tokens.
            let firstScores = scores(first.stderr)
            try #require(!firstScores.isEmpty, "no pause was scored: \(first.stderr.suffix(2_000))")

            let second = try await CLI.run(arguments, environment: ["PARLEY_HOME": home.path])
            #expect(second.status == 0, "stderr: \(second.stderr.suffix(2_000))")
            #expect(second.stderr.contains("instruction tokens back from"), "\(second.stderr.suffix(2_000))")
            let secondScores = scores(second.stderr)
            try #require(!secondScores.isEmpty, "no pause was scored: \(second.stderr.suffix(2_000))")
            // Only the question's words (a dozen tokens or so) beyond what came back from disk.
            #expect((secondScores.first ?? .max) <= 24, "scores: \(secondScores); the first run's: \(firstScores)")
            #expect(keptFiles().count == 1, "kept: \(keptFiles())")
        }
    }
}

extension ParleyCLITests {
    @Test("settings come from the environment, then the settings file; a broken file is one clear sentence")
    func settingsFile() async throws {
        let events = [
            #"{"choices":[{"index":0,"delta":{"content":"From the file's server."},"finish_reason":"stop"}]}"#, "[DONE]",
        ].map { "data: \($0)\n\n" }.joined()
        let server = try await WireServer.start { request in
            request.path == "/v1/chat/completions"
                ? .stream(contentType: "text/event-stream", chunks: [Data(events.utf8)])
                : .json(200, #"{"data":[{"id":"from-file"}]}"#)
        }
        defer { server.stop() }
        let file = try CLI.temporaryFile(
            "config.json",
            contents: Data(
                """
                {"openai": {"base": {"url": "\(server.baseURL)/v1"}, "model": "from-file", "api": {"key": "sk-file-secret"}},
                 "parley": {"budget": {"monthly": 200, "alert": 150.5}}}
                """.utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let clean = [
            "PARLEY_CONFIG": file.path, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": "",
            "PARLEY_DATABASE": database.path,
        ]

        let fromFile = try await CLI.run(["chat", "Capital of France?"], environment: clean)
        #expect(fromFile.status == 0, "stderr: \(fromFile.stderr)")
        #expect(fromFile.stdout.contains("From the file's server."))
        var sent = try #require(await server.requests.last { $0.path == "/v1/chat/completions" })
        #expect(sent.json?["model"] as? String == "from-file")
        #expect(sent.headers["authorization"] == "Bearer sk-file-secret")

        // The environment wins over the file.
        let fromEnvironment = try await CLI.run(["chat", "Capital of France?"], environment: clean.merging(["OPENAI_MODEL": "from-env"]) { $1 })
        #expect(fromEnvironment.status == 0, "stderr: \(fromEnvironment.stderr)")
        sent = try #require(await server.requests.last { $0.path == "/v1/chat/completions" })
        #expect(sent.json?["model"] as? String == "from-env")

        let doctor = try await CLI.run(["doctor"], environment: clean)
        #expect(doctor.stdout.contains("Settings: environment, then \(file.path)"))
        #expect(doctor.stdout.contains("Budget: $200.00 a month, alert at $150.50"), "\(doctor.stdout)")
        #expect(!doctor.stdout.contains("sk-file-secret") && !doctor.stderr.contains("sk-file-secret"))

        let broken = try CLI.temporaryFile("broken.json", contents: Data("{\"openai\": ".utf8))
        defer { try? FileManager.default.removeItem(at: broken) }
        expectCleanFailure(try await CLI.run(["chat", "hi"], environment: ["PARLEY_CONFIG": broken.path]), mentioning: "The settings file")
    }
}

extension ParleyCLITests {
    @Test("a monthly budget holds across runs: past it, answers come from the free on-device model")
    func budgetAcrossRuns() async throws {
        let events = [
            #"{"choices":[{"index":0,"delta":{"content":"Paid answer."},"finish_reason":"stop"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3}}"#, "[DONE]",
        ].map { "data: \($0)\n\n" }.joined()
        let server = try await WireServer.start { request in
            request.path == "/v1/chat/completions"
                ? .stream(contentType: "text/event-stream", chunks: [Data(events.utf8)])
                : .json(200, #"{"data":[{"id":"paid"}]}"#)
        }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-budget-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // $1 per output token: one answer (3 tokens) spends $3 of a $2 budget.
        let environment = [
            "OPENAI_BASE_URL": server.baseURL + "/v1", "OPENAI_MODEL": "paid", "OPENAI_API_KEY": "sk-budget",
            "PARLEY_BUDGET_MONTHLY": "2", "PARLEY_PRICE_OPENAI_OUTPUT": "1000000",
            "PARLEY_DATABASE": directory.appendingPathComponent("parley.sqlite").path,
        ]
        let first = try await CLI.run(["chat", "--max-tokens", "16", "What is the capital of France?"], environment: environment)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("Paid answer."))
        #expect(first.stderr.contains("monthly budget of $2.00 reached"))

        let paidRequests = await server.requests.filter { $0.path == "/v1/chat/completions" }.count
        let second = try await CLI.run(["chat", "--max-tokens", "16", "What is the capital of France?"], environment: environment)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(!second.stdout.contains("Paid answer."))
        #expect(second.stdout.contains("Paris"))
        #expect(await server.requests.filter { $0.path == "/v1/chat/completions" }.count == paidRequests)
        let store = try ConversationStore(path: directory.appendingPathComponent("parley.sqlite"))
        #expect(try store.spent(from: .distantPast, to: .distantFuture) == 3)
    }

    @Test("history reads the database the settings file names, as talk writes it")
    func historyUsesSettingsDatabase() async throws {
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: database.deletingLastPathComponent(), withIntermediateDirectories: true)
        let store = try ConversationStore(path: database)
        _ = try store.createThread(title: "kept in the configured database", settings: ThreadSettings())
        let file = try CLI.temporaryFile("config.json", contents: Data(#"{"parley": {"database": "\#(database.path)"}}"#.utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let listed = try await CLI.run(["history"], environment: ["PARLEY_CONFIG": file.path, "PARLEY_DATABASE": ""])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        #expect(listed.stdout.contains("kept in the configured database"), "\(listed.stdout)")
    }
}
