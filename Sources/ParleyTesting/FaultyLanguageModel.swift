import ParleyCore

/// A language model that streams scripted pieces and then misbehaves in a chosen way, for
/// tests of fallback chains. It records every request and whether its stream was cancelled.
public actor FaultyLanguageModel: LanguageModelProvider {
    /// What happens after the pieces.
    public enum Fault: Sendable {
        /// Finish normally.
        case none
        /// Throw `error` after this many pieces.
        case fail(afterPieces: Int, error: any Error & Sendable)
        /// Go silent after this many pieces, until cancelled.
        case stall(afterPieces: Int)
    }

    public nonisolated let identity: ProviderIdentity
    /// What the model declares it can do (nothing is checked: it answers every request).
    public nonisolated let capabilities: LanguageModelCapabilities
    private let pieces: [String]
    private var fault: Fault
    private var reported: Availability
    /// Requests received, in order.
    public private(set) var requests: [ChatRequest] = []
    /// How many of its streams were cancelled by the consumer.
    public private(set) var cancellations = 0

    /// Creates a model named `name` that streams `pieces` and then does `fault`.
    public init(
        name: String, pieces: [String], fault: Fault = .none, availability: Availability = .ready,
        isLocal: Bool = false, capabilities: LanguageModelCapabilities = .textOnly
    ) {
        self.identity = ProviderIdentity(name: name, isLocal: isLocal)
        self.pieces = pieces
        self.fault = fault
        self.reported = availability
        self.capabilities = capabilities
    }

    /// Creates a model that reads images or not, and declares nothing else.
    public init(
        name: String, pieces: [String], fault: Fault = .none, availability: Availability = .ready,
        isLocal: Bool = false, supportsImages: Bool
    ) {
        self.init(
            name: name, pieces: pieces, fault: fault, availability: availability, isLocal: isLocal,
            capabilities: LanguageModelCapabilities(images: supportsImages))
    }

    public func availability() async -> Availability { reported }

    /// Changes what ``availability()`` reports.
    public func setAvailability(_ availability: Availability) { reported = availability }

    /// Changes the fault for later requests.
    public func setFault(_ fault: Fault) { self.fault = fault }

    private func begin(_ request: ChatRequest) -> Fault {
        requests.append(request)
        return fault
    }

    private func noteCancellation() { cancellations += 1 }

    public nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing(onTermination: { termination in
            if case .cancelled = termination { Task { await self.noteCancellation() } }
        }) { continuation in
            let fault = await self.begin(request)
            let pieces = self.pieces
            for (index, piece) in pieces.enumerated() {
                switch fault {
                case .fail(let after, let error) where index == after:
                    continuation.finish(throwing: error)  // as given, even a CancellationError
                    return
                case .stall(let after) where index == after:
                    await waitUntilCancelled()
                    return
                default:
                    continuation.yield(.text(piece))
                }
            }
            switch fault {
            case .fail(let after, let error) where after >= pieces.count:
                continuation.finish(throwing: error)
            case .stall(let after) where after >= pieces.count:
                await waitUntilCancelled()
            default:
                continuation.yield(.finished(.stop, Usage(outputTokens: pieces.count)))
            }
        }
    }
}

/// Suspends until the current task is cancelled (a real-clock sleep that cancellation ends;
/// nothing measures its length).
func waitUntilCancelled() async {
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3600))
    }
}
