import Foundation
import ParleyCore
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
            var busy = OpenAIError(
                status: .serviceUnavailable, message: "Every audio decoder is busy (\(decoders.limit) at once): try again in a moment.",
                type: "server_error", code: "decoders_busy")
            busy.retryAfter = 1
            throw busy
        }
        defer { decoders.give() }
        let files = audioFiles
        let limit = configuration.maxAudioSeconds
        var audio = try await withDeadline(deadline, timeout: timeout) { try await files.decode(data, maxDuration: limit) }
        // A file that claims a rate no recorder uses (1 Hz: a few bytes that stand for minutes
        // of audio once resampled) is refused; samples that are no numbers are silence.
        guard audio.sampleRate >= Self.lowestSampleRate else {
            throw OpenAIError.invalidRequest(
                "The audio's sample rate is \(audio.sampleRate) Hz; send audio recorded at \(Self.lowestSampleRate) Hz or more.",
                param: "file", code: "invalid_audio")
        }
        if audio.samples.contains(where: { !$0.isFinite }) {
            audio.samples = audio.samples.map { $0.isFinite ? min(1, max(-1, $0)) : 0 }
        }
        return audio
    }

    /// The lowest sample rate accepted in uploads (telephone audio is 8 kHz).
    static let lowestSampleRate = 4_000
}
