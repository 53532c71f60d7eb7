/// What happened in one spoken turn: the question heard, the answer given and spoken, who
/// did each stage, and how long each took.
public struct TurnResult: Sendable, Equatable {
    /// The providers that served each stage.
    public struct Providers: Sendable, Equatable, Codable {
        /// The voice activity detector.
        public var vad: String
        /// The transcriber.
        public var stt: String
        /// The language model.
        public var llm: String
        /// The voice.
        public var tts: String

        /// Creates the record.
        public init(vad: String, stt: String, llm: String, tts: String) {
            self.vad = vad
            self.stt = stt
            self.llm = llm
            self.tts = tts
        }
    }

    /// Stage timings in milliseconds.
    public struct Timings: Sendable, Equatable, Codable {
        /// Voice activity detection over the input (shared by all turns of a file).
        public var vad: Double
        /// Speech-to-text of this turn's speech.
        public var stt: Double
        /// From the request to the model's first text.
        public var llmFirstToken: Double
        /// From the request to the model's last text.
        public var llmTotal: Double
        /// From the request to the model until the first audio of the reply was ready.
        public var firstAudio: Double
        /// Time spent synthesizing speech.
        public var tts: Double
        /// The whole turn, from the start of transcription to the last audio.
        public var total: Double

        /// Creates zeroed timings.
        public init(
            vad: Double = 0, stt: Double = 0, llmFirstToken: Double = 0, llmTotal: Double = 0,
            firstAudio: Double = 0, tts: Double = 0, total: Double = 0
        ) {
            self.vad = vad
            self.stt = stt
            self.llmFirstToken = llmFirstToken
            self.llmTotal = llmTotal
            self.firstAudio = firstAudio
            self.tts = tts
            self.total = total
        }

        enum CodingKeys: String, CodingKey {
            case vad, stt, tts, total
            case llmFirstToken = "llm_first_token"
            case llmTotal = "llm_total"
            case firstAudio = "first_audio"
        }
    }

    /// The latency a listener feels, in milliseconds from the moment the turn's end was
    /// detected (the configured silence after the last word): final transcript, first token
    /// of the reply, first audio of the reply.
    public struct Latency: Sendable, Equatable, Codable {
        /// The silence that ended the turn (the endpointing delay).
        public var endpointSilence: Double
        /// Until the final transcript.
        public var finalTranscript: Double
        /// Until the model's first text.
        public var firstToken: Double
        /// Until the first audio of the reply.
        public var firstAudio: Double
        /// Wall-clock time from the arrival of the last voiced frame of the user's speech to
        /// the first audio of the reply: what a listener feels. `nil` for a typed turn or a
        /// reply without audio. It means what it says only when the audio arrives at its own
        /// pace (a microphone, or a file played in real time).
        public var voiceToVoice: Double?

        /// Creates a trace.
        public init(
            endpointSilence: Double = 0, finalTranscript: Double = 0, firstToken: Double = 0, firstAudio: Double = 0,
            voiceToVoice: Double? = nil
        ) {
            self.endpointSilence = endpointSilence
            self.finalTranscript = finalTranscript
            self.firstToken = firstToken
            self.firstAudio = firstAudio
            self.voiceToVoice = voiceToVoice
        }

        enum CodingKeys: String, CodingKey {
            case endpointSilence = "endpoint_silence"
            case finalTranscript = "final_transcript"
            case firstToken = "first_token"
            case firstAudio = "first_audio"
            case voiceToVoice = "voice_to_voice"
        }
    }

    /// Where the speech of this turn lies in the input.
    public var segment: SpeechSegment
    /// What the user said.
    public var transcript: String
    /// The language the user spoke in (a code such as `it`), as the transcriber heard it:
    /// the one detected when the conversation's language is `auto`; `nil` for a typed turn or
    /// a transcriber that does not say.
    public var language: String?
    /// What the assistant answered, as far as the listener heard it.
    public var reply: String
    /// Whether the user cut the reply short (barge-in).
    public var interrupted: Bool = false
    /// Whether the user typed this turn rather than spoke it (``segment`` is then empty and
    /// no VAD or STT provider is named).
    public var isTyped: Bool = false
    /// For an interrupted reply, everything the model had written.
    public var fullReply: String?
    /// The partial transcripts shown while the user spoke.
    public var partialTranscripts: [String] = []
    /// The latency trace of the turn.
    public var latency = Latency()
    /// Why the turn ended when end-of-turn prediction ended it early (the words' score and the
    /// silence); `nil` when the silence alone ended it.
    public var endOfTurn: String?
    /// Whether the reply was started during the pause, on the words heard so far, before the
    /// end of the turn was confirmed (and kept because the turn ended with those words).
    public var startedEarly: Bool = false
    /// Seconds of the spoken answer the listener heard.
    public var replyAudioDuration: Double
    /// Who did each stage.
    public var providers: Providers
    /// How long each stage took.
    public var timings: Timings
    /// The language model's accounting.
    public var usage: Usage
    /// Calls the model made to tools the client runs (declared in
    /// ``ConversationConfiguration/clientTools``): the reply waits for their results
    /// (``ConversationSession/addToolResult(callID:output:isError:)``, then
    /// ``ConversationSession/respondToToolResults()``).
    public var toolCalls: [ToolCall] = []
    /// The tools the conversation ran itself during the reply, with what they gave.
    public var toolResults: [ToolResult] = []

    /// Creates a result.
    public init(
        segment: SpeechSegment, transcript: String, reply: String, replyAudioDuration: Double,
        providers: Providers, timings: Timings, usage: Usage
    ) {
        self.segment = segment
        self.transcript = transcript
        self.reply = reply
        self.replyAudioDuration = replyAudioDuration
        self.providers = providers
        self.timings = timings
        self.usage = usage
    }
}
