import Foundation
import Synchronization

/// Keeps the process's exit from tearing the engines down under a computation still running.
///
/// llama.cpp and whisper.cpp compute on ggml's CPU backend, whose globals are C++ statics that
/// `exit` destroys. A computation still running on another thread then (a background prefill, a
/// transcription a cancelled task left behind) reads freed memory and the process crashes on
/// its way out. Each computation is entered here; an exit handler, installed after the first
/// one (so that it runs before the statics that computation created are destroyed), marks the
/// process as exiting — the engines' abort callbacks then stop a computation at its next step,
/// and no new one starts — and waits until none runs.
enum EngineExit {
    private struct State {
        var exiting = false
        var running = 0
        var handlerInstalled = false
    }

    private static let state = Mutex(State())

    /// The longest the exit waits for computations to stop.
    static let patience: Duration = .seconds(5)

    /// Whether the process is exiting: the engines' abort callbacks return this.
    static var isExiting: Bool { state.withLock { $0.exiting } }

    /// Enters a computation; `false` (and nothing entered) when the process is exiting, in which
    /// case the computation must not start.
    static func enter() -> Bool {
        state.withLock { state in
            guard !state.exiting else { return false }
            state.running += 1
            return true
        }
    }

    /// Leaves a computation ``enter()`` let start; installs the exit handler after the first.
    static func leave() {
        let install = state.withLock { state in
            state.running -= 1
            guard !state.handlerInstalled else { return false }
            state.handlerInstalled = true
            return true
        }
        if install { atexit { EngineExit.processExits() } }
    }

    /// Runs `body`, a call into an engine that does not check the abort callback (tokenizing,
    /// rendering a template, sampling), as a computation ``processExits()`` waits for; `nil`
    /// without running it when the process is exiting. Such calls read the engines' C++ statics
    /// too (llama.cpp's Unicode tables), so one under way when `exit` destroys them crashes.
    static func guarded<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T? {
        guard enter() else { return nil }
        defer { leave() }
        return try body()
    }

    /// The exit handler: no new computation starts, those under way are asked to stop, and the
    /// exit waits (at most ``patience``) until they have.
    private static func processExits() {
        state.withLock { $0.exiting = true }
        let deadline = ContinuousClock.now.advanced(by: patience)
        while state.withLock({ $0.running }) > 0, ContinuousClock.now < deadline {
            usleep(1_000)
        }
    }
}
