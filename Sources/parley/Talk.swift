import ArgumentParser
import Foundation
import ParleyCore
import ParleyLocal

/// `parley talk`: a spoken question in, a spoken answer out.
struct Talk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the spoken question(s) in a WAV file with speech.",
        discussion: "Finds the speech with the VAD, transcribes it, answers with the language model and speaks the answer. Each stretch of speech followed by a pause of 1.2 s or more is one turn of the conversation.")

    @Option(name: .shortAndLong, help: "The WAV file with the spoken question(s).")
    var input: String

    @Option(name: .shortAndLong, help: "Where to write the spoken answer(s) as WAV.")
    var output: String = "reply.wav"

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(name: .customLong("system-prompt"), help: "The assistant's instructions.")
    var systemPrompt: String = VoicePipeline.Configuration().systemPrompt

    @Option(name: .customLong("max-tokens"), help: "The longest answer in tokens.")
    var maxTokens: Int = 128

    @OptionGroup var common: CommonOptions
    @OptionGroup var model: ModelSelection

    func validate() throws {
        guard maxTokens > 0 else { throw ValidationError("--max-tokens must be at least 1.") }
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let audio = try readAudio(input)
            let engines = LocalEngines(overrides: common.overrides)
            let llm = model.languageModel(local: engines.llm)
            let stt = speechToText("auto", baseURL: nil, local: engines.stt)
            let tts = textToSpeech("auto", baseURL: nil, local: engines.tts)
            try await ensureReady([stt, llm, tts])
            // Load the language model on its own thread while the VAD and STT work.
            let local = engines.llm
            Task { try? await local.load() }
            var configuration = VoicePipeline.Configuration(systemPrompt: systemPrompt)
            configuration.sampling.maxTokens = maxTokens
            configuration.sampling.temperature = 0
            configuration.speech.voice = common.voice
            let pipeline = VoicePipeline(vad: try engines.voiceActivityDetector().activeDetector(), stt: stt, llm: llm, tts: tts, configuration: configuration)
            let printText = !json
            let turns = try await pipeline.run(audio) { turn in
                if printText { TalkReport.printTurn(turn) }
            }
            let spoken = TalkReport.joinReplies(turns)
            try WAV.write(spoken, to: URL(fileURLWithPath: output))
            if json {
                print(try TalkReport.json(turns, output: output))
            } else {
                print(String(format: "Saved the spoken answer to %@ (%.1f s).", output, spoken.duration))
            }
        } catch {
            throw fail(error)
        }
    }
}

/// Formatting of `parley talk`'s results.
enum TalkReport {
    static func printTurn(_ turn: TurnResult) {
        let t = turn.timings
        print("You said:  \(turn.transcript)")
        print("Parley:    \(turn.reply)")
        print("Providers: vad \(turn.providers.vad) · stt \(turn.providers.stt) · llm \(turn.providers.llm) · tts \(turn.providers.tts)")
        print(String(format: "Timings:   vad %.0f ms · stt %.0f ms · first token %.0f ms · first audio %.0f ms · llm %.0f ms · tts %.0f ms · turn %.0f ms",
                     t.vad, t.stt, t.llmFirstToken, t.firstAudio, t.llmTotal, t.tts, t.total))
    }

    /// All replies in order, with half a second of silence between them.
    static func joinReplies(_ turns: [TurnResult]) -> AudioBuffer {
        let rate = turns.first?.replyAudio.sampleRate ?? 22_050
        var joined = AudioBuffer(samples: [], sampleRate: rate)
        for (index, turn) in turns.enumerated() {
            if index > 0 { joined.samples += [Float](repeating: 0, count: rate / 2) }
            joined.appendConverting(turn.replyAudio)
        }
        return joined
    }

    struct Document: Encodable {
        struct Turn: Encodable {
            var transcript: String
            var reply: String
            var providers: TurnResult.Providers
            var timings_ms: TurnResult.Timings
            var speech: [Double]
            var reply_audio_seconds: Double
            var usage: Usage
        }
        var turns: [Turn]
        var output: String
    }

    static func json(_ turns: [TurnResult], output: String) throws -> String {
        let document = Document(
            turns: turns.map {
                .init(transcript: $0.transcript, reply: $0.reply, providers: $0.providers, timings_ms: $0.timings,
                      speech: [$0.segment.startTime, $0.segment.endTime], reply_audio_seconds: $0.replyAudio.duration, usage: $0.usage)
            },
            output: output)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
