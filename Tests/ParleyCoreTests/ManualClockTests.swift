import ParleyTesting
import Testing

@Suite("The manual test clock", .timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test("a sleep in a task already cancelled ends at once and is not counted as a sleeper")
    func cancelledBeforeSleeping() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleepers == 0)
    }

    @Test("a sleeper wakes when time passes its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleepers == 1)
        clock.advance(by: .milliseconds(1))
        try await task.value
        #expect(clock.sleepers == 0)
    }
}
