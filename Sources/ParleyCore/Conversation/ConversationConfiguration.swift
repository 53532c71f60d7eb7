/// Settings of a conversation (see ``ConversationSession``).
public struct ConversationConfiguration: Sendable {
    /// Whether input and output overlap.
    public enum Duplex: Sendable, Equatable {
        /// Input waits while a reply is generated and played.
        case half
        /// Input keeps flowing; speech during a reply interrupts it.
        case full
    }

    /// The system prompt that opens the conversation.
    public var systemPrompt: String
    /// The tools the model may call while it answers (run by the conversation; `nil`: none).
    public var tools: ToolBox?
    /// Tools the client runs (a realtime client's): a call to one ends the reply with the
    /// call in ``TurnResult/toolCalls``, for the client to answer.
    public var clientTools: [ToolDefinition] = []
    /// Whether and which tools the model may call.
    public var toolChoice: ToolChoice = .auto
    /// How the model samples.
    public var sampling: SamplingOptions
    /// How speech is found: thresholds, the silence that ends a turn, the longest turn (by
    /// default the ``Tunable`` defaults). Its `endSilence` is also the turn policy's long
    /// silence: the session sets it there.
    public var segmentation: SpeechSegmenter.Configuration
    /// Transcription settings.
    public var transcription: TranscriptionOptions
    /// Voice settings.
    public var speech: SpeechOptions
    /// Seconds of speech between partial transcripts from a provider that does not transcribe
    /// live (each one transcribes the utterance so far again); `nil` for none. A live
    /// provider's partials come as it sends them.
    public var partialInterval: Double?
    /// The model's context length in tokens; the history is trimmed to fit.
    public var contextTokens: Int
    /// Whether input keeps flowing while a reply plays (`.full`: the user can barge in)
    /// or waits for each reply to end (`.half`: for recordings read faster than real time).
    public var duplex: Duplex
    /// Rules of the state machine.
    public var rules: ConversationRules
    /// Shows the user each final transcript before it is sent, and returns the text to
    /// send: the same, a correction (kept as the edited text, beside the raw transcript),
    /// or `nil` to drop the turn. `nil` here sends transcripts as heard.
    public var reviewTranscript: (@Sendable (String) async -> String?)?
    /// Whether ``ConversationSession/run(_:)`` opens the gates and starts listening at
    /// once (a command line, a hands-free loop). A host app that gates listening on
    /// permissions and a talk button sets this to `false` and calls
    /// ``ConversationSession/setGate(_:open:)``, ``ConversationSession/arm()`` and
    /// ``ConversationSession/startListening(_:)``; audio before that is not listened to.
    public var startsListening: Bool
    /// Ends a turn early when the words sound complete: after ``TurnPolicy/scoringSilence``
    /// the utterance so far is transcribed and scored, and a complete one ends the turn at
    /// ``TurnPolicy/shortSilence`` (its transcript is used as the final one; with
    /// ``TurnPrediction/speculates`` its reply is already under way); otherwise the
    /// segmentation's `endSilence` ends it (the session makes it the policy's `longSilence`).
    /// `nil` (the default): silence alone.
    public var turnPrediction: TurnPrediction?
    /// Evaluates the reply's prompt while the user speaks: the conversation and the open
    /// user message when speech starts, then the words of each partial transcript (its last,
    /// possibly cut-off word left out), so the reply's first token waits only for the words
    /// said since. `nil` (the default): the prompt is evaluated when the reply starts.
    public var prefiller: (any PromptPrefiller)?
    /// Waits for a wake phrase before listening: until it is heard, audio goes to the
    /// spotter alone (see ``WakeWordGate``); ``ConversationSession/run(_:)`` then arms the
    /// conversation without starting to listen, and `rules.listenTimeout` becomes the gate's
    /// follow-up unless set. `nil` (the default): no wake word.
    public var wakeWord: WakeWordGate?

    /// Creates a configuration with defaults for a hands-free conversation.
    public init(
        systemPrompt: String = "You are a helpful voice assistant. Answer in one or two short sentences.",
        sampling: SamplingOptions = SamplingOptions(),
        segmentation: SpeechSegmenter.Configuration = SpeechSegmenter.Configuration(),
        transcription: TranscriptionOptions = TranscriptionOptions(),
        speech: SpeechOptions = SpeechOptions(),
        partialInterval: Double? = nil,
        contextTokens: Int = 2048,
        duplex: Duplex = .full,
        rules: ConversationRules = ConversationRules(),
        reviewTranscript: (@Sendable (String) async -> String?)? = nil,
        startsListening: Bool = true
    ) {
        self.systemPrompt = systemPrompt
        self.sampling = sampling
        self.segmentation = segmentation
        self.transcription = transcription
        self.speech = speech
        self.partialInterval = partialInterval
        self.contextTokens = contextTokens
        self.duplex = duplex
        self.rules = rules
        self.reviewTranscript = reviewTranscript
        self.startsListening = startsListening
    }
}

/// End-of-turn prediction for a conversation: what scores the voice and the words, and the policy.
public struct TurnPrediction: Sendable {
    /// Scores how complete the words sound.
    public var predictor: any TurnPredictor
    /// Scores how finished the voice sounds (Smart Turn on device), before the words are read:
    /// a clear score decides alone, an unsure one has the words read (``TurnEndDetector``).
    /// `nil` (the default): the words alone.
    public var audio: (any AudioTurnScorer)?
    /// Where the audio score decides alone (by default only above 0.99 or below 0.1: see
    /// ``TurnEndDetector/Bands``).
    public var bands: TurnEndDetector.Bands
    /// Whether the words are scored when the voice is unsure; `false` (for comparisons): the
    /// voice alone decides, at the audio model's own threshold.
    public var readsWords: Bool
    /// When a pause ends the turn.
    public var policy: TurnPolicy
    /// Whether the reply starts on the words of a pause while the end of the turn is being
    /// confirmed (its text and audio held back, and dropped unheard if the user goes on). It
    /// costs a model call per pause: leave it off for a model billed by the token.
    public var speculates: Bool

    /// Creates the prediction settings.
    public init(
        predictor: any TurnPredictor, audio: (any AudioTurnScorer)? = nil, bands: TurnEndDetector.Bands = TurnEndDetector.Bands(),
        readsWords: Bool = true, policy: TurnPolicy = TurnPolicy(), speculates: Bool = false
    ) {
        self.predictor = predictor
        self.audio = audio
        self.bands = bands
        self.readsWords = readsWords
        self.policy = policy
        self.speculates = speculates
    }

    /// The detector that judges each pause.
    public var detector: TurnEndDetector {
        TurnEndDetector(audio: audio, text: readsWords ? predictor : nil, bands: bands)
    }
}
