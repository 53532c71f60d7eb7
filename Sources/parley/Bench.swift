import ArgumentParser
import Foundation
import ParleyCore
import ParleyLocal

/// `parley bench`: per-stage timings of `parley talk`, next to the engines called directly
/// (whisper.cpp and llama.cpp through a minimal C harness, espeak-ng as a bare process) on the
/// same inputs in the same run, so Parley's overhead is a ratio, not a guess.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure per-stage timings of a voice turn against the engines called directly.",
        discussion: "Build the harness first: Benchmarks/run does both.")

    @Option(name: .shortAndLong, help: "The spoken question (default: the sample made by scripts/setup).")
    var input: String?

    @Option(help: "The engine harness built from Benchmarks/engine_harness.c.")
    var harness: String

    @Option(help: "Measured runs after one warm-up run.")
    var runs: Int = 5

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard runs > 0 else { throw ValidationError("--runs must be at least 1.") }
        guard FileManager.default.isExecutableFile(atPath: harness) else {
            throw ValidationError("No engine harness at \(harness); build it with Benchmarks/run.")
        }
    }

    /// One measured run: Parley's stages and the engines' own times on the same inputs.
    struct Sample: Codable {
        var parley: TurnResult.Timings
        var engineSTT: Double
        var engineLLM: Double
        var engineLLMFirstToken: Double
        var engineTTS: Double
        var outputTokens: Int
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let paths = ParleyPaths.current()
            let audio = try readAudio(input ?? paths.sampleQuestion.path)
            var samples: [Sample] = []
            var transcript = "", reply = ""
            for index in 0...runs {
                let sample = try await measure(audio, paths: paths, transcript: &transcript, reply: &reply)
                if index > 0 { samples.append(sample) }  // run 0 warms caches and page-ins
            }
            print(report(samples, transcript: transcript, reply: reply))
        } catch {
            throw fail(error)
        }
    }

    private func measure(_ audio: AudioBuffer, paths: ParleyPaths, transcript: inout String, reply: inout String) async throws -> Sample {
        // Fresh engines each run, loaded before timing: the harness also starts from an empty
        // context, and model loading is not part of a turn.
        let engines = LocalEngines(paths: paths, overrides: common.overrides)
        try await ensureReady([engines.stt, engines.llm, engines.tts])
        try await engines.stt.load()
        try await engines.llm.load()
        var configuration = VoicePipeline.Configuration()
        configuration.sampling.temperature = 0
        configuration.sampling.maxTokens = 128
        let pipeline = VoicePipeline(vad: try engines.voiceActivityDetector().activeDetector(), stt: engines.stt, llm: engines.llm, tts: engines.tts,
                                     configuration: configuration)
        guard let turn = try await pipeline.run(audio).first else { throw VoicePipeline.Failure.nothingTranscribed }
        transcript = turn.transcript
        reply = turn.reply

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
        let llama = try await harnessJSON(["llama", engines.llm.configuration.modelPath, promptFile.path,
                                           String(max(1, turn.usage.outputTokens)), String(common.threads)])

        // espeak-ng speaking the whole reply in one process.
        let clock = ContinuousClock()
        let start = clock.now
        let espeak = try await runProcess("espeak-ng", ["--stdout", "--stdin", "-v", common.voice ?? "en-us"], input: Data(turn.reply.utf8))
        let engineTTS = (clock.now - start).milliseconds
        guard espeak.status == 0 else { throw ValidationError("espeak-ng failed in the benchmark") }

        return Sample(parley: turn.timings,
                      engineSTT: whisper["transcribe_ms"] ?? 0,
                      engineLLM: llama["total_ms"] ?? 0,
                      engineLLMFirstToken: llama["first_token_ms"] ?? 0,
                      engineTTS: engineTTS,
                      outputTokens: turn.usage.outputTokens)
    }

    private func harnessJSON(_ arguments: [String]) async throws -> [String: Double] {
        let output = try await runProcess(harness, arguments)
        guard output.status == 0,
              let object = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any] else {
            throw ValidationError("The engine harness failed: \(String(decoding: output.standardError, as: UTF8.self))")
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    private func report(_ samples: [Sample], transcript: String, reply: String) -> String {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let rows: [(String, Double, Double?)] = [
            ("vad (silero, whole file)", median(samples.map(\.parley.vad)), nil),
            ("stt", median(samples.map(\.parley.stt)), median(samples.map(\.engineSTT))),
            ("llm first token", median(samples.map(\.parley.llmFirstToken)), median(samples.map(\.engineLLMFirstToken))),
            ("llm whole reply", median(samples.map(\.parley.llmTotal)), median(samples.map(\.engineLLM))),
            ("tts (all sentences)", median(samples.map(\.parley.tts)), median(samples.map(\.engineTTS))),
            ("first audio after the question", median(samples.map { $0.parley.stt + $0.parley.firstAudio }), nil),
            ("turn (stt → last audio)", median(samples.map(\.parley.total)),
             median(samples.map { $0.engineSTT + $0.engineLLM + $0.engineTTS })),
        ]
        if json {
            var object: [String: Any] = ["runs": samples.count, "transcript": transcript, "reply": reply,
                                         "output_tokens": samples.first?.outputTokens ?? 0]
            object["stages"] = rows.map { row -> [String: Any] in
                var entry: [String: Any] = ["stage": row.0, "parley_ms": row.1]
                if let engine = row.2 { entry["engine_ms"] = engine; entry["ratio"] = engine > 0 ? row.1 / engine : 0 }
                return entry
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        var lines = [
            "Question: \(transcript)", "Answer:   \(reply)",
            "Median of \(samples.count) runs, \(common.threads) threads; engines called directly on the same inputs in the same run.",
            "stage".padding(toLength: 34, withPad: " ", startingAt: 0) + "   parley ms   engine ms   ratio",
        ]
        for (name, parley, engine) in rows {
            let engineText = engine.map { String(format: "%9.1f", $0) } ?? "        –"
            let ratio = engine.map { $0 > 0 ? String(format: "%7.2f", parley / $0) : "      –" } ?? "      –"
            lines.append(name.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: "  %10.1f", parley) + "   " + engineText + "   " + ratio)
        }
        lines.append("The turn's engine figure is the sum of the engines' own times; Parley overlaps TTS with generation.")
        return lines.joined(separator: "\n")
    }
}

/// Runs a program (a name on PATH or a path) and collects its output.
func runProcess(_ program: String, _ arguments: [String], input: Data = Data()) async throws -> ChildProcess.Output {
    guard let path = ChildProcess.locate(program) else { throw ValidationError("\(program) is not installed or not on PATH.") }
    return try await ChildProcess.run(path, arguments: arguments, input: input)
}
