/// When a pause ends the user's turn: soon after words that make a whole utterance, only after a
/// long silence after words that do not ("Can you tell me…"), the way people take turns.
///
/// A pure value: give it the silence so far and how complete the words sound (a probability
/// from an end-of-turn predictor, `nil` while unknown) and it says whether to end the turn now,
/// and why. The conversation asks again at every frame of silence.
public struct TurnPolicy: Sendable, Equatable {
    /// Silence (seconds) after which the words so far are transcribed and scored (and, with
    /// speculation, the reply started): before ``shortSilence``, so that the work is done, or
    /// well under way, when the turn may end. The default, 0.05 s, is two 32 ms frames of
    /// silence: on two cores the transcription, the score and the reply's first clause take
    /// longer than the short silence, so every frame waited before them is added to the
    /// reply's latency. A pause the user speaks after is let go at once (its transcription
    /// and score cancelled), so scoring the short pauses within a sentence costs little.
    public var scoringSilence: Double
    /// Silence (seconds) after which a complete utterance ends the turn.
    public var shortSilence: Double
    /// Silence (seconds) after which any utterance ends the turn.
    public var longSilence: Double
    /// The completion probability at or above which the words count as a whole utterance,
    /// for a predictor that does not know its own (``TurnPredictor/completionThreshold()``). Low
    /// on purpose: asked whether a sentence ends after the words, the on-device models give
    /// words cut where a speaker pauses next to nothing (at most 0.001 on a test set of 12,
    /// with no conversation before them) and whole ones 0.025 (SmolLM2-135M) or 0.19
    /// (Qwen2.5-Coder-1.5B) and up; the threshold sits between, on a log scale. In a
    /// conversation under way, openings that announce more ("I would like to know.", "Could
    /// you explain.") score up to 0.008 (Qwen, whose catalog threshold is 0.03) and 0.025
    /// (SmolLM2, which then cannot tell them from its least sure whole questions).
    public var threshold: Double

    /// Creates a policy.
    public init(
        shortSilence: Double = Tunable.shortSilence.defaultValue, longSilence: Double = Tunable.endSilence.defaultValue,
        threshold: Double = 0.005, scoringSilence: Double = 0.05
    ) {
        self.scoringSilence = min(scoringSilence, shortSilence)
        self.shortSilence = shortSilence
        self.longSilence = max(shortSilence, longSilence)
        self.threshold = threshold
    }

    /// What to do after `silence` seconds of silence, given the words' `completion`
    /// probability (`nil` when none is known yet).
    public func decide(silence: Double, completion: Double?) -> TurnDecision {
        if silence >= longSilence {
            return TurnDecision(endsTurn: true, reason: "a long silence (\(Self.seconds(silence)) ≥ \(Self.seconds(longSilence)))")
        }
        guard let completion else {
            return TurnDecision(endsTurn: false, reason: "the words are not scored yet")
        }
        let score = Self.percent(completion)
        if completion >= threshold {
            if silence >= shortSilence {
                return TurnDecision(endsTurn: true, reason: "the words sound complete (\(score)) after \(Self.seconds(silence)) of silence")
            }
            return TurnDecision(endsTurn: false, reason: "the words sound complete (\(score)); waiting for \(Self.seconds(shortSilence)) of silence")
        }
        return TurnDecision(endsTurn: false, reason: "the words sound unfinished (\(score)); waiting up to \(Self.seconds(longSilence)) of silence")
    }

    /// The policy with `threshold` in place of its own, when there is one.
    public func with(threshold: Double?) -> TurnPolicy {
        var policy = self
        if let threshold { policy.threshold = threshold }
        return policy
    }

    static func seconds(_ value: Double) -> String {
        "\(Double((value * 100).rounded()) / 100) s"
    }

    static func percent(_ value: Double) -> String {
        "\(Int((value * 100).rounded()))% complete"
    }
}

/// A turn decision and its reason.
public struct TurnDecision: Sendable, Equatable {
    /// Whether the turn ends now.
    public var endsTurn: Bool
    /// Why, in words (for `talk --json` and the logs).
    public var reason: String
}

/// Scores how complete the user's words sound as a turn: the probability that they are done.
public protocol TurnPredictor: Sendable {
    /// The probability in [0, 1] that `utterance`, after `history` (in a conversation that
    /// offers `tools`), is the whole of the user's turn.
    func completion(of utterance: String, after history: [ChatMessage], tools: [ToolDefinition]) async throws -> Double

    /// The completion at or above which this predictor's words count as whole, when it was
    /// measured for it (models differ: a larger one is surer of whole sentences, and of some
    /// openings that announce more, "I would like to know."); `nil`: the policy's
    /// ``TurnPolicy/threshold``. By default `nil`.
    func completionThreshold() async -> Double?
}

extension TurnPredictor {
    public func completionThreshold() async -> Double? { nil }

    /// The probability that `utterance`, after `history` in a conversation without tools, is
    /// the whole of the user's turn.
    public func completion(of utterance: String, after history: [ChatMessage]) async throws -> Double {
        try await completion(of: utterance, after: history, tools: [])
    }
}
