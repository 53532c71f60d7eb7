@testable import ParleyServer
import Testing

/// ``TranscriptReview``: whatever the order in which the conversation asks, the client hears,
/// and the client decides, the conversation gets the decision once.
@Suite("transcript review")
struct TranscriptReviewTests {
    enum Step: String, CaseIterable, Sendable { case hold, announce, decide }

    static let orders: [[Step]] = [
        [.hold, .announce, .decide], [.announce, .hold, .decide], [.hold, .decide, .announce],
        [.announce, .decide, .hold], [.decide, .hold, .announce], [.decide, .announce, .hold],
    ]

    @Test(
        "every order gives the conversation the decision, and a discard is reported once", arguments: orders,
        [
            TranscriptReview.Decision.send("corrected"), .send(nil), .discard,
        ])
    func everyOrder(_ order: [Step], decision: TranscriptReview.Decision) async {
        var deleted: [String] = []
        var nothing = false
        let answer: String? = await withCheckedContinuation { continuation in
            var review = TranscriptReview()
            var resumed = false
            for step in order {
                let action: TranscriptReview.Action =
                    switch step {
                    case .hold: review.hold("heard", continuation)
                    case .announce: review.announce("item_1")
                    case .decide: review.decide(decision, transcribing: true)
                    }
                switch action {
                case .none: break
                case .resume(let waiting, let text, let dropped):
                    waiting.resume(returning: text)
                    resumed = true
                    if let dropped { deleted.append(dropped) }
                case .deleted(let item): deleted.append(item)
                case .nothingToReview: nothing = true
                }
            }
            #expect(!review.isActive)
            if !resumed { continuation.resume(returning: "never resumed") }
        }
        #expect(!nothing)
        switch decision {
        case .send(let text): #expect(answer == (text ?? "heard"))
        case .discard: #expect(answer == nil)
        }
        #expect(deleted == (decision == .discard ? ["item_1"] : []))
    }

    @Test("a decision with nothing to review is refused; a closed conversation is released")
    func edges() async {
        var review = TranscriptReview()
        if case .nothingToReview = review.decide(.discard, transcribing: false) {} else { Issue.record("accepted a decision on nothing") }
        let answer: String? = await withCheckedContinuation { continuation in
            _ = review.hold("heard", continuation)
            #expect(review.isActive)
            if case .resume(let waiting, let text, _) = review.reset() {
                waiting.resume(returning: text)
            } else {
                continuation.resume(returning: "never resumed")
            }
        }
        #expect(answer == nil)
        // A decision made while transcribing is void when no words were heard.
        _ = review.decide(.send(nil), transcribing: true)
        review.forgetEarlyDecision()
        if case .nothingToReview = review.decide(.discard, transcribing: false) {} else { Issue.record("kept a void decision") }
    }
}
