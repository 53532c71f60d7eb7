/// Keeps the record of the turns being answered and writes them up: the user's journal entry
/// as soon as the turn is final, then, when the reply has been played or cut short, the
/// ``TurnResult`` and the assistant's journal entry, with latencies measured from the turn's
/// endpoint on one clock (transcription, saving and review count: the listener waits through
/// them).
///
/// A value held by the conversation; turns are known by the number of their reply.
struct TurnRecorder<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The user's side of a turn, spoken or typed.
    struct UserTurn: Sendable {
        /// The text sent to the model.
        var text: String
        /// What speech-to-text heard (a spoken turn).
        var heard: String?
        /// Where the speech lies in the input (empty for a typed turn).
        var segment: SpeechSegment
        /// Partial transcripts shown while the user spoke.
        var partials: [String] = []
        /// When the turn ended: the speech endpoint, or when the message was sent.
        var endpoint: Instant
        /// When the last voiced frame of the speech arrived (a spoken turn).
        var voiceEnded: Instant?
        /// From the endpoint to the final transcript.
        var transcription: Duration = .zero
        /// Time spent in voice activity detection since the last turn.
        var detection: Duration = .zero
        /// The speech (a spoken turn).
        var audio: AudioBuffer?
        /// The provider that transcribed, when a chain named it.
        var transcribedBy: ProviderIdentity?
        /// Images sent with a typed turn.
        var images: [ImageAttachment] = []
        /// The silence that ended the turn, and why, when end-of-turn prediction ended it.
        var predictedEnd: (silence: Double, reason: String)?
        /// The language the speech was heard in, when the transcriber said.
        var language: String?

        /// Whether the user typed the turn.
        var typed: Bool { heard == nil }
    }

    /// A turn written up.
    struct Finished: Sendable {
        /// The turn.
        var result: TurnResult
        /// The reply as the listener heard it (what goes into the history).
        var heard: String
        /// The assistant's journal entry; `nil` when there is nothing to keep (the model said
        /// nothing).
        var entry: JournalEntry?
        /// The tool exchange before the reply's words (calls and results), for the history.
        var toolExchange: [ChatMessage] = []
    }

    private struct Pending: Sendable {
        var turn: UserTurn
        var requested: Instant?
        var speculative = false
        var outcome: ReplySpeaker.Outcome?
    }

    /// Who detected and transcribed speech, and who spoke.
    let vad: String
    let stt: String
    let tts: String
    /// The silence that ends a spoken turn, in seconds.
    let endpointSilence: Double

    private var pending: [Int: Pending] = [:]

    init(vad: String, stt: String, tts: String, endpointSilence: Double) {
        self.vad = vad
        self.stt = stt
        self.tts = tts
        self.endpointSilence = endpointSilence
    }

    /// Opens turn `reply` and returns the user's journal entry.
    mutating func begin(_ turn: UserTurn, reply: Int) -> JournalEntry {
        pending[reply] = Pending(turn: turn)
        guard let heard = turn.heard else { return JournalEntry(role: .user, text: turn.text, typedText: turn.text, images: turn.images) }
        return JournalEntry(
            role: .user, text: turn.text, rawTranscript: heard, editedText: turn.text == heard ? nil : turn.text,
            images: turn.images, provider: turn.transcribedBy?.description ?? stt, timingsMs: ["stt": turn.transcription.milliseconds], audio: turn.audio)
    }

    /// The reply of turn `reply` was requested at `now`; `speculative` when that was before
    /// the end of the turn was confirmed (a reply started during the pause).
    mutating func requested(reply: Int, at now: Instant, speculative: Bool = false) {
        pending[reply]?.requested = now
        pending[reply]?.speculative = speculative
    }

    /// The reply of turn `reply` is written (and spoken, or cut short).
    mutating func generated(_ outcome: ReplySpeaker.Outcome, reply: Int) {
        pending[reply]?.outcome = outcome
    }

    /// Forgets turn `reply`: its reply was cancelled before anything was heard.
    mutating func abandon(reply: Int) {
        pending[reply] = nil
    }

    /// Closes turn `reply` at `now`, its reply cut to the `played` seconds the listener heard
    /// when `interrupted`. `nil` when the reply produced nothing to report.
    mutating func finish(reply: Int, played: Double?, interrupted: Bool, at now: Instant) -> Finished? {
        guard let turn = pending.removeValue(forKey: reply), let outcome = turn.outcome else { return nil }
        let user = turn.turn
        let heard = interrupted ? outcome.spoken.heard(upTo: played ?? 0) : outcome.text
        let requestedAfter = turn.requested.map { user.endpoint.duration(to: $0) } ?? user.transcription
        func sinceEndpoint(_ duration: Duration?) -> Double {
            guard let duration else { return 0 }
            return (requestedAfter + duration).milliseconds
        }
        var result = TurnResult(
            segment: user.segment, transcript: user.text, reply: heard,
            replyAudioDuration: interrupted ? min(played ?? 0, outcome.spoken.duration) : outcome.spoken.duration,
            providers: .init(
                vad: user.typed ? "" : vad, stt: user.typed ? "" : user.transcribedBy?.description ?? stt,
                llm: outcome.provider.description, tts: outcome.voice?.description ?? tts),
            timings: .init(
                vad: user.detection.milliseconds, stt: user.transcription.milliseconds,
                llmFirstToken: outcome.firstToken?.milliseconds ?? outcome.generation.milliseconds,
                llmTotal: outcome.generation.milliseconds, firstAudio: outcome.firstAudio?.milliseconds ?? 0,
                tts: outcome.synthesis.milliseconds, total: user.endpoint.duration(to: now).milliseconds),
            usage: outcome.usage)
        result.interrupted = interrupted
        result.fullReply = interrupted ? outcome.text : nil
        result.toolCalls = outcome.clientCalls
        result.toolResults = outcome.toolResults
        result.partialTranscripts = user.partials
        result.isTyped = user.typed
        result.language = user.language
        result.endOfTurn = user.predictedEnd?.reason
        result.startedEarly = turn.speculative
        result.latency = .init(
            endpointSilence: user.typed ? 0 : (user.predictedEnd?.silence ?? endpointSilence) * 1000,
            finalTranscript: user.transcription.milliseconds,
            firstToken: sinceEndpoint(outcome.firstToken), firstAudio: sinceEndpoint(outcome.firstAudio))
        if let voiceEnded = user.voiceEnded, outcome.firstAudio != nil {
            result.latency.voiceToVoice = voiceEnded.duration(to: user.endpoint).milliseconds + result.latency.firstAudio
        }
        // An uninterrupted reply with no words has nothing to keep.
        guard interrupted || !heard.isEmpty else { return Finished(result: result, heard: heard, entry: nil, toolExchange: outcome.toolExchange) }
        let timings = result.timings
        let entry = JournalEntry(
            role: .assistant, text: heard, provider: outcome.provider.description,
            timingsMs: [
                "llm_first_token": timings.llmFirstToken, "llm_total": timings.llmTotal, "tts": timings.tts,
                "first_audio_after_endpoint": result.latency.firstAudio,
            ],
            usage: outcome.usage, interrupted: interrupted, fullReply: result.fullReply)
        return Finished(result: result, heard: heard, entry: entry, toolExchange: outcome.toolExchange)
    }
}
