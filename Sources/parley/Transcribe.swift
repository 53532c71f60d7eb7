import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley transcribe`: speech to text.
struct Transcribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Transcribe a WAV file.")

    @Argument(help: "The WAV file.")
    var file: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(
        help:
            "The speech-to-text provider: auto (configured cloud providers, then on-device), local, or a provider: \(ProviderCatalog.standard.selectionNames(for: .speechToText).dropFirst(2).joined(separator: ", "))."
    )
    var provider: String = "auto"

    @Option(name: .customLong("base-url"), help: "The provider's base URL (e.g. a self-hosted OpenAI-compatible server).")
    var baseURL: String?

    @OptionGroup var common: CommonOptions
    @OptionGroup var spoken: LanguageOption

    func validate() throws {
        try validateProvider(provider, for: .speechToText)
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let audio = try readAudio(file)
            guard audio.peak >= 1e-4 else { throw ConversationFailure.noSpeech(duration: audio.duration) }
            let stt = try await common.runtime().speechToText(ProviderSelection(provider, baseURL: baseURL))
            try await ensureReady([stt])
            let clock = ContinuousClock()
            let start = clock.now
            let language = try spoken.setting ?? .english
            let transcript = try await stt.transcribe(audio, options: TranscriptionOptions(language: language.transcriptionLanguage))
            let elapsed = (clock.now - start).milliseconds
            if json {
                struct Document: Encodable {
                    var text: String
                    var segments: [[String: String]]
                    var provider: String
                    var language: String?
                    var audio_seconds: Double
                    var elapsed_ms: Double
                }
                let document = Document(
                    text: transcript.text,
                    segments: transcript.segments.map { ["start": String($0.start), "end": String($0.end), "text": $0.text] },
                    provider: (transcript.provider ?? stt.identity).description, language: transcript.language, audio_seconds: audio.duration,
                    elapsed_ms: elapsed)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(document), as: UTF8.self))
            } else {
                print(transcript.text)
            }
        } catch {
            throw fail(error)
        }
    }
}
