import ArgumentParser
import Foundation
import ParleyCore
import ParleyProcess
import ParleyRuntime

/// `parley bench`: the latency of spoken turns over a set of questions — time to the final
/// transcript and to the first audio after the end of speech, p50 and p95 — next to the
/// engines called directly (whisper.cpp and llama.cpp through a minimal C harness, espeak-ng
/// as a bare process) on the same inputs in the same run, so Parley's overhead and what
/// streaming saves are ratios, not guesses.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the latency of spoken turns against the engines called directly.",
        discussion: "Build the harness first: Benchmarks/run does both.")

    /// The spoken questions used when no --input is given.
    static let questions = [
        "What is the capital of France?", "Who wrote Romeo and Juliet?", "What colour is the sky?",
        "How many legs does a spider have?", "What is the largest planet in the solar system?",
        "What is the capital of Japan?",
    ]

    @Option(name: .shortAndLong, help: "A spoken question (repeatable; default: a set of questions spoken by espeak-ng).")
    var input: [String] = []

    @Option(help: "The engine harness built from Benchmarks/engine_harness.c.")
    var harness: String

    @Option(help: "Passes over the question set after one warm-up question.")
    var runs: Int = 2

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard runs > 0 else { throw ValidationError("--runs must be at least 1.") }
        guard FileManager.default.isExecutableFile(atPath: harness) else {
            throw ValidationError("No engine harness at \(harness); build it with Benchmarks/run.")
        }
    }

    /// One measured turn: Parley's latencies and the engines' own times on the same inputs.
    struct Sample: Codable {
        var question: String
        var parley: TurnResult.Latency
        var parleyLLMTotal: Double
        var engineSTT: Double
        var engineLLMFirstToken: Double
        var engineLLM: Double
        var engineTTSFirstSentence: Double
        var engineTTS: Double
        var outputTokens: Int
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            // The on-device engines, measured against the same engines called directly.
            let engines = try await common.runtime().engines
            try await ensureReady([engines.stt, engines.llm, engines.tts])
            try await engines.stt.load()
            try await engines.llm.load()
            var spoken: [(String, AudioBuffer)] = []
            if input.isEmpty {
                for question in Self.questions {
                    let voice = try await engines.tts.synthesizeAll(question).resampled(to: 16_000)
                    let pause = [Float](repeating: 0, count: 16_000 * 3 / 10)
                    spoken.append((question, AudioBuffer(samples: pause + voice.samples + pause + pause + pause + pause + pause, sampleRate: 16_000)))
                }
            } else {
                spoken = try input.map { ($0, try readAudio($0)) }
            }
            var samples: [Sample] = []
            _ = try await measure(spoken[0], engines: engines)  // warms caches and page-ins
            for _ in 0..<runs {
                for question in spoken { samples.append(try await measure(question, engines: engines)) }
            }
            print(report(samples))
        } catch {
            throw fail(error)
        }
    }

    private func measure(_ question: (String, AudioBuffer), engines: OnDeviceEngines) async throws -> Sample {
        var configuration = ConversationConfiguration(duplex: .half)
        configuration.sampling.temperature = 0
        configuration.sampling.maxTokens = 64
        let conversation = ConversationSession(
            vad: try engines.voiceActivityDetector().activeDetector(), stt: engines.stt, llm: engines.llm, tts: engines.tts,
            output: RecordingOutput(clock: ContinuousClock(), realtime: false), configuration: configuration)
        let audio = question.1
        guard let turn = try await conversation.run(AudioFrames.from(audio, realtime: false)).first else {
            throw ConversationFailure.nothingTranscribed
        }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        // whisper.cpp on exactly the audio Parley transcribed (the VAD segment at 16 kHz).
        let speech = audio.slice(turn.segment.start..<turn.segment.end).resampled(to: 16_000)
        let samplesFile = scratch.appendingPathComponent("speech.f32")
        try speech.samples.withUnsafeBytes { try Data($0).write(to: samplesFile) }
        let whisper = try await harnessJSON(["whisper", engines.stt.modelPath, samplesFile.path, String(common.threads)])

        // llama.cpp on the same templated prompt, generating as many tokens as Parley did.
        let history: [ChatMessage] = [.system(configuration.systemPrompt), .user(turn.transcript)]
        let promptFile = scratch.appendingPathComponent("prompt.txt")
        try Data(try await engines.llm.renderedPrompt(for: history).utf8).write(to: promptFile)
        let llama = try await harnessJSON([
            "llama", engines.llm.configuration.modelPath, promptFile.path,
            String(max(1, turn.usage.outputTokens)), String(common.threads),
        ])

        // espeak-ng speaking the first sentence, then the whole reply, each in one process.
        var chunker = SentenceChunker()
        let first = chunker.append(turn.reply + " ").first ?? turn.reply
        let engineFirst = try await timeEspeak(first)
        let engineAll = try await timeEspeak(turn.reply)

        return Sample(
            question: question.0, parley: turn.latency, parleyLLMTotal: turn.timings.llmTotal,
            engineSTT: whisper["transcribe_ms"] ?? 0,
            engineLLMFirstToken: llama["first_token_ms"] ?? 0, engineLLM: llama["total_ms"] ?? 0,
            engineTTSFirstSentence: engineFirst, engineTTS: engineAll, outputTokens: turn.usage.outputTokens)
    }

    private func timeEspeak(_ text: String) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let espeak = try await runProcess("espeak-ng", ["--stdout", "--stdin", "-v", common.voice ?? "en-us"], input: Data(text.utf8))
        guard espeak.status == 0 else { throw ValidationError("espeak-ng failed in the benchmark") }
        return (clock.now - start).milliseconds
    }

    private func harnessJSON(_ arguments: [String]) async throws -> [String: Double] {
        let output = try await runProcess(harness, arguments)
        guard output.status == 0,
            let object = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
        else {
            throw ValidationError("The engine harness failed: \(String(decoding: output.standardError, as: UTF8.self))")
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    /// The value below which `fraction` of `values` lie (nearest rank).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    private func report(_ samples: [Sample]) -> String {
        // Times from the end of the turn (the endpoint), Parley's and the bare engines'.
        let rows: [(String, [Double], [Double]?)] = [
            ("final transcript", samples.map(\.parley.finalTranscript), samples.map(\.engineSTT)),
            ("first token", samples.map(\.parley.firstToken), samples.map { $0.engineSTT + $0.engineLLMFirstToken }),
            (
                "first audio", samples.map(\.parley.firstAudio),
                samples.map { $0.engineSTT + $0.engineLLMFirstToken + $0.engineTTSFirstSentence }
            ),
            (
                "first audio after final transcript", samples.map { $0.parley.firstAudio - $0.parley.finalTranscript },
                samples.map { $0.engineLLMFirstToken + $0.engineTTSFirstSentence }
            ),
            (
                "sequential engines, no streaming", samples.map(\.parley.firstAudio),
                samples.map { $0.engineSTT + $0.engineLLM + $0.engineTTS }
            ),
        ]
        func stats(_ values: [Double]) -> (Double, Double) { (Self.percentile(values, 0.5), Self.percentile(values, 0.95)) }
        if json {
            var object: [String: Any] = ["turns": samples.count, "threads": common.threads]
            object["rows"] = rows.map { row -> [String: Any] in
                let (p50, p95) = stats(row.1)
                var entry: [String: Any] = ["measure": row.0, "parley_p50_ms": p50, "parley_p95_ms": p95]
                if let engine = row.2 {
                    let (e50, e95) = stats(engine)
                    entry["engines_p50_ms"] = e50
                    entry["engines_p95_ms"] = e95
                    entry["ratio_p50"] = e50 > 0 ? p50 / e50 : 0
                }
                return entry
            }
            object["samples"] = samples.map {
                [
                    "question": $0.question, "first_audio_ms": $0.parley.firstAudio,
                    "final_transcript_ms": $0.parley.finalTranscript, "output_tokens": $0.outputTokens,
                ]
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        var lines = [
            "\(samples.count) spoken turns (\(Set(samples.map(\.question)).count) questions), \(common.threads) threads; times in ms from the end of the turn",
            "(the endpoint, after the end silence); engines called directly on the same inputs in the same run.",
            "measure".padding(toLength: 36, withPad: " ", startingAt: 0) + "parley p50   p95   engines p50   p95   ratio p50",
        ]
        for (name, parley, engine) in rows {
            let (p50, p95) = stats(parley)
            var line = name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%10.0f %5.0f", p50, p95)
            if let engine {
                let (e50, e95) = stats(engine)
                line += String(format: "   %11.0f %5.0f   %9.2f", e50, e95, e50 > 0 ? p50 / e50 : 0)
            }
            lines.append(line)
        }
        lines.append("'first audio' for the engines is whisper + llama's first token + espeak-ng's first sentence, a floor: the")
        lines.append("model must finish a sentence before it can be spoken. 'sequential' is what a pipeline without streaming")
        lines.append("would take to its first audio: whisper + the whole reply + speaking all of it.")
        return lines.joined(separator: "\n")
    }
}

/// Runs a program (a name on PATH or a path) and collects its output.
func runProcess(_ program: String, _ arguments: [String], input: Data = Data()) async throws -> ChildProcess.Output {
    guard let path = ChildProcess.locate(program) else { throw ValidationError("\(program) is not installed or not on PATH.") }
    return try await ChildProcess.run(path, arguments: arguments, input: input)
}
