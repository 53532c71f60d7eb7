/// Judges at a pause whether the user's turn is over from two signals: how the voice sounds
/// (an ``AudioTurnScorer``, tens of milliseconds on device) and what the words say (a
/// ``TurnPredictor``, a language model reading them: 70–390 ms on two cores).
///
/// The audio scores first. A voice that sounds clearly finished (at or above
/// ``Bands/complete``) takes the turn, and one that clearly stopped short (at or below
/// ``Bands/incomplete``) waits, each without the words being read; only a voice in between
/// has its words scored, and the words decide. With one signal only, that one decides (the
/// audio at its own threshold, ``Bands/audioThreshold``); with neither, nothing is known.
public struct TurnEndDetector: Sendable {
    /// The audio scores that decide without the words.
    ///
    /// The defaults, 0.99 and 0.1, keep the voice from cutting a sentence in two on the
    /// questions of `Benchmarks/run --suite turns` (espeak-ng voices): Smart Turn v3.2 gave the
    /// openings before their pauses 0.98 ("Can you tell me", "Could you explain"), 0.50 and
    /// 0.008, and the whole questions 0.19 to 0.92, so no band separates them there; the voice
    /// decides alone only when it is surer than on any of those. Human speech, which the model
    /// was trained on, may allow wider bands: measure before widening them.
    public struct Bands: Sendable, Equatable {
        /// At or above: the voice sounds finished; the turn ends without the words being read.
        public var complete: Double
        /// At or below: the voice stopped short; the turn waits without the words being read.
        public var incomplete: Double
        /// The audio model's own threshold, used when there is no text score to ask.
        public var audioThreshold: Double

        /// Creates bands; `incomplete` is kept at or below `complete`.
        public init(complete: Double = 0.99, incomplete: Double = 0.1, audioThreshold: Double = 0.5) {
            self.complete = complete
            self.incomplete = min(incomplete, complete)
            self.audioThreshold = audioThreshold
        }
    }

    /// Scores the voice; `nil`: the words alone decide.
    public var audio: (any AudioTurnScorer)?
    /// Scores the words; `nil`: the voice alone decides.
    public var text: (any TurnPredictor)?
    /// Where the audio score decides alone.
    public var bands: Bands

    /// Creates a detector over either signal or both.
    public init(audio: (any AudioTurnScorer)?, text: (any TurnPredictor)?, bands: Bands = Bands()) {
        self.audio = audio
        self.text = text
        self.bands = bands
    }

    /// Judges the pause after `speech` (the utterance up to the pause, not the silence) whose
    /// words are `words`, said after `history` in a conversation offering `tools`; the words
    /// count as whole at `textThreshold` (the policy's, or the predictor's own). Each score's
    /// time is measured on `clock`. A scorer that fails counts as absent.
    public func judge<C: Clock>(
        speech: AudioBuffer, words: String, history: [ChatMessage] = [], tools: [ToolDefinition] = [],
        textThreshold: Double, clock: C
    ) async -> TurnJudgement where C.Duration == Duration {
        let voice = await scoreVoice(speech, clock: clock)
        return await judge(voice: voice, words: words, history: history, tools: tools, textThreshold: textThreshold, clock: clock)
    }

    /// The audio score of `speech` and its time; `nil` without an audio scorer, for no
    /// speech, or when the scorer fails. A conversation starts it with the transcription of
    /// the same speech, so that it is there when the words are.
    public func scoreVoice<C: Clock>(_ speech: AudioBuffer, clock: C) async -> (score: Double, took: Duration)? where C.Duration == Duration {
        guard let audio, !speech.isEmpty else { return nil }
        let started = clock.now
        guard let score = try? await audio.completion(of: speech) else { return nil }
        return (score, started.duration(to: clock.now))
    }

    /// ``judge(speech:words:history:tools:textThreshold:clock:)`` with the voice already
    /// scored (``scoreVoice(_:clock:)``).
    public func judge<C: Clock>(
        voice: (score: Double, took: Duration)?, words: String, history: [ChatMessage] = [],
        tools: [ToolDefinition] = [], textThreshold: Double, clock: C
    ) async -> TurnJudgement where C.Duration == Duration {
        var judgement = TurnJudgement()
        if let voice {
            judgement.audio = voice.score
            judgement.audioTook = voice.took
            if voice.score >= bands.complete { return judgement.decided(.complete, by: .audio) }
            if voice.score <= bands.incomplete { return judgement.decided(.incomplete, by: .audio) }
        }
        if let text, !words.isEmpty, !Task.isCancelled {
            let started = clock.now
            if let score = try? await text.completion(of: words, after: history, tools: tools) {
                judgement.text = score
                judgement.textTook = started.duration(to: clock.now)
                return judgement.decided(score >= textThreshold ? .complete : .incomplete, by: .text)
            }
        }
        if let score = judgement.audio {
            return judgement.decided(score >= bands.audioThreshold ? .complete : .incomplete, by: .audio)
        }
        return judgement
    }
}

/// What a ``TurnEndDetector`` made of a pause, with the scores and their times.
public struct TurnJudgement: Sendable, Equatable {
    /// Whether the turn sounds over.
    public enum Verdict: Sendable, Equatable {
        /// The turn sounds over.
        case complete
        /// The user sounds as if they will go on.
        case incomplete
        /// Nothing could be scored.
        case unknown
    }

    /// Which signal decided.
    public enum Source: Sendable, Equatable {
        /// The voice (the words were not read, or could not be).
        case audio
        /// The words.
        case text
    }

    /// The verdict.
    public var verdict: Verdict = .unknown
    /// What decided it; `nil` while ``verdict`` is unknown.
    public var source: Source?
    /// The audio score, when the voice was scored.
    public var audio: Double?
    /// The text score, when the words were read.
    public var text: Double?
    /// How long the audio score took.
    public var audioTook: Duration?
    /// How long the text score took.
    public var textTook: Duration?

    /// Creates an unknown judgement.
    public init() {}

    /// The completion to give ``TurnPolicy/decide(silence:completion:)``: the text score when the
    /// words decided (compare it with the predictor's threshold), 1 or 0 when the voice did, `nil`
    /// when nothing is known.
    public var completion: Double? {
        switch (verdict, source) {
        case (.unknown, _), (_, nil): nil
        case (_, .text?): text
        case (.complete, .audio?): 1
        case (.incomplete, .audio?): 0
        }
    }

    func decided(_ verdict: Verdict, by source: Source) -> TurnJudgement {
        var judgement = self
        judgement.verdict = verdict
        judgement.source = source
        return judgement
    }
}
