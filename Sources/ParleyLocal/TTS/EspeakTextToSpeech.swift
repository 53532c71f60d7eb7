import Foundation
import ParleyProcess
import ParleyCore

/// System text-to-speech with espeak-ng, run as a separate program.
///
/// espeak-ng is GPL-3.0; Parley never links it, it runs the `espeak-ng` executable and reads
/// the WAV it writes to standard output, so Parley's libraries stay Apache-2.0. Robotic, but
/// always available: the last link of the TTS chain, after the neural voice
/// (``PiperTextToSpeech``).
public struct EspeakTextToSpeech: TextToSpeechProvider {
    public let identity: ProviderIdentity
    /// The program to run (a name looked up on `PATH`, or a path).
    public let executable: String
    /// The espeak-ng voice used when a request names none.
    public let defaultVoice: String
    /// Voices of the neural engine before it in the chain (`joe`, …): a request for one of them
    /// that falls back here is spoken in ``defaultVoice``.
    public let neuralVoices: Set<String>

    /// Creates the provider.
    public init(executable: String = "espeak-ng", defaultVoice: String = "en-us", neuralVoices: Set<String> = []) {
        self.executable = executable
        self.defaultVoice = defaultVoice
        self.neuralVoices = Set(neuralVoices.map { $0.lowercased() })
        self.identity = ProviderIdentity(name: "espeak-ng", model: defaultVoice, isLocal: true)
    }

    public func availability() async -> Availability {
        ChildProcess.locate(executable) != nil
            ? .ready
            : .unsupported(reason: "\(executable) is not installed (install the espeak-ng package)")
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        .producing { continuation in
            var chunker = SentenceChunker()
            var sentences = chunker.append(text)
            if let rest = chunker.finish() { sentences.append(rest) }
            guard !sentences.isEmpty else {
                throw ProviderError.invalidInput("There is no text to speak.")
            }
            for sentence in sentences {
                try Task.checkCancellation()
                continuation.yield(try await speak(sentence, options: options))
            }
        }
    }

    /// The espeak-ng voice for `options`: a voice of its own naming as is, each of OpenAI's
    /// names a distinct variant (``variants``), otherwise the default.
    func voice(for options: SpeechOptions) -> String {
        if let custom = options.customVoice {
            // A neural voice's name is not espeak-ng's: it speaks in its own default.
            return neuralVoices.contains(custom.lowercased()) ? defaultVoice : custom
        }
        return options.standardVoice.map { Self.variants[$0] ?? defaultVoice } ?? defaultVoice
    }

    /// A distinct espeak-ng voice (language and variant) for each of OpenAI's names, by the
    /// gender and accent OpenAI gives them; `alloy`, OpenAI's default, is espeak-ng's own.
    static let variants: [StandardVoice: String] = [
        .alloy: "en-us", .ash: "en-us+m3", .ballad: "en-gb-x-gbclan+m2", .cedar: "en-us+m5", .coral: "en-us+f3",
        .echo: "en-us+m1", .fable: "en-gb-x-rp+m4", .marin: "en-us+f4", .nova: "en-us+f5", .onyx: "en-us+m7",
        .sage: "en-gb-x-rp+f2", .shimmer: "en-us+f1", .verse: "en-gb-scotland+m6",
    ]

    /// Synthesizes one piece of text in one espeak-ng run.
    private func speak(_ text: String, options: SpeechOptions) async throws -> AudioBuffer {
        guard let path = ChildProcess.locate(executable) else {
            throw ProviderError.unavailable(provider: identity.description, await availability())
        }
        let wordsPerMinute = Int((175 * options.rate).rounded())
        let output = try await ChildProcess.run(
            path,
            arguments: ["--stdout", "--stdin", "-v", voice(for: options), "-s", String(max(80, min(450, wordsPerMinute)))],
            input: Data(text.utf8))
        guard output.status == 0 else {
            let message = String(decoding: output.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw ProviderError.engineFailure(provider: identity.description, detail: message.isEmpty ? "exit status \(output.status)" : message)
        }
        do {
            return try WAV.decode(output.standardOutput, streamed: true)
        } catch {
            throw ProviderError.engineFailure(provider: identity.description, detail: "unreadable audio: \(error)")
        }
    }
}
