/// Speaks each sentence of a reply with a voice for the language it is written in: sentences
/// in ``primaryLanguage`` by ``primary`` (the neural English voice's chain), sentences in any
/// other language by ``other`` (espeak-ng, which speaks over a hundred languages) in its voice
/// for that language.
///
/// The language of each sentence is told by ``TextLanguageIdentifier`` from its words; a
/// sentence whose words do not tell is in ``fallback`` (the conversation's language).
public struct SentenceLanguageVoices: TextToSpeechProvider {
    public let identity: ProviderIdentity
    /// The voice for ``primaryLanguage``.
    public let primary: any TextToSpeechProvider
    /// The language ``primary`` speaks (`en`).
    public let primaryLanguage: String
    /// The voice for every other language.
    public let other: any TextToSpeechProvider
    /// The voice name ``other`` is asked for, by language code.
    public let otherVoice: @Sendable (String) -> String
    /// The language of a sentence whose words do not tell.
    public let fallback: String
    /// Tells a sentence's language.
    public let identifier: TextLanguageIdentifier

    /// Creates the router. `fallback` is the conversation's language (`primaryLanguage` on `auto`).
    public init(
        primary: any TextToSpeechProvider, primaryLanguage: String = "en", other: any TextToSpeechProvider,
        otherVoice: @escaping @Sendable (String) -> String = LocalizedPhrases.espeakVoice, fallback: String,
        identifier: TextLanguageIdentifier = TextLanguageIdentifier()
    ) {
        self.primary = primary
        self.primaryLanguage = primaryLanguage
        self.other = other
        self.otherVoice = otherVoice
        self.fallback = fallback
        self.identifier = identifier
        self.identity = primary.identity
    }

    public func availability() async -> Availability {
        let first = await primary.availability()
        return first.isReady ? first : await other.availability()
    }

    /// One sentence and where it goes.
    public struct Choice: Sendable, Equatable {
        /// The sentence.
        public var sentence: String
        /// Its language.
        public var language: String
        /// Whether ``primary`` speaks it (otherwise ``other``).
        public var isPrimary: Bool
        /// The voice asked for.
        public var voice: String?
    }

    /// The sentences of `text`, each with its language and voice.
    public func choices(for text: String, options: SpeechOptions) -> [Choice] {
        var chunker = SentenceChunker()
        var sentences = chunker.append(text)
        if let rest = chunker.finish() { sentences.append(rest) }
        return sentences.map { sentence in
            let language = identifier.language(of: sentence, fallback: fallback)
            if language == primaryLanguage {
                return Choice(sentence: sentence, language: language, isPrimary: true, voice: options.voice)
            }
            return Choice(sentence: sentence, language: language, isPrimary: false, voice: otherVoice(language))
        }
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let chunks = synthesizeAttributed(text, options: options)
        return .producing { continuation in
            for try await chunk in chunks { continuation.yield(chunk.audio) }
        }
    }

    public func synthesizeAttributed(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<SpokenChunk, any Error> {
        let choices = choices(for: text, options: options)
        let primary = primary, other = other
        return .producing { continuation in
            guard !choices.isEmpty else { throw ProviderError.invalidInput("There is no text to speak.") }
            for choice in choices {
                try Task.checkCancellation()
                let voice = choice.isPrimary ? primary : other
                let spoken = SpeechOptions(voice: choice.voice, rate: options.rate)
                for try await chunk in voice.synthesizeAttributed(choice.sentence, options: spoken) {
                    // The other voice is named by the voice it spoke in ("espeak-ng (it)").
                    var named = chunk
                    if !choice.isPrimary, let voice = choice.voice {
                        named.provider = ProviderIdentity(name: chunk.provider.name, model: voice, isLocal: chunk.provider.isLocal)
                    }
                    continuation.yield(named)
                }
            }
        }
    }
}
