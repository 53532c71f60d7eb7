/// How a session runs its model.
public struct OnnxSessionOptions: Sendable, Equatable {
    /// Threads within one operator (ONNX Runtime's intra-op threads). One by default: Parley's
    /// engines share two cores, and a turn model or a wake word runs beside the others.
    public var threads: Int

    /// Creates options.
    public init(threads: Int = 1) {
        self.threads = max(1, threads)
    }
}
