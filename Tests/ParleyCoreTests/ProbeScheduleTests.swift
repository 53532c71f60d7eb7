import ParleyCore
import ParleyTesting
import Testing

@Suite("probes of a dead provider back off")
struct ProbeScheduleTests {
    @Test("the wait doubles after each failed probe up to the longest, and an answer resets it")
    func backsOff() {
        let clock = ManualClock()
        var schedule = ProbeSchedule<ManualClock.Instant>(interval: .seconds(5), longest: .seconds(60))
        #expect(schedule.isDue("a", at: clock.now))
        var probes: [Int] = []
        for second in 0...200 {
            let now = clock.now.advanced(by: .seconds(second))
            guard schedule.isDue("a", at: now) else { continue }
            probes.append(second)
            schedule.record("a", answered: false, at: now)
        }
        #expect(probes == [0, 5, 15, 35, 75, 135, 195])
        #expect(schedule.wait(afterFailures: 1) == .seconds(5))
        #expect(schedule.wait(afterFailures: 50) == .seconds(60))

        let later = clock.now.advanced(by: .seconds(300))
        schedule.record("a", answered: true, at: later)
        #expect(!schedule.isDue("a", at: later.advanced(by: .seconds(4))))
        #expect(schedule.isDue("a", at: later.advanced(by: .seconds(5))))
        // Another provider keeps its own pace.
        #expect(schedule.isDue("b", at: later))
    }

    @Test("a longest wait shorter than the interval is the interval")
    func floor() {
        let schedule = ProbeSchedule<ManualClock.Instant>(interval: .seconds(10), longest: .seconds(1))
        #expect(schedule.longest == .seconds(10))
        #expect(schedule.wait(afterFailures: 3) == .seconds(10))
    }
}
