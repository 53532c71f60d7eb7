import Logging

/// Speech-to-text over an ordered list of providers (e.g. Deepgram → AssemblyAI → whisper.cpp):
/// unavailable or resting providers are skipped with a warning, and a failed transcription is
/// replayed whole on the next provider (nothing of a transcript is delivered before it is done).
public struct SpeechToTextChain<C: Clock>: SpeechToTextProvider where C.Duration == Duration {
    public let identity: ProviderIdentity
    /// The providers, most preferred first.
    public let providers: [any SpeechToTextProvider]
    private let failover: Failover<C>

    /// Creates a chain.
    public init(providers: [any SpeechToTextProvider], health: ProviderHealth<C>, logger: Logger = Logger(label: "parley.chain.stt")) {
        self.providers = providers
        self.failover = Failover(capability: "STT", health: health, logger: logger)
        self.identity = ProviderIdentity(
            name: "chain", model: providers.map(\.identity.description).joined(separator: " → "),
            isLocal: providers.allSatisfy(\.identity.isLocal))
    }

    /// The first provider's rate; each provider resamples what it gets anyway.
    public var preferredSampleRate: Int { providers.first?.preferredSampleRate ?? 16_000 }

    public func availability() async -> Availability {
        await firstReady(providers)
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        try await failover.run(providers) { provider in
            try await Self.attributed(provider.transcribe(audio.resampled(to: provider.preferredSampleRate), options: options), to: provider)
        }
    }

    public var members: [any SpeechToTextProvider] { providers }

    /// The first ready provider, as it would transcribe; the chain itself when none is ready.
    public func answerer() async -> any SpeechToTextProvider {
        for candidate in providers where await candidate.availability().isReady { return await candidate.answerer() }
        return self
    }

    /// `transcript`, naming `provider` unless a nested chain already named who served.
    private static func attributed(_ transcript: Transcript, to provider: any SpeechToTextProvider) -> Transcript {
        var transcript = transcript
        if transcript.provider == nil { transcript.provider = provider.identity }
        return transcript
    }

    /// Live when the provider the chain would use now is: the first one admitted (its
    /// circuit not open, ready), as for a whole-buffer transcription.
    public var transcribesLive: Bool {
        get async { await firstAdmitted()?.transcribesLive ?? false }
    }

    /// The first provider that may serve now; skipped ones are warned about (once each).
    private func firstAdmitted() async -> (any SpeechToTextProvider)? {
        var attempts: [ChainExhaustedError.Attempt] = []
        for (index, provider) in providers.enumerated() {
            let next = providers.dropFirst(index + 1).first
            if await failover.admits(provider, next: next, attempts: &attempts) { return provider }
        }
        return nil
    }

    /// A live session on the first provider admitted (its circuit not open, ready), when it
    /// transcribes live; the audio is also recorded, so if that session fails before its final
    /// transcript, the whole utterance is transcribed by the rest of the chain instead.
    /// Otherwise, whole-buffer transcriptions with failover.
    public func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        let chain = self
        return .producing { continuation in
            let first = await chain.firstAdmitted()
            guard let live = first, await live.transcribesLive else {
                for try await update in chain.transcribeByWindows(stream: frames, options: options, partialInterval: 1.0) {
                    continuation.yield(update)
                }
                return
            }
            let recording = RecordedAudio(sampleRate: chain.preferredSampleRate)
            let (tee, teeSink) = AsyncThrowingStream.makeStream(of: AudioBuffer.self)
            let pump = Task {
                do {
                    for try await frame in frames {
                        await recording.append(frame)
                        teeSink.yield(frame)
                    }
                    teeSink.finish()
                } catch {
                    teeSink.finish(throwing: error)
                }
            }
            defer { pump.cancel() }
            do {
                for try await update in live.transcribe(stream: tee, options: options) {
                    if case .final(let transcript) = update {
                        continuation.yield(.final(Self.attributed(transcript, to: live)))
                    } else {
                        continuation.yield(update)
                    }
                }
                await chain.failover.succeeded(live)
            } catch  where !Task.isCancelled {
                var attempts: [ChainExhaustedError.Attempt] = []
                let rest = chain.providers.filter { $0.identity != live.identity }
                try await chain.failover.failed(
                    live, next: rest.first, error: error, detail: "; transcribing the whole utterance instead",
                    attempts: &attempts)
                await pump.value
                let audio = await recording.audio
                let transcript = try await chain.failover.run(rest) { provider in
                    try await Self.attributed(provider.transcribe(audio.resampled(to: provider.preferredSampleRate), options: options), to: provider)
                }
                continuation.yield(.final(transcript))
            }
        }
    }
}

/// Audio collected from a stream, for replaying it whole.
private actor RecordedAudio {
    private(set) var audio: AudioBuffer

    init(sampleRate: Int) { audio = AudioBuffer(samples: [], sampleRate: sampleRate) }

    func append(_ frame: AudioBuffer) { audio.appendConverting(frame) }
}

/// Text-to-speech over an ordered list of providers (e.g. ElevenLabs → Piper → espeak-ng).
///
/// Speech is produced sentence by sentence. Each sentence's audio is delivered once the
/// sentence is complete, so when a provider fails part-way through a sentence, the next
/// provider speaks that sentence whole and the listener hears nothing twice and nothing cut.
public struct TextToSpeechChain<C: Clock>: TextToSpeechProvider where C.Duration == Duration {
    public let identity: ProviderIdentity
    /// The providers, most preferred first.
    public let providers: [any TextToSpeechProvider]
    private let failover: Failover<C>

    /// Creates a chain.
    public init(providers: [any TextToSpeechProvider], health: ProviderHealth<C>, logger: Logger = Logger(label: "parley.chain.tts")) {
        self.providers = providers
        self.failover = Failover(capability: "TTS", health: health, logger: logger)
        self.identity = ProviderIdentity(
            name: "chain", model: providers.map(\.identity.description).joined(separator: " → "),
            isLocal: providers.allSatisfy(\.identity.isLocal))
    }

    public func availability() async -> Availability {
        await firstReady(providers)
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let chunks = synthesizeAttributed(text, options: options)
        return .producing { continuation in
            for try await chunk in chunks { continuation.yield(chunk.audio) }
        }
    }

    public var members: [any TextToSpeechProvider] { providers }

    /// Each sentence's audio, named after the provider that spoke it.
    public func synthesizeAttributed(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<SpokenChunk, any Error> {
        .producing { continuation in
            var chunker = SentenceChunker()
            var sentences = chunker.append(text)
            if let rest = chunker.finish() { sentences.append(rest) }
            guard !sentences.isEmpty else { throw ProviderError.invalidInput("There is no text to speak.") }
            for sentence in sentences {
                let chunk = try await failover.run(providers) { provider in
                    SpokenChunk(audio: try await provider.synthesizeAll(sentence, options: options), provider: provider.identity)
                }
                continuation.yield(chunk)
            }
        }
    }
}

/// Ready if any provider is; otherwise every provider's reason.
func firstReady(_ providers: [any Provider]) async -> Availability {
    var reasons: [String] = []
    for provider in providers {
        let availability = await provider.availability()
        if availability.isReady { return .ready }
        reasons.append("\(provider.identity): \(availability)")
    }
    return .unsupported(reason: reasons.isEmpty ? "no providers" : reasons.joined(separator: "; "))
}
