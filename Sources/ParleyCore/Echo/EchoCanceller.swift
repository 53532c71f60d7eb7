/// Removes the assistant's own voice, coming back from the speaker into the microphone, from the
/// microphone's audio, given what the speaker played (the far-end reference).
///
/// Both signals are mono at ``sampleRate`` and line up sample for sample: `speaker[i]` is what
/// was sent to the speaker while `microphone[i]` was captured (the echo arrives later, within
/// the canceller's filter length). An implementation keeps adaptive state between calls, so one
/// canceller serves one microphone.
public protocol EchoCanceller: Actor {
    /// The sample rate of both signals.
    nonisolated var sampleRate: Int { get }
    /// The microphone's audio with the echo of `speaker` taken out. `speaker` is padded with
    /// silence or cut to the microphone's length. The result has the microphone's length, but
    /// may lag by less than one internal frame (carried over to the next call). (Async so that
    /// a canceller may be made of others, ``HandoverEchoCanceller``.)
    func cancel(microphone: [Float], speaker: [Float]) async -> [Float]
    /// Forgets what the filter learnt (a new room, a new device).
    func reset() async
}

/// Why echo cancellation is not available; the conversation runs on without it.
public struct EchoCancellerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let description: String

    /// An error with a sentence that says what to do.
    public init(_ description: String) {
        self.description = description
    }
}
