import Testing

/// A trait for tests that run the on-device engines (llama.cpp, whisper.cpp, espeak-ng, or a
/// `parley` child process that does): across every suite and test target in the run, such tests
/// go one at a time.
///
/// `.serialized` orders the tests of one suite only. On a machine with two cores, the engine
/// suites of several targets running side by side slowed each other past the timeouts they
/// check (a 90-second read, a 45-second save after SIGKILL). With this trait they take turns,
/// while the fast tests around them still run in parallel.
///
/// Put it on a suite (it applies to each test inside, nested suites included) or on a test.
/// A test that already holds the lane (a test inside a suite that has the trait, say) does not
/// wait for it again.
public struct OnDeviceEngines: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OnDeviceEngines? {
        test.isSuite ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if OnDeviceEngines.held {
            try await function()
            return
        }
        await EngineLane.shared.acquire()
        do {
            try await OnDeviceEngines.$held.withValue(true) { try await function() }
        } catch {
            await EngineLane.shared.release()
            throw error
        }
        await EngineLane.shared.release()
    }

    @TaskLocal static var held = false
}

extension Trait where Self == OnDeviceEngines {
    /// Runs the test (or each test of the suite) alone among the tests that use the on-device
    /// engines. See ``OnDeviceEngines``.
    public static var onDeviceEngines: OnDeviceEngines { OnDeviceEngines() }
}

/// A first-come, first-served lock for async code: one holder at a time.
actor EngineLane {
    static let shared = EngineLane()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
