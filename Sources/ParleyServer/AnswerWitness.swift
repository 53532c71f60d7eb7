import ParleyCore
import ParleyRuntime
import Synchronization

/// Notes which provider of a speech chain did the work, for the `x-parley-provider` header
/// and the metrics: the speech chains fail over silently, so each of their providers is
/// wrapped to report its own success.
final class AnswerWitness: Sendable {
    private let answered = Mutex<ProviderIdentity?>(nil)

    /// The provider that served last.
    var provider: ProviderIdentity? { answered.withLock { $0 } }

    func served(_ identity: ProviderIdentity) { answered.withLock { $0 = identity } }
}

/// A speech-to-text provider that reports to a witness when it transcribes.
struct WitnessedSpeechToText: SpeechToTextProvider {
    let inner: any SpeechToTextProvider
    let witness: AnswerWitness

    var identity: ProviderIdentity { inner.identity }
    var preferredSampleRate: Int { inner.preferredSampleRate }
    func availability() async -> Availability { await inner.availability() }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        let transcript = try await inner.transcribe(audio, options: options)
        witness.served(inner.identity)
        return transcript
    }
}

/// A text-to-speech provider that reports to a witness when it starts speaking.
struct WitnessedTextToSpeech: TextToSpeechProvider {
    let inner: any TextToSpeechProvider
    let witness: AnswerWitness

    var identity: ProviderIdentity { inner.identity }
    func availability() async -> Availability { await inner.availability() }

    func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let upstream = inner.synthesize(text, options: options)
        let witness = self.witness
        let identity = inner.identity
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var spoken = false
                    for try await chunk in upstream {
                        if !spoken {
                            spoken = true
                            witness.served(identity)
                        }
                        continuation.yield(chunk)
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

/// A speech provider for one request, with what the metrics and headers need to know.
struct WitnessedProvider<P: Sendable>: Sendable {
    /// The provider (a chain of witnessed providers, or one).
    let provider: P
    /// Who served.
    let witness: AnswerWitness
    /// The providers in the order they would be tried.
    let chain: [ProviderIdentity]
}

extension Runtime where C == ContinuousClock {
    /// Speech to text for `selection`, each provider wrapped so the request knows who served.
    nonisolated func witnessedSpeechToText(_ selection: ProviderSelection) throws -> WitnessedProvider<any SpeechToTextProvider> {
        let witness = AnswerWitness()
        let base = try speechToText(selection)
        guard let chain = base as? SpeechToTextChain<ContinuousClock> else {
            return WitnessedProvider(provider: WitnessedSpeechToText(inner: base, witness: witness), witness: witness, chain: [base.identity])
        }
        let wrapped = SpeechToTextChain(providers: chain.providers.map { WitnessedSpeechToText(inner: $0, witness: witness) },
                                        health: health(of: .speechToText))
        return WitnessedProvider(provider: wrapped, witness: witness, chain: chain.providers.map(\.identity))
    }

    /// Text to speech for `selection`, each provider wrapped so the request knows who served.
    nonisolated func witnessedTextToSpeech(_ selection: ProviderSelection) throws -> WitnessedProvider<any TextToSpeechProvider> {
        let witness = AnswerWitness()
        let base = try textToSpeech(selection)
        guard let chain = base as? TextToSpeechChain<ContinuousClock> else {
            return WitnessedProvider(provider: WitnessedTextToSpeech(inner: base, witness: witness), witness: witness, chain: [base.identity])
        }
        let wrapped = TextToSpeechChain(providers: chain.providers.map { WitnessedTextToSpeech(inner: $0, witness: witness) },
                                        health: health(of: .textToSpeech))
        return WitnessedProvider(provider: wrapped, witness: witness, chain: chain.providers.map(\.identity))
    }
}
