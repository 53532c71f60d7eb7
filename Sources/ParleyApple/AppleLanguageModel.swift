#if canImport(FoundationModels)
import FoundationModels
import ParleyAppleSupport
import ParleyCore

// Never compiled on the Linux machines this package is developed on (see README).

/// The system's on-device language model (Apple Intelligence, iOS and macOS 26) through the
/// Foundation Models framework: streamed replies, the cumulative snapshots turned into the
/// pieces Parley streams (``SnapshotDeltas``).
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct AppleLanguageModel: LanguageModelProvider {
    public let identity = ProviderIdentity(name: "apple-foundation-models", model: "system", isLocal: true)
    public let capabilities = LanguageModelCapabilities()

    /// The system model.
    public init() {}

    public func availability() async -> Availability {
        switch SystemLanguageModel.default.availability {
        case .available: return .ready
        case .unavailable(let reason): return .unsupported(reason: "the system language model is unavailable: \(reason)")
        }
    }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            let instructions = request.messages.filter { $0.role == .system }.map(\.text).joined(separator: "\n\n")
            // Earlier turns go into the instructions as a transcript; the last user message is the prompt.
            let earlier = request.messages.dropLast().filter { $0.role == .user || $0.role == .assistant }
                .map { "\($0.role == .user ? "User" : "Assistant"): \($0.text)" }.joined(separator: "\n")
            let session = LanguageModelSession(instructions: earlier.isEmpty ? instructions : instructions + "\n\nThe conversation so far:\n" + earlier)
            var deltas = SnapshotDeltas()
            continuation.yield(.provider(identity))
            for try await snapshot in session.streamResponse(to: request.messages.last?.text ?? "") {
                let piece = deltas.appendOnly(snapshot.content)
                if !piece.isEmpty { continuation.yield(.text(piece)) }
            }
            let rest = deltas.finish()
            if !rest.isEmpty { continuation.yield(.text(rest)) }
            continuation.yield(.finished(.stop, Usage()))
        }
    }
}
#endif
