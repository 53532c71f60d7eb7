import ParleyCore
import ParleyStore

/// What a conversation made by a ``Runtime`` uses and how it behaves. Unset fields (`nil`)
/// come from the thread being continued, else from the defaults.
public struct ConversationOptions: Sendable {
    /// The language model.
    public var languageModel: ProviderSelection
    /// Speech to text.
    public var speechToText: ProviderSelection
    /// Text to speech.
    public var textToSpeech: ProviderSelection
    /// The assistant's instructions; `nil` keeps a continued thread's, else the default.
    public var systemPrompt: String?
    /// The tools the model may call (``BuiltInTools`` in `parley talk` unless turned off);
    /// `nil`: none.
    public var tools: ToolBox?
    /// Tools the client runs (a realtime client's): their calls end the reply, for the client.
    public var clientTools: [ToolDefinition] = []
    /// Whether and which tools the model may call.
    public var toolChoice: ToolChoice = .auto
    /// The longest reply in tokens; `nil` keeps a continued thread's, else ``defaultMaxTokens``.
    public var maxTokens: Int?
    /// Sampling temperature.
    public var temperature: Double
    /// The voice of the replies (`nil`: the engine's default).
    public var voice: String?
    /// Seconds of silence that end a turn.
    public var endSilence: Double
    /// The longest turn in seconds.
    public var maxTurn: Double
    /// Seconds of speech between partial transcripts; `nil` for none.
    public var partialInterval: Double?
    /// Whether the user can speak over a reply (full) or input waits for each reply (half).
    public var duplex: ConversationConfiguration.Duplex
    /// Whether turns are saved to the store.
    public var saves: Bool
    /// Whether each question's recorded speech is kept with the saved conversation.
    public var keepsAudio: Bool
    /// Whose conversation it is: `Owner.local` (the default) for the command line and a
    /// server without keys, or the API key a server request presented. A new thread is saved
    /// under this owner, and only this owner's threads can be continued.
    public var owner: Owner
    /// Whether the conversation starts listening at once (see
    /// `ConversationConfiguration.startsListening`).
    public var startsListening: Bool
    /// Shows the user each final transcript before it is sent (see
    /// `ConversationConfiguration.reviewTranscript`).
    public var reviewTranscript: (@Sendable (String) async -> String?)?
    /// Ends a turn after a short silence (``shortSilence`` seconds) when the on-device model
    /// finds the words complete, and only after ``endSilence`` otherwise; `nil` (the default)
    /// ends every turn after ``endSilence``.
    public var shortSilence: Double?
    /// With ``shortSilence``: whether the reply starts during the pause, on the words heard so
    /// far, while the end of the turn is confirmed (held back, and dropped unheard if the user
    /// goes on). Only ever on the on-device model. On by default.
    public var startsReplyEarly = true
    /// With ``shortSilence``: what judges a pause. By default the words alone, as before the
    /// audio turn model: on this project's 2-core machines (debug build, shared) the voice then
    /// the words cut no question but ended turns later than the words alone (Benchmarks/README),
    /// and made the realtime semantic_vad test miss its 0.8 s long silence in about 1 run of 5.
    /// `.both` (the voice by Smart Turn, then the words when it is unsure) and `.voice` are there
    /// to measure and to choose once they are shown to help.
    public var turnSignals: TurnSignals = .words
    /// Whether the on-device model evaluates the reply's prompt while the user speaks (the
    /// conversation and the words of each partial transcript), so that the reply's first token
    /// waits only for the last words (see `ConversationConfiguration.prefiller`). On by
    /// default; it does nothing when another provider answers first.
    public var prefillsPrompt = true
    /// The voice-activity probability at which speech starts (`Tunable.speechThreshold`;
    /// `nil` for its default); speech ends below it less 0.15.
    public var speechThreshold: Float?
    /// Seconds of audio kept before detected speech (and after it); `nil` for the default.
    public var speechPadding: Double?
    /// The language and the words that bias recognition, for every transcript.
    public var transcription: TranscriptionOptions?
    /// The language the conversation is held in (`nil`: English, or ``transcription``'s
    /// language). Set, it is the language the transcriber is asked for, whatever
    /// ``transcription`` says. Any other language than English, or `.auto`, is heard by the
    /// multilingual transcriber, answered under a system prompt in that language (unless
    /// ``systemPrompt`` or the thread's settings give one), and spoken sentence by sentence in
    /// a voice for each sentence's language (`SentenceLanguageVoices`): the neural English
    /// voice for English, espeak-ng's voice for the others.
    public var language: LanguageSetting?
    /// Whether the user's speech may interrupt a reply at all (full duplex); when not, speech
    /// during a reply is ignored.
    public var allowsBargeIn = true
    /// How speech over a reply is told from an interruption that is meant: the reply pauses,
    /// and is cut only by words that are no backchannel in speech that lasts
    /// `InterruptionRules.minimumSpeech`; otherwise it resumes and nothing is saved. The
    /// backchannels are those of ``transcription``'s language unless the rules name one.
    /// `nil`: the first speech cuts the reply.
    public var interruption: InterruptionRules? = InterruptionRules()

    /// Whether the conversation waits for "Hey Parley" before it listens: until the phrase is
    /// heard (on device), nothing is transcribed, saved or sent, and audio before it is dropped
    /// but for a short pre-roll (see `WakeWordGate`). After the phrase, and after each reply,
    /// it listens for ``wakeWordFollowUp`` seconds, then waits for the phrase again. Off by default.
    public var wakeWord = false
    /// With ``wakeWord``: seconds the conversation listens after the phrase or a reply.
    public var wakeWordFollowUp: Double = Tunable.wakeWordFollowUp.defaultValue

    /// The reply length of a new spoken conversation, in tokens.
    public static let defaultMaxTokens = 128

    /// Creates options; the defaults are a saved, hands-free, full-duplex conversation on the
    /// automatic chains.
    public init(
        languageModel: ProviderSelection = .auto, speechToText: ProviderSelection = .auto,
        textToSpeech: ProviderSelection = .auto, systemPrompt: String? = nil, maxTokens: Int? = nil,
        temperature: Double = 0, voice: String? = nil, endSilence: Double = Tunable.endSilence.defaultValue, maxTurn: Double = Tunable.maxTurn.defaultValue,
        partialInterval: Double? = nil, duplex: ConversationConfiguration.Duplex = .full, saves: Bool = true,
        keepsAudio: Bool = false, owner: Owner = .local, startsListening: Bool = true,
        reviewTranscript: (@Sendable (String) async -> String?)? = nil
    ) {
        self.languageModel = languageModel
        self.speechToText = speechToText
        self.textToSpeech = textToSpeech
        self.systemPrompt = systemPrompt
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.voice = voice
        self.endSilence = endSilence
        self.maxTurn = maxTurn
        self.partialInterval = partialInterval
        self.duplex = duplex
        self.saves = saves
        self.keepsAudio = keepsAudio
        self.owner = owner
        self.startsListening = startsListening
        self.reviewTranscript = reviewTranscript
        self.shortSilence = nil
    }
}

/// The signals that judge whether a pause ends the user's turn.
public enum TurnSignals: String, Sendable, CaseIterable {
    /// The words alone: the language model's text score.
    case words
    /// The voice alone: the audio turn model, at its own threshold.
    case voice
    /// The voice first, the words when it is unsure (`TurnEndDetector`).
    case both
}
