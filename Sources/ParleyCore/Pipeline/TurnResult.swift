/// What happened in one spoken turn: the question heard, the answer given and spoken, who
/// did each stage, and how long each took.
public struct TurnResult: Sendable, Equatable {
    /// The providers that served each stage.
    public struct Providers: Sendable, Equatable, Codable {
        public var vad: String
        public var stt: String
        public var llm: String
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
        public init(vad: Double = 0, stt: Double = 0, llmFirstToken: Double = 0, llmTotal: Double = 0,
                    firstAudio: Double = 0, tts: Double = 0, total: Double = 0) {
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

    /// Where the speech of this turn lies in the input.
    public var segment: SpeechSegment
    /// What the user said.
    public var transcript: String
    /// What the assistant answered.
    public var reply: String
    /// The spoken answer.
    public var replyAudio: AudioBuffer
    /// Who did each stage.
    public var providers: Providers
    /// How long each stage took.
    public var timings: Timings
    /// The language model's accounting.
    public var usage: Usage

    /// Creates a result.
    public init(segment: SpeechSegment, transcript: String, reply: String, replyAudio: AudioBuffer,
                providers: Providers, timings: Timings, usage: Usage) {
        self.segment = segment
        self.transcript = transcript
        self.reply = reply
        self.replyAudio = replyAudio
        self.providers = providers
        self.timings = timings
        self.usage = usage
    }
}
