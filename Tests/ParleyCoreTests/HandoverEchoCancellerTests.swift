import Testing

@testable import ParleyCore

/// A canceller that answers every call with `mark` (one value per microphone sample) and counts
/// what it heard.
private actor MarkingCanceller: EchoCanceller {
    nonisolated let sampleRate: Int
    let mark: Float
    private(set) var calls = 0
    private(set) var resets = 0

    init(sampleRate: Int = 16_000, mark: Float) {
        self.sampleRate = sampleRate
        self.mark = mark
    }

    func cancel(microphone: [Float], speaker: [Float]) -> [Float] {
        calls += 1
        return [Float](repeating: mark, count: microphone.count)
    }

    func reset() { resets += 1 }
}

@Suite("an echo canceller that hands over to another once it has learnt the room")
struct HandoverEchoCancellerTests {
    static let loud = [Float](repeating: 0.1, count: 1_600)  // 0.1 s at 16 kHz
    static let silent = [Float](repeating: 0, count: 1_600)

    @Test("the first answers until the second has heard the handover's seconds of the speaker; silence does not count; both hear every call")
    func handsOver() async throws {
        let first = MarkingCanceller(mark: 1), then = MarkingCanceller(mark: 2)
        let canceller = try HandoverEchoCanceller(first: first, then: then, handover: 0.3)
        let microphone = [Float](repeating: 0.5, count: 1_600)
        // Silence from the speaker teaches nothing: the first answers.
        for _ in 0..<5 { #expect(await canceller.cancel(microphone: microphone, speaker: Self.silent) == [Float](repeating: 1, count: 1_600)) }
        // 0.1 and 0.2 s of the reply heard: still the first.
        #expect(await canceller.cancel(microphone: microphone, speaker: Self.loud).allSatisfy { $0 == 1 })
        #expect(await canceller.cancel(microphone: microphone, speaker: Self.loud).allSatisfy { $0 == 1 })
        #expect(await !canceller.hasHandedOver)
        // 0.3 s: the switch, faded from 1 to 2 over the call.
        let faded = await canceller.cancel(microphone: microphone, speaker: Self.loud)
        #expect(faded.first == 1 && faded.last == 2)
        #expect(zip(faded, faded.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(await canceller.hasHandedOver)
        // From then on the second's, even over silence.
        #expect(await canceller.cancel(microphone: microphone, speaker: Self.silent).allSatisfy { $0 == 2 })
        // The second heard every call; the first every call until the switch.
        #expect(await then.calls == 9)
        #expect(await first.calls == 8)
    }

    @Test("a reset starts again with the first, and resets both")
    func resets() async throws {
        let first = MarkingCanceller(mark: 1), then = MarkingCanceller(mark: 2)
        let canceller = try HandoverEchoCanceller(first: first, then: then, handover: 0.1)
        _ = await canceller.cancel(microphone: Self.silent, speaker: Self.loud)
        #expect(await canceller.hasHandedOver)
        await canceller.reset()
        #expect(await !canceller.hasHandedOver)
        #expect(await first.resets == 1)
        #expect(await then.resets == 1)
        #expect(await canceller.cancel(microphone: Self.silent, speaker: Self.silent).allSatisfy { $0 == 1 })
    }

    @Test("two rates, a handover that is no number of seconds, or an audible level outside 0 to 1 are refused with a sentence that says what to do")
    func refusals() {
        #expect(throws: EchoCancellerError.self) {
            try HandoverEchoCanceller(first: MarkingCanceller(sampleRate: 16_000, mark: 1), then: MarkingCanceller(sampleRate: 24_000, mark: 2))
        }
        for level in [Float(-0.1), .nan, 2] {
            #expect(throws: EchoCancellerError.self) {
                try HandoverEchoCanceller(first: MarkingCanceller(mark: 1), then: MarkingCanceller(mark: 2), audibleLevel: level)
            }
        }
        for handover in [-1, .nan, .infinity, 601] {
            #expect(throws: EchoCancellerError.self) {
                try HandoverEchoCanceller(first: MarkingCanceller(mark: 1), then: MarkingCanceller(mark: 2), handover: handover)
            }
        }
    }
}
