import ParleyCore
import Testing

@Suite("When a pause ends the turn")
struct TurnPolicyTests {
    let policy = TurnPolicy(shortSilence: 0.4, longSilence: 1.2, threshold: 0.02)

    @Test("complete words end the turn at the short silence, not before")
    func complete() {
        #expect(policy.decide(silence: 0.4, completion: 0.72).endsTurn)
        #expect(policy.decide(silence: 0.4, completion: 0.72).reason == "the words sound complete (72% complete) after 0.4 s of silence")
        let early = policy.decide(silence: 0.25, completion: 0.9)
        #expect(!early.endsTurn)
        #expect(early.reason == "the words sound complete (90% complete); waiting for 0.4 s of silence")
    }

    @Test("unfinished words wait for the long silence")
    func incomplete() {
        let decision = policy.decide(silence: 0.6, completion: 0.001)
        #expect(!decision.endsTurn)
        #expect(decision.reason == "the words sound unfinished (0% complete); waiting up to 1.2 s of silence")
    }

    @Test("a predictor's own threshold replaces the policy's; none keeps it")
    func ownThreshold() {
        #expect(policy.with(threshold: 0.05).threshold == 0.05)
        #expect(!policy.with(threshold: 0.05).decide(silence: 0.5, completion: 0.03).endsTurn)
        #expect(policy.decide(silence: 0.5, completion: 0.03).endsTurn)
        #expect(policy.with(threshold: nil) == policy)
    }

    @Test("a long silence ends any turn, scored or not")
    func longSilence() {
        #expect(policy.decide(silence: 1.2, completion: 0).endsTurn)
        #expect(policy.decide(silence: 1.3, completion: nil).endsTurn)
        #expect(!policy.decide(silence: 0.5, completion: nil).endsTurn)
        #expect(TurnPolicy(shortSilence: 2, longSilence: 1).longSilence == 2, "the long silence is never the shorter")
    }
}
