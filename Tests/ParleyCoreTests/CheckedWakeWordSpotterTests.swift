import Foundation
import Testing
@testable import ParleyCore

/// The wake word's two stages, with a scripted spotter and check (the real ones are tested on
/// real audio in ParleyLocalTests): the check hears the last seconds up to the detection; a
/// refusal is forgotten and the next detection checked no sooner than the recheck time; a
/// confirmation resets the spotter.
@Suite("A wake word spotter with a second opinion")
struct CheckedWakeWordSpotterTests {
    /// Fires on every frame whose first sample is at least 0.5, with that sample as its score.
    actor FiringSpotter: WakeWordSpotter {
        private(set) var resets = 0
        func listen(to frame: AudioBuffer) -> WakeWordDetection? {
            let first = Double(frame.samples.first ?? 0)
            return first >= 0.5 ? WakeWordDetection(phrase: "test", score: first, heard: 0) : nil
        }
        func reset() { resets += 1 }
    }

    /// Confirms when asked for the `confirmAt`-th time; records the audio and scores it heard.
    actor CountingCheck: WakePhraseCheck {
        let confirmAt: Int
        private(set) var heard: [AudioBuffer] = []
        private(set) var scores: [Double] = []
        init(confirmAt: Int) { self.confirmAt = confirmAt }
        func confirms(_ audio: AudioBuffer, detection: WakeWordDetection) -> Bool {
            heard.append(audio)
            scores.append(detection.score)
            return heard.count == confirmAt
        }
    }

    /// A 0.1 s frame at 16 kHz whose first sample is `first` (the rest `level`).
    static func frame(_ first: Float, level: Float = 0.1) -> AudioBuffer {
        AudioBuffer(samples: [first] + [Float](repeating: level, count: 1_599), sampleRate: 16_000)
    }

    @Test("a refused detection is forgotten and the next is checked after the recheck time; a confirmed one is returned and resets the spotter")
    func refusesThenConfirms() async throws {
        let spotter = FiringSpotter(), check = CountingCheck(confirmAt: 2)
        let checked = CheckedWakeWordSpotter(spotter: spotter, check: check, window: 0.5, recheckAfter: 0.25)
        // 1 s of quiet audio: no detection, no check.
        for _ in 0..<10 { #expect(try await checked.listen(to: Self.frame(0)) == nil) }
        #expect(await check.heard.isEmpty)
        // The spotter fires; the check refuses.
        #expect(try await checked.listen(to: Self.frame(0.75)) == nil)
        #expect(await check.heard.count == 1)
        // Fired again 0.1 and 0.2 s later: not checked (within 0.25 s of the refusal).
        #expect(try await checked.listen(to: Self.frame(0.75)) == nil)
        #expect(try await checked.listen(to: Self.frame(0.75)) == nil)
        #expect(await check.heard.count == 1)
        // 0.3 s later: checked with the spotter's score, and confirmed.
        let detection = try await checked.listen(to: Self.frame(0.625))
        #expect(detection?.phrase == "test")
        #expect(await check.heard.count == 2)
        #expect(await check.scores == [0.75, 0.625])
        #expect(await spotter.resets == 1)
        #expect(await checked.tally == (refused: 1, confirmed: 1))
        // The check heard the last 0.5 s only, ending with the frame that fired.
        let last = try #require(await check.heard.last)
        #expect(last.samples.count == 8_000)
        #expect(last.samples.suffix(1_600).first == 0.625)
    }

    @Test("after a confirmation the audio before it is gone: the next check hears only what came after")
    func startsAfresh() async throws {
        let spotter = FiringSpotter(), check = CountingCheck(confirmAt: 1)
        let checked = CheckedWakeWordSpotter(spotter: spotter, check: check, window: 2)
        for _ in 0..<5 { _ = try await checked.listen(to: Self.frame(0, level: 0.3)) }
        #expect(try await checked.listen(to: Self.frame(0.9)) != nil)
        _ = try await checked.listen(to: Self.frame(0, level: 0.2))
        _ = try await checked.listen(to: Self.frame(0.9))
        let second = try #require(await check.heard.last)
        #expect(second.samples.count == 3_200, "two frames heard since the confirmation, not the 2 s window")
        #expect(!second.samples.contains(0.3))
    }

    @Test("a window or recheck time that is no number is replaced by the standard one")
    func boundsItsSettings() {
        let checked = CheckedWakeWordSpotter(spotter: FiringSpotter(), check: CountingCheck(confirmAt: 1), window: .nan, recheckAfter: -1)
        #expect(checked.window == 2.4)
        #expect(checked.recheckAfter == 0)
    }
}
