import Foundation
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

    /// The espeak-ng voice for a request naming `voice`.
    func espeakVoice(_ voice: String?) -> String {
        guard let voice, !neuralVoices.contains(voice.lowercased()) else { return defaultVoice }
        return voice
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

    /// Synthesizes one piece of text in one espeak-ng run.
    private func speak(_ text: String, options: SpeechOptions) async throws -> AudioBuffer {
        guard let path = ChildProcess.locate(executable) else {
            throw ProviderError.unavailable(provider: identity.description, await availability())
        }
        let wordsPerMinute = Int((175 * options.rate).rounded())
        let output = try await ChildProcess.run(
            path,
            arguments: ["--stdout", "--stdin", "-v", espeakVoice(options.voice), "-s", String(max(80, min(450, wordsPerMinute)))],
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
