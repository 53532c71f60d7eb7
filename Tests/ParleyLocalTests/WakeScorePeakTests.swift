import Foundation
import ParleyCore
import Testing
@testable import ParleyLocal

/// When a detection that waits for the head's best score fires, how the second opinion weighs
/// that score, and the pre-roll a gate keeps for it: pure logic, no models.
@Suite("The wake word's score peak and the check's rule")
struct WakeScorePeakTests {
    /// The chunks (indices) that fire over `scores`, with the scores they fire with.
    static func fired(_ scores: [Float], floor: Float = 0.3) -> [(Int, Float)] {
        var peak = WakeScorePeak()
        return scores.enumerated().compactMap { index, score in peak.next(score, floor: floor).map { (index, $0) } }
    }

    @Test("a run fires on its first lower score with its best, not before; below the floor nothing starts")
    func firesAfterThePeak() {
        let fired = Self.fired([0.1, 0.29, 0.4, 0.7, 0.95, 0.9, 0.97, 0.2, 0.1])
        // The run 0.4, 0.7, 0.95 fires on 0.9 (index 5) with 0.95; 0.97 starts the next run,
        // which fires when the score falls below the floor (index 7).
        #expect(fired.map(\.0) == [5, 7])
        #expect(fired.map(\.1) == [0.95, 0.97])
        #expect(Self.fired([0.1, 0.2, 0.29, 0.0]).isEmpty)
    }

    @Test("a score that keeps rising fires after the longest rise; an equal score does not end a run")
    func longestRise() {
        let rising: [Float] = [0.31, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
        let fired = Self.fired(rising)
        #expect(fired.first?.0 == WakeScorePeak.longestRise)
        #expect(fired.first?.1 == rising[WakeScorePeak.longestRise - 1])
        #expect(Self.fired([0.5, 0.5, 0.5, 0.1]).map(\.0) == [3])
    }

    @Test("the check's rule: the head's confidence moves the shortfall allowed; a score that is no number counts as none")
    func checkRule() throws {
        let stt = WhisperSpeechToText(modelPath: "/nonexistent/ggml-tiny.en.bin")
        let check = WhisperWakePhraseCheck(stt: stt)
        // At 0.5 the allowance is the standard shortfall itself.
        #expect(check.counts(shortfall: WhisperWakePhraseCheck.standardShortfall, score: 0.5))
        #expect(!check.counts(shortfall: WhisperWakePhraseCheck.standardShortfall + 0.01, score: 0.5))
        // A surer head allows more, a less sure one less: ln(0.98 / 0.02) ≈ 3.89, ln(0.3 / 0.7) ≈ −0.85.
        let allowance = WhisperWakePhraseCheck.standardShortfall
        #expect(check.counts(shortfall: allowance + 3.8, score: 0.98))
        #expect(!check.counts(shortfall: allowance + 3.8, score: 0.5))
        #expect(!check.counts(shortfall: allowance - 0.8, score: 0.3))
        #expect(check.counts(shortfall: allowance - 0.9, score: 0.3))
        #expect(!check.counts(shortfall: 0, score: .nan))
        #expect(check.counts(shortfall: 0, score: .infinity) == false)
    }

    @Test("a detector that fires at the peak asks the gate for 0.5 s of pre-roll, through the check too; one that fires at once for 0.3 s")
    func preRoll() {
        let models = URL(fileURLWithPath: "/nonexistent")
        let peak = WakeWordDetector(models: models, threshold: 0.3, restartsOnDetection: false, firesAtPeak: true)
        let checked = CheckedWakeWordSpotter(spotter: peak, check: WhisperWakePhraseCheck(stt: WhisperSpeechToText(modelPath: "/nonexistent/ggml-tiny.en.bin")))
        #expect(WakeWordGate(spotter: peak).preRoll == 0.5)
        #expect(WakeWordGate(spotter: checked).preRoll == 0.5)
        #expect(WakeWordGate(spotter: WakeWordDetector(models: models)).preRoll == 0.3)
        #expect(WakeWordGate(spotter: checked, preRoll: 0.2).preRoll == 0.2)
        #expect(WakeWordGate(spotter: checked, preRoll: .nan).preRoll == 0.3)
    }
}
