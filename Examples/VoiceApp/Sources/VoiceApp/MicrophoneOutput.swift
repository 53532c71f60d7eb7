#if canImport(AVFoundation)
import ParleyApple
import ParleyCore
import Synchronization
import VoiceAppModel

/// Replies played through `AppleMicrophone`'s engine (so its echo canceller hears them and the
/// user can talk over them). The player does not say how far it got, so what was heard is
/// counted on the clock (``PlaybackTimeline``).
final class MicrophoneOutput: AudioOutput {
    private let microphone: AppleMicrophone
    private let timeline = Mutex(PlaybackTimeline())
    private let origin = ContinuousClock.now

    init(_ microphone: AppleMicrophone) {
        self.microphone = microphone
    }

    /// Seconds since this output was made.
    private func now() -> Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func beginReply() async {
        timeline.withLock { $0.begin() }
    }

    func play(_ chunk: ParleyCore.AudioBuffer) async {
        guard chunk.sampleRate > 0, !chunk.samples.isEmpty else { return }
        microphone.play(chunk)
        let seconds = Double(chunk.samples.count) / Double(chunk.sampleRate)
        let now = now()
        timeline.withLock { $0.schedule(seconds, at: now) }
    }

    func stop() async -> Double {
        microphone.stopPlayback()
        let now = now()
        return timeline.withLock { timeline in
            let heard = timeline.heard(at: now)
            timeline.begin()
            return heard
        }
    }

    func finish() async -> Double {
        let remaining = timeline.withLock { [now = now()] in $0.remaining(at: now) }
        if remaining > 0 { try? await Task.sleep(for: .seconds(remaining)) }
        let now = now()
        return timeline.withLock { $0.heard(at: now) }
    }
}
#endif
