import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley compare`: one prompt, recording or sentence through every configured provider of a
/// capability at once, side by side.
struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask every configured provider of a capability at once and compare latency, output and cost.",
        discussion: """
            parley compare "What is the capital of France?"      language models
            parley compare --recording question.wav              speech to text
            parley compare --speak "Hello there."                voices (--save-audio DIR keeps each WAV)

            Providers without a key, server or model are listed as unavailable with the reason. Costs come from
            PARLEY_PRICE_<PROVIDER>_INPUT / _OUTPUT (per million tokens), _AUDIO_MINUTE and _MILLION_CHARACTERS.
            """)

    @Argument(help: "The prompt for the language models.")
    var prompt: String?

    @Option(help: "A recording (WAV) for the speech-to-text providers.")
    var recording: String?

    @Option(help: "A sentence for the voices.")
    var speak: String?

    @Option(name: .customLong("save-audio"), help: "With --speak: a folder to write each voice's WAV to.")
    var saveAudio: String?

    @Option(name: .customLong("max-tokens"), help: "The longest answer, in tokens.")
    var maxTokens = 128

    @Flag(help: "Print the results as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        let given = [prompt != nil, recording != nil, speak != nil].filter { $0 }.count
        guard given == 1 else { throw ValidationError("Give exactly one of: a prompt, --recording FILE, or --speak TEXT.") }
        if saveAudio != nil, speak == nil { throw ValidationError("--save-audio goes with --speak.") }
        guard (1...4_096).contains(maxTokens) else { throw ValidationError("--max-tokens must be from 1 to 4096.") }
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let runtime = try await common.runtime()
            let results: [ProviderComparison]
            if let prompt {
                results = await runtime.compareLanguageModels(prompt: prompt, maxTokens: maxTokens)
            } else if let recording {
                results = await runtime.compareSpeechToText(audio: try readAudio(recording))
            } else {
                results = await runtime.compareTextToSpeech(text: speak ?? "")
                if let saveAudio { try save(results, in: saveAudio) }
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(results), as: UTF8.self))
            } else {
                print(Self.table(results))
            }
        } catch {
            throw fail(error)
        }
    }

    private func save(_ results: [ProviderComparison], in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for result in results {
            guard let audio = result.audio else { continue }
            try audio.write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(result.entry).wav"))
        }
    }

    /// The results as aligned columns: provider, first and total milliseconds, cost, output.
    static func table(_ results: [ProviderComparison]) -> String {
        let rows = results.map { result -> [String] in
            let first = result.firstMilliseconds.map { String(format: "%.0f", $0) } ?? "–"
            let total = result.totalMilliseconds.map { String(format: "%.0f", $0) } ?? "–"
            let cost = result.cost.map { $0 == 0 ? "free" : String(format: "$%.5f", $0) } ?? "–"
            let output = result.outcome == .answered ? (result.output ?? "") : "\(result.outcome.rawValue): \(result.detail ?? "")"
            return [result.provider, first, total, cost, output.replacingOccurrences(of: "\n", with: " ")]
        }
        let header = ["provider", "first ms", "total ms", "cost", "output"]
        let widths = (0..<4).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            (0..<4).map { cells[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + cells[4]
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
