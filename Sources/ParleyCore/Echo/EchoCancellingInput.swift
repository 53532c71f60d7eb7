/// Microphone frames with the speaker's echo removed, for a conversation's input.
public enum EchoCancellingInput {
    /// `frames` passed through `canceller`, each matched with as much of `reference` as it
    /// holds. Frames at another rate than the canceller's pass through untouched (a canceller is
    /// made for the microphone's rate). Ends when `frames` ends; cancelling the consumer stops it.
    public static func frames<S: AsyncSequence & Sendable>(
        _ frames: S, canceller: any EchoCanceller, reference: FarEndBuffer
    ) -> AsyncStream<AudioBuffer> where S.Element == AudioBuffer {
        AsyncStream { continuation in
            let task = Task {
                do {
                    for try await frame in frames {
                        guard frame.sampleRate == canceller.sampleRate else {
                            continuation.yield(frame)
                            continue
                        }
                        let far = await reference.take(frame.samples.count)
                        let cleaned = await canceller.cancel(microphone: frame.samples, speaker: far)
                        if !cleaned.isEmpty { continuation.yield(AudioBuffer(samples: cleaned, sampleRate: frame.sampleRate)) }
                    }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
