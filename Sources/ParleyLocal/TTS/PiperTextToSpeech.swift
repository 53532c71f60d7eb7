import Foundation
import ParleyCore

/// On-device neural speech: Piper voices run by sherpa-onnx (Apache-2.0, with its own ONNX
/// Runtime), given phonemes by the espeak-ng program.
///
/// sherpa-onnx 2.x holds no espeak-ng code: it takes phonemes as code points. Parley gets them
/// from `espeak-ng -q --ipa`, a separate process, so no GPL code is linked into Parley's
/// libraries. Speech is made sentence by sentence, each sentence's audio yielded as soon as it
/// is ready. A voice loads on first use and stays loaded; work runs on the actor's own thread,
/// taking turns with whisper.cpp and llama.cpp (``ComputeLane``).
public actor PiperTextToSpeech: TextToSpeechProvider {
    public nonisolated let identity: ProviderIdentity
    /// The voices it can speak with, the default first.
    public nonisolated let voices: [PiperVoice]
    /// Where the voices' copies prepared for sherpa-onnx are kept.
    public nonisolated let cache: URL
    /// CPU threads of the ONNX Runtime.
    public nonisolated let threads: Int
    /// The folder the voices were looked for in (for messages).
    public nonisolated let folder: URL
    private nonisolated let phonemizer: EspeakPhonemizer
    private let executor = ThreadExecutor(name: "parley.piper")
    private var loaded: [PiperVoice: (context: SherpaVoiceContext, configuration: PiperVoiceConfiguration)] = [:]

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider over the Piper voices in `folder` (see ``PiperVoice/installed(in:)``);
    /// `defaultVoice` names the one used when a request names none (else `en_US-joe-medium`
    /// when installed, else the first). Nothing is loaded until the first request.
    public init(folder: URL, cache: URL, defaultVoice: String? = nil, threads: Int = 1, espeak: String = "espeak-ng") {
        var found = PiperVoice.installed(in: folder)
        let preferred = defaultVoice.flatMap { name in found.firstIndex { $0.answers(to: name) } }
            ?? found.firstIndex { $0.name == "en_US-joe-medium" }
        if let preferred { found.insert(found.remove(at: preferred), at: 0) }
        self.voices = found
        self.folder = folder
        self.cache = cache
        self.threads = max(1, threads)
        self.phonemizer = EspeakPhonemizer(executable: espeak)
        self.identity = ProviderIdentity(name: "sherpa-onnx", model: found.first?.name ?? "en_US-joe-medium", isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        guard SherpaVoiceContext.isBuilt else {
            return .unsupported(reason: "the neural voice's engine (sherpa-onnx) is not built for this platform")
        }
        guard ChildProcess.locate(phonemizer.executable) != nil else {
            return .unsupported(reason: "\(phonemizer.executable), which gives the neural voice its phonemes, is not installed (install the espeak-ng package)")
        }
        guard let voice = voices.first, voice.isInstalled else {
            return .missingModel(path: folder.appendingPathComponent("en_US-joe-medium.onnx").path,
                                 hint: "run `parley models pull piper-joe` for the neural voice")
        }
        return .ready
    }

    /// The voice `name` names (`nil`: the default).
    public nonisolated func voice(named name: String?) throws(UnsupportedVoiceError) -> PiperVoice {
        let match = name.map { name in voices.first { $0.answers(to: name) } } ?? voices.first
        guard let match else {
            throw UnsupportedVoiceError(provider: identity.description, voice: name ?? "(default)", available: voices.map(\.speaker))
        }
        return match
    }

    /// Loads `voice` now (otherwise it loads on its first sentence).
    public func load(_ voice: PiperVoice) throws(PiperVoiceError) {
        _ = try loadedVoice(voice)
    }

    private func loadedVoice(_ voice: PiperVoice) throws(PiperVoiceError) -> (context: SherpaVoiceContext, configuration: PiperVoiceConfiguration) {
        if let ready = loaded[voice] { return ready }
        guard voice.isInstalled else { throw .noVoice(folder: folder.path) }
        let configuration = try PiperVoiceConfiguration.read(voice.configuration)
        let files = try SherpaVoiceFiles.prepare(voice, configuration: configuration, cache: cache)
        let context = try SherpaVoiceContext(files: files, configuration: configuration, threads: threads)
        loaded[voice] = (context, configuration)
        return (context, configuration)
    }

    public nonisolated func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        .producing { continuation in
            // OpenAI's voice names (alloy, nova …) mean this engine's default voice.
            let voice = try self.voice(named: options.customVoice)
            var chunker = SentenceChunker()
            var sentences = chunker.append(text)
            if let rest = chunker.finish() { sentences.append(rest) }
            guard !sentences.isEmpty else { throw ProviderError.invalidInput("There is no text to speak.") }
            for sentence in sentences {
                try Task.checkCancellation()
                continuation.yield(try await self.speak(sentence, voice: voice, rate: options.rate))
            }
        }
    }

    /// Speaks one sentence.
    func speak(_ sentence: String, voice: PiperVoice, rate: Double) async throws -> AudioBuffer {
        let (context, configuration) = try loadedVoice(voice)
        let phonemes = try await phonemizer.phonemes(sentence, voice: configuration.espeakVoice)
        return try render(phonemes, voice: voice, rate: rate)
    }

    /// The audio of `phonemes` (IPA) in `voice`; code points the voice has no id for are left out.
    func render(_ phonemes: String, voice: PiperVoice, rate: Double) throws -> AudioBuffer {
        let (context, configuration) = try loadedVoice(voice)
        let known = configuration.phonemes
        let codepoints = phonemes.unicodeScalars.filter { known.contains($0) }.map { Int32(bitPattern: $0.value) }
        guard !codepoints.isEmpty else { return AudioBuffer(samples: [], sampleRate: context.sampleRate) }
        let speed = Float(max(0.25, min(4, rate)))
        guard let samples = ComputeLane.shared.run({ context.generate(codepoints, speed: speed) }) else {
            throw PiperVoiceError.synthesisFailed(voice: voice.name)
        }
        return AudioBuffer(samples: samples, sampleRate: context.sampleRate)
    }
}
