/// Options for speech synthesis.
public struct SpeechOptions: Sendable, Equatable {
    /// The voice, in the provider's naming; `nil` for its default.
    public var voice: String?
    /// Speaking rate relative to normal (1.0).
    public var rate: Double

    /// Creates options.
    public init(voice: String? = nil, rate: Double = 1.0) {
        self.voice = voice
        self.rate = rate
    }
}

/// A chunk of synthesized speech and the provider that spoke it.
public struct SpokenChunk: Sendable, Equatable {
    /// The audio.
    public var audio: AudioBuffer
    /// Who synthesized it (in a chain, the provider that served, not the chain).
    public var provider: ProviderIdentity

    /// Creates a chunk.
    public init(audio: AudioBuffer, provider: ProviderIdentity) {
        self.audio = audio
        self.provider = provider
    }
}

/// Turns text into speech.
public protocol TextToSpeechProvider: Provider {
    /// Synthesizes `text`, yielding audio chunks as soon as each is ready (at least one per
    /// sentence for engines that work sentence by sentence). Cancelling the consuming task
    /// stops synthesis.
    func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error>

    /// ``synthesize(_:options:)`` with each chunk naming the provider that spoke it. A single
    /// provider names itself (the default); a chain names the provider that served.
    func synthesizeAttributed(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<SpokenChunk, any Error>

    /// The providers that may speak, in the order they are tried: a chain's members, or
    /// itself, the default. The one that serves names itself in each ``SpokenChunk``.
    var members: [any TextToSpeechProvider] { get }
}

extension TextToSpeechProvider {
    public var members: [any TextToSpeechProvider] { [self] }

    public func synthesizeAttributed(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<SpokenChunk, any Error> {
        let identity = self.identity
        let chunks = synthesize(text, options: options)
        return .producing { continuation in
            for try await audio in chunks { continuation.yield(SpokenChunk(audio: audio, provider: identity)) }
        }
    }

    /// Synthesizes `text` completely and returns it as one buffer.
    public func synthesizeAll(_ text: String, options: SpeechOptions = SpeechOptions()) async throws -> AudioBuffer {
        var result: AudioBuffer?
        for try await chunk in synthesize(text, options: options) {
            if result == nil { result = chunk } else { result?.appendConverting(chunk) }
        }
        guard let result else { throw ProviderError.engineFailure(provider: identity.description, detail: "no audio was produced") }
        return result
    }
}

/// OpenAI's built-in voice names, which clients send to any server that speaks OpenAI's API.
/// Each is one of the engine's own voices where the engine has several (espeak-ng maps each
/// to a distinct variant); a provider with a single voice uses its default.
public enum StandardVoice: String, Sendable, CaseIterable {
    /// OpenAI's `alloy`.
    case alloy
    /// OpenAI's `ash`.
    case ash
    /// OpenAI's `ballad`.
    case ballad
    /// OpenAI's `cedar`.
    case cedar
    /// OpenAI's `coral`.
    case coral
    /// OpenAI's `echo`.
    case echo
    /// OpenAI's `fable`.
    case fable
    /// OpenAI's `marin`.
    case marin
    /// OpenAI's `nova`.
    case nova
    /// OpenAI's `onyx`.
    case onyx
    /// OpenAI's `sage`.
    case sage
    /// OpenAI's `shimmer`.
    case shimmer
    /// OpenAI's `verse`.
    case verse

    /// The standard voice named `name` (any case), or `nil` for another name.
    public init?(named name: String) {
        self.init(rawValue: name.lowercased())
    }
}

extension SpeechOptions {
    /// The voice when it is in the provider's own naming: `nil` when none was asked for or
    /// when it is one of OpenAI's names (see ``standardVoice``).
    public var customVoice: String? {
        guard let voice, !voice.isEmpty, StandardVoice(named: voice) == nil else { return nil }
        return voice
    }

    /// The OpenAI voice name asked for, if it is one.
    public var standardVoice: StandardVoice? {
        voice.flatMap(StandardVoice.init(named:))
    }
}
