import Foundation
import ParleyProcess
import ParleyCore

/// On-device neural speech: Piper voices run by sherpa-onnx (Apache-2.0, with its own ONNX
/// Runtime), given phonemes by the espeak-ng program.
///
/// sherpa-onnx 2.x holds no espeak-ng code: it takes phonemes as code points. Parley gets them
/// from `espeak-ng -q --ipa`, a separate process, so no GPL code is linked into Parley's
/// libraries. Speech is made sentence by sentence, each sentence's audio yielded as soon as it
/// is ready. A voice loads on first use and stays loaded; work runs on the actor's own thread,
/// taking turns with whisper.cpp and llama.cpp (``ComputeLane``).
///
/// With more than one thread allowed, each voice is loaded once per thread count a sentence has
/// wanted (see ``load(_:)``), and a sentence is spoken on as many threads as the cores other
/// processes leave free (``CoreShare``): ONNX Runtime's threads, like ggml's, wait for each
/// other, so on a machine with a core busy one thread is faster than two, and on an idle one
/// two are faster than one.
public actor PiperTextToSpeech: TextToSpeechProvider {
    public nonisolated let identity: ProviderIdentity
    /// The voices it can speak with, the default first.
    public nonisolated let voices: [PiperVoice]
    /// Where the voices' copies prepared for sherpa-onnx are kept.
    public nonisolated let cache: URL
    /// The most CPU threads the ONNX Runtime is given.
    public nonisolated let threads: Int
    /// The folder the voices were looked for in (for messages).
    public nonisolated let folder: URL
    private nonisolated let phonemizer: EspeakPhonemizer
    private let executor = ThreadExecutor(name: "parley.piper")
    private var loaded: [PiperVoice: LoadedVoice] = [:]
    /// A load of a voice's other thread count, in the background.
    private var backgroundLoads: [PiperVoice: Task<Void, Never>] = [:]
    private let loader = VoiceLoader()
    /// The thread count of the last sentence spoken (the tests look).
    private(set) var lastThreads: Int?
    /// Says how many cores are free (the engines' shared sampler unless a test gives its own).
    private nonisolated let cores: CoreShare

    /// A voice ready to speak: a context per thread count, 1 to ``threads``.
    private struct LoadedVoice {
        var configuration: PiperVoiceConfiguration
        var contexts: [Int: SherpaVoiceContext]
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider over the Piper voices in `folder` (see ``PiperVoice/installed(in:)``);
    /// `defaultVoice` names the one used when a request names none (else `en_US-joe-medium`
    /// when installed, else the first). Nothing is loaded until the first request. Each sentence
    /// is spoken on at most `threads` threads, as many as `cores` says are free.
    public init(
        folder: URL, cache: URL, defaultVoice: String? = nil, threads: Int = 1, espeak: String = "espeak-ng",
        cores: CoreShare = .shared
    ) {
        var found = PiperVoice.installed(in: folder)
        let preferred =
            defaultVoice.flatMap { name in found.firstIndex { $0.answers(to: name) } }
            ?? found.firstIndex { $0.name == Tunable.defaultVoiceName }
        if let preferred { found.insert(found.remove(at: preferred), at: 0) }
        self.voices = found
        self.folder = folder
        self.cache = cache
        self.threads = max(1, threads)
        self.cores = cores
        self.phonemizer = EspeakPhonemizer(executable: espeak)
        self.identity = ProviderIdentity(name: "sherpa-onnx", model: found.first?.name ?? Tunable.defaultVoiceName, isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        guard SherpaVoiceContext.isBuilt else {
            return .unsupported(reason: "the neural voice's engine (sherpa-onnx) is not built for this platform")
        }
        guard ChildProcess.locate(phonemizer.executable) != nil else {
            return .unsupported(reason: "\(phonemizer.executable), which gives the neural voice its phonemes, is not installed (install the espeak-ng package)")
        }
        guard let voice = voices.first, voice.isInstalled else {
            return .missingModel(
                path: folder.appendingPathComponent(Tunable.defaultVoiceName + ".onnx").path,
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

    /// Loads `voice` now (otherwise it loads on its first sentence) for as many threads as
    /// there are free cores. Another thread count loads when a sentence first wants it (a core
    /// was busy and is free, or the other way round), on a thread of its own; until it is
    /// loaded the nearest loaded count speaks. Only one count loads at the start, so a
    /// conversation's first turn is not heard beside a second load.
    public func load(_ voice: PiperVoice) throws(PiperVoiceError) {
        _ = try loadedVoice(voice, threads: threadCount(for: voice))
    }

    /// Loads `voice` for every thread count, returning once all are loaded (benchmarks measure
    /// with nothing loading beside them).
    public func loadAll(_ voice: PiperVoice) async throws(PiperVoiceError) {
        try load(voice)
        await settled()
        guard let configuration = loaded[voice]?.configuration else { return }
        let files = try SherpaVoiceFiles.prepare(voice, configuration: configuration, cache: cache)
        for count in 1...threads where loaded[voice]?.contexts[count] == nil {
            let context = try await loader.context(files: files, configuration: configuration, threads: count)
            loaded[voice]?.contexts[count] = context
        }
    }

    /// Waits until no thread count is loading. Call it before the process ends: ONNX Runtime
    /// still loading on another thread while the process exits can crash it.
    public func settled() async {
        while let loading = backgroundLoads.values.first {
            await loading.value
        }
    }

    /// The thread counts `voice` is loaded for (the tests look).
    func loadedThreads(_ voice: PiperVoice) -> Set<Int> {
        Set(loaded[voice].map { Array($0.contexts.keys) } ?? [])
    }

    /// `voice` on `count` threads, loaded if it is not yet.
    private func loadedVoice(
        _ voice: PiperVoice, threads count: Int
    ) throws(PiperVoiceError) -> (context: SherpaVoiceContext, configuration: PiperVoiceConfiguration) {
        if let ready = loaded[voice], let context = ready.contexts[count] { return (context, ready.configuration) }
        guard voice.isInstalled else { throw .noVoice(folder: folder.path) }
        let configuration: PiperVoiceConfiguration
        if let known = loaded[voice]?.configuration {
            configuration = known
        } else {
            configuration = try PiperVoiceConfiguration.read(voice.configuration)
        }
        let files = try SherpaVoiceFiles.prepare(voice, configuration: configuration, cache: cache)
        let context = try SherpaVoiceContext(files: files, configuration: configuration, threads: count)
        loaded[voice, default: LoadedVoice(configuration: configuration, contexts: [:])].contexts[count] = context
        return (context, configuration)
    }

    /// How many threads the next sentence is spoken on: as many cores as are free, at most
    /// ``threads``; a count not yet loaded while another is (a voice loaded by its first
    /// sentence) uses the one that is rather than wait, and starts the wanted count's load.
    private func threadCount(for voice: PiperVoice) -> Int {
        let wanted = threads == 1 ? 1 : cores.threads(upTo: threads)
        guard let contexts = loaded[voice]?.contexts, !contexts.isEmpty, contexts[wanted] == nil else { return wanted }
        loadInBackground(voice, threads: wanted)
        return contexts.keys.min { abs($0 - wanted) < abs($1 - wanted) } ?? wanted
    }

    /// Starts loading `voice` (already loaded for another count) for `count` threads on the
    /// loader's thread, unless a load of it is under way; a failed load is tried again the next
    /// time the count is wanted.
    private func loadInBackground(_ voice: PiperVoice, threads count: Int) {
        guard backgroundLoads[voice] == nil, let configuration = loaded[voice]?.configuration,
            let files = try? SherpaVoiceFiles.prepare(voice, configuration: configuration, cache: cache)
        else { return }
        backgroundLoads[voice] = Task {
            if let context = try? await loader.context(files: files, configuration: configuration, threads: count) {
                loaded[voice]?.contexts[count] = context
            }
            backgroundLoads[voice] = nil
        }
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

    /// Speaks one sentence. Its audio is what a listener waits for: the lane is told it is
    /// coming while the phonemes are made, and it goes before the work waiting there.
    func speak(_ sentence: String, voice: PiperVoice, rate: Double) async throws -> AudioBuffer {
        let lane = ComputeLane.shared
        lane.expectUrgent()
        var announced = true
        // Ended by the synthesis joining the lane's queue, or here when it does not.
        defer { if announced { lane.withdrawUrgent() } }
        let (context, configuration) = try loadedVoice(voice, threads: threadCount(for: voice))
        let phonemes = try await phonemizer.phonemes(sentence, voice: configuration.espeakVoice)
        return try render(phonemes, on: context, configuration: configuration, voice: voice, rate: rate, announced: &announced)
    }

    /// The audio of `phonemes` (IPA) in `voice`, loaded as `context`; code points the voice has
    /// no id for are left out. `announced`: whether the lane was told this synthesis is coming
    /// (``ComputeLane/expectUrgent()``); the announcement ends as it joins the lane's queue, and
    /// `announced` is then false.
    private func render(
        _ phonemes: String, on context: SherpaVoiceContext, configuration: PiperVoiceConfiguration,
        voice: PiperVoice, rate: Double, announced: inout Bool
    ) throws -> AudioBuffer {
        let known = configuration.phonemes
        let codepoints = phonemes.unicodeScalars.filter { known.contains($0) }.map { Int32(bitPattern: $0.value) }
        guard !codepoints.isEmpty else { return AudioBuffer(samples: [], sampleRate: context.sampleRate) }
        let speed = Float(max(0.25, min(4, rate)))
        lastThreads = context.threads
        // A listener waits for this audio: it goes before the engines' other work.
        let ending = announced
        announced = false
        let generated = ComputeLane.shared.run(urgent: true, announced: ending) { context.generate(codepoints, speed: speed) }
        guard let samples = generated else {
            throw PiperVoiceError.synthesisFailed(voice: voice.name)
        }
        return AudioBuffer(samples: samples, sampleRate: context.sampleRate)
    }
}

/// Loads voices on a thread of its own, so that the voice's actor can speak meanwhile.
private actor VoiceLoader {
    private let executor = ThreadExecutor(name: "parley.piper.load")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func context(files: SherpaVoiceFiles, configuration: PiperVoiceConfiguration, threads: Int) throws(PiperVoiceError) -> sending SherpaVoiceContext {
        try SherpaVoiceContext(files: files, configuration: configuration, threads: threads)
    }
}
