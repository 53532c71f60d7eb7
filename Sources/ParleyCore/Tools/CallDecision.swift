/// Whether a reply calls a tool, decided once, before its first token, from what the model
/// itself predicts there.
///
/// A small on-device model often *describes* the call a question needs ("To start a timer, call
/// the set_timer function…") or states what the tool would have said, instead of calling it. Yet
/// what it predicts at the reply's first position separates the two kinds of question well: the
/// probability of opening a call there (its call marker, a brace, a code fence, a declared tool's
/// name), times the probability that a call opened there names a declared tool, is far higher
/// for questions a tool covers than for those none does. Compared with a threshold calibrated
/// for the model on a training split of Benchmarks/tools/cases.json, it decides: at or above, the
/// reply opens as a call and a grammar writes it (which tool, then arguments under its schema);
/// below, the reply may not open like a call. Nothing in it depends on the tools' names or the
/// language of the question.
///
/// The decision is made only where the model is free to choose (``applies(to:)``): a forced
/// call, a choice of `none`, or a reply to tool results keep their own rules.
public struct CallDecision: Sendable, Equatable {
    /// What the reply does.
    public enum Verdict: Sendable, Equatable {
        /// The reply opens as a call, written under the call grammar.
        case call
        /// The reply answers in words: its first token may not open a call.
        case answer
    }

    /// What the model predicts at the reply's first position.
    public struct Evidence: Sendable, Equatable {
        /// The probability that the reply's first token opens a call, in any shape.
        public var opening: Double
        /// The probability that a call opened there names one of the declared tools (rather
        /// than a function the model makes up, which it does for questions no tool covers).
        public var naming: Double

        /// Creates evidence from the two probabilities (each clamped to 0…1).
        public init(opening: Double, naming: Double) {
            self.opening = min(1, max(0, opening))
            self.naming = min(1, max(0, naming))
        }

        /// The probability that the reply calls a declared tool: what the threshold is for.
        public var score: Double { opening * naming }
    }

    /// The ``Evidence/score`` at or above which the reply calls.
    public var threshold: Double

    /// The threshold calibrated for Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), the default model, on
    /// the training split of Benchmarks/tools/cases.json: a quarter above the highest score of a
    /// question needing no call (0.029), in the gap up to the lowest of one needing a call
    /// (0.135). Low in the gap, because a missed call is the worse mistake: the model then
    /// answers from its own head and may state what the tool would have said. See docs/tools.md.
    public static let calibratedThreshold = 0.036

    /// The probability of opening a call on the line after a call at or above which a reply
    /// the decision opened as a call makes another (parallel calls); below, it ends.
    public var nextCallThreshold: Double

    /// The ``nextCallThreshold`` calibrated for the default model on the same training split:
    /// the geometric middle of the gap between the highest probability after the only call a
    /// question wanted (4.8e-6) and the lowest after the first of several (7.4e-5).
    public static let calibratedNextCallThreshold = 1.9e-5

    /// Creates a decision with its thresholds (each clamped to 0…1).
    public init(
        threshold: Double = CallDecision.calibratedThreshold,
        nextCallThreshold: Double = CallDecision.calibratedNextCallThreshold
    ) {
        self.threshold = min(1, max(0, threshold))
        self.nextCallThreshold = min(1, max(0, nextCallThreshold))
    }

    /// The verdict on `evidence`.
    public func verdict(on evidence: Evidence) -> Verdict {
        evidence.score >= threshold ? .call : .answer
    }

    /// Whether a reply opened as a call makes another after a call, where the model opens
    /// one on the next line with probability `opening`.
    public func callsAgain(opening: Double) -> Bool {
        opening >= nextCallThreshold
    }

    /// Whether `request` is one the decision is for: its tool choice is `auto`, it offers tools
    /// that may be called, and its last message is the user's (a reply to tool results answers
    /// from them, and the model's own choice stands there).
    public static func applies(to request: ChatRequest) -> Bool {
        guard request.toolChoice == .auto, !request.callableTools.isEmpty else { return false }
        return request.messages.last?.role == .user
    }
}
