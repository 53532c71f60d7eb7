/// A one-shot signal from a test to a ``ScriptedServer``: a reply's ``ScriptedReply/Step/wait(_:)``
/// step holds the body until the test opens the gate (say, once the client has shown the text
/// sent so far), so that what happens next does not race with what was sent before.
public actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates a closed gate.
    public init() {}

    /// Opens the gate, releasing every step waiting at it.
    public func open() {
        isOpen = true
        let released = waiting
        waiting.removeAll()
        for continuation in released { continuation.resume() }
    }

    /// Returns once the gate is open.
    public func pass() async {
        if isOpen { return }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
        }
    }
}
