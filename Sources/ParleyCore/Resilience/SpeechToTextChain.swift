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
        self.identity = ProviderIdentity(name: "chain", model: providers.map(\.identity.description).joined(separator: " → "),
                                         isLocal: providers.allSatisfy(\.identity.isLocal))
    }

    /// The first provider's rate; each provider resamples what it gets anyway.
    public var preferredSampleRate: Int { providers.first?.preferredSampleRate ?? 16_000 }

    public func availability() async -> Availability {
        await firstReady(providers)
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        try await failover.run(providers) { provider in
            try await provider.transcribe(audio.resampled(to: provider.preferredSampleRate), options: options)
        }
    }
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
        self.identity = ProviderIdentity(name: "chain", model: providers.map(\.identity.description).joined(separator: " → "),
                                         isLocal: providers.allSatisfy(\.identity.isLocal))
    }

    public func availability() async -> Availability {
        await firstReady(providers)
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var chunker = SentenceChunker()
                    var sentences = chunker.append(text)
                    if let rest = chunker.finish() { sentences.append(rest) }
                    guard !sentences.isEmpty else { throw ProviderError.invalidInput("There is no text to speak.") }
                    for sentence in sentences {
                        let audio = try await failover.run(providers) { provider in
                            try await provider.synthesizeAll(sentence, options: options)
                        }
                        continuation.yield(audio)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
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
