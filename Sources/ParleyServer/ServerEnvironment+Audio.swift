import Foundation
import ParleyCore
import ParleyLocal
import Synchronization

/// How many audio files are being decoded at once, bounded: each decoder is an ffmpeg process,
/// and a flood of uploads must not start one per request.
final class DecoderSlots: Sendable {
    let limit: Int
    private let busy = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a slot, or `false` when all are busy.
    func take() -> Bool {
        busy.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func give() {
        busy.withLock { $0 = max(0, $0 - 1) }
    }
}

extension ServerEnvironment {
    /// `data`'s audio, decoded within the request's deadline by one of the server's few
    /// decoders: 503 with `Retry-After` when they are all busy.
    func decodeAudio(_ data: Data) async throws -> AudioBuffer {
        guard decoders.take() else {
            var busy = OpenAIError(status: .serviceUnavailable, message: "Every audio decoder is busy (\(decoders.limit) at once): try again in a moment.",
                                   type: "server_error", code: "decoders_busy")
            busy.retryAfter = 1
            throw busy
        }
        defer { decoders.give() }
        let files = audioFiles
        let limit = configuration.maxAudioSeconds
        return try await withDeadline(deadline, timeout: timeout) { try await files.decode(data, maxDuration: limit) }
    }
}
