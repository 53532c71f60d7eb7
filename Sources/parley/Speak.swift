import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley speak`: text to speech.
struct Speak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Speak text into a WAV file.")

    @Argument(help: "The text to speak.")
    var text: String

    @Option(name: .shortAndLong, help: "The WAV file to write.")
    var output: String

    @Option(help: "Speaking rate relative to normal.")
    var rate: Double = 1.0

    @Option(
        help:
            "The text-to-speech provider: auto (configured cloud and self-hosted providers, then the neural voice and espeak-ng on device), local (the on-device ones), or a provider: \(ProviderCatalog.standard.selectionNames(for: .textToSpeech).dropFirst(2).joined(separator: ", "))."
    )
    var provider: String = "auto"

    @Option(name: .customLong("base-url"), help: "The provider's base URL (e.g. a Piper server).")
    var baseURL: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("There is no text to speak.")
        }
        guard rate > 0.2, rate < 4 else { throw ValidationError("--rate must be between 0.2 and 4.") }
        try validateOutput(output)
        try validateProvider(provider, for: .textToSpeech)
    }

    func run() async throws {
        common.bootstrapLogging()
        do {
            let tts = try await common.runtime().textToSpeech(ProviderSelection(provider, baseURL: baseURL))
            try await ensureReady([tts])
            let audio = try await tts.synthesizeAll(text, options: SpeechOptions(voice: common.voice, rate: rate))
            try WAV.write(audio, to: URL(fileURLWithPath: output))
            print(String(format: "Wrote %.1f s of speech to %@ (%@).", audio.duration, output, tts.identity.description))
        } catch {
            throw fail(error)
        }
    }
}
