/// The review of a spoken turn's final transcript when `turn_detection.create_response` is
/// false: the conversation waits until the client sends the transcript (corrected, or as
/// heard) or drops the turn.
///
/// Three things meet here, in any order: the conversation asking (``hold(_:_:)``, with the
/// continuation it waits on), the transcript being announced to the client (``announce(_:)``,
/// with its item id), and the client's decision (``decide(_:transcribing:)``), which may come
/// before the conversation asks (`response.create` right after a commit). The review ends when
/// the conversation has its answer and the client has heard of the item; a plain struct that
/// returns what to do, carried out by ``RealtimeConnection``.
struct TranscriptReview {
    /// What the client decided.
    enum Decision: Equatable, Sendable {
        /// Send the transcript: `text` is the client's correction, `nil` sends it as heard.
        case send(String?)
        /// Drop the turn: nothing is saved and nothing answered.
        case discard
    }

    /// What the connection does next.
    enum Action {
        /// Nothing yet.
        case none
        /// Resume the waiting conversation with `text` (`nil` drops the turn), and tell the
        /// client that `deleted` was dropped when there is one.
        case resume(CheckedContinuation<String?, Never>, text: String?, deleted: String?)
        /// Tell the client that this item was dropped.
        case deleted(String)
        /// The client decided while nothing awaits review.
        case nothingToReview
    }

    private struct Held {
        var heard: String
        var continuation: CheckedContinuation<String?, Never>
    }

    private var held: Held?
    private var item: String?
    private var decision: Decision?
    /// Whether the conversation already has its answer (the review ends once announced).
    private var answered = false

    /// Whether a transcript awaits the client's decision.
    var isActive: Bool { held != nil || (item != nil && decision == nil) }

    /// The conversation asks for a review of `heard` and waits on `continuation`.
    mutating func hold(_ heard: String, _ continuation: CheckedContinuation<String?, Never>) -> Action {
        held = Held(heard: heard, continuation: continuation)
        return settle()
    }

    /// The transcript of user item `item` was sent to the client.
    mutating func announce(_ item: String) -> Action {
        self.item = item
        if answered {
            let dropped = decision == .discard ? item : nil
            self = TranscriptReview()
            return dropped.map(Action.deleted) ?? .none
        }
        return settle()
    }

    /// The client decided; `transcribing` tells whether a transcript is on its way.
    mutating func decide(_ decision: Decision, transcribing: Bool) -> Action {
        guard held != nil || item != nil || transcribing, !answered else { return .nothingToReview }
        self.decision = decision
        return settle()
    }

    /// No transcript came of the turn (no words were heard): a decision made early is void.
    mutating func forgetEarlyDecision() {
        if held == nil, item == nil { self = TranscriptReview() }
    }

    /// The conversation ends: a waiting conversation is released with the turn dropped.
    mutating func reset() -> Action {
        defer { self = TranscriptReview() }
        guard let held else { return .none }
        return .resume(held.continuation, text: nil, deleted: nil)
    }

    private mutating func settle() -> Action {
        guard let held, let decision, !answered else { return .none }
        let text: String? =
            switch decision {
            case .send(let corrected): corrected ?? held.heard
            case .discard: nil
            }
        let deleted = decision == .discard ? item : nil
        if item != nil {
            self = TranscriptReview()
        } else {
            self.held = nil
            answered = true
        }
        return .resume(held.continuation, text: text, deleted: deleted)
    }
}
