#if canImport(AVFoundation) && !os(watchOS)
import AVFoundation
import ParleyAppleSupport
import ParleyCore

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here (see README). AVFoundation brings
// CoreAudioTypes' C struct `AudioBuffer`: Parley's is always written `ParleyCore.AudioBuffer`.

/// The microphone through `AVAudioEngine`, with the system's voice processing (echo
/// cancellation, so the user can talk over a reply: barge-in), as 16 kHz mono buffers and a
/// level for the face to draw. Playback of replies goes through the same engine, so the echo
/// canceller hears what is played.
///
/// On iOS it sets the app's audio session to `.playAndRecord` (voice chat mode, the speaker by
/// default) when it starts; an app that manages its session itself sets it up before ``start()``.
public final class AppleMicrophone: Sendable {
    /// The engine and its player, touched only under the lock (they are not `Sendable`).
    private struct Graph {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        /// The player's format: mono at the mixer's rate, set when capture starts.
        var playbackFormat: AVAudioFormat?
        /// Brings replies (any rate) to the player's rate.
        var playback: PCMConverter?
    }

    /// What the tap keeps between buffers (it runs on the audio thread).
    private struct Capture {
        var converter = PCMConverter(outputRate: 16_000)
        var meter = LevelMeter()
    }

    private let graph = Locked(Graph())
    private let capture = Locked(Capture())

    /// A microphone; nothing starts until ``start()``.
    public init() {}

    /// Starts capture: the buffers (16 kHz mono) and the level (0…1) of each.
    public func start() throws -> (audio: AsyncStream<ParleyCore.AudioBuffer>, levels: AsyncStream<Float>) {
        let (audio, audioSink) = AsyncStream.makeStream(of: ParleyCore.AudioBuffer.self)
        let (levels, levelSink) = AsyncStream.makeStream(of: Float.self)
        let capture = self.capture
        try graph.withLock { graph in
            #if !os(macOS)
            // Without an active play-and-record session the input has no format (0 Hz) and
            // installing the tap raises.
            let session = AVAudioSession.sharedInstance()
            try session.setCategory(.playAndRecord, mode: .voiceChat, options: [.defaultToSpeaker])
            try session.setActive(true)
            #endif
            let input = graph.engine.inputNode
            try input.setVoiceProcessingEnabled(true)
            // The player is connected in the format of what it plays: mono (a stereo connection
            // with mono buffers scheduled raises), at the mixer's rate; replies are resampled.
            let mixerRate = graph.engine.mainMixerNode.outputFormat(forBus: 0).sampleRate
            guard let playbackFormat = AVAudioFormat(standardFormatWithSampleRate: mixerRate > 0 ? mixerRate : 48_000, channels: 1) else {
                throw ProviderError.unavailable(provider: "apple-microphone", .unsupported(reason: "no mono playback format at \(mixerRate) Hz"))
            }
            graph.engine.attach(graph.player)
            graph.engine.connect(graph.player, to: graph.engine.mainMixerNode, format: playbackFormat)
            graph.playbackFormat = playbackFormat
            graph.playback = nil
            // The tap at the hardware's format, converted to 16 kHz mono here.
            let format = input.outputFormat(forBus: 0)
            input.installTap(onBus: 0, bufferSize: 1_024, format: format) { @Sendable buffer, _ in
                guard let channels = buffer.floatChannelData else { return }
                let frames = Int(buffer.frameLength)
                let arrays = (0..<Int(format.channelCount)).map { Array(UnsafeBufferPointer(start: channels[$0], count: frames)) }
                let (converted, level) = capture.withLock { capture in
                    let converted = capture.converter.convert(channels: arrays, sampleRate: Int(format.sampleRate))
                    return (converted, capture.meter.take(converted))
                }
                audioSink.yield(converted)
                levelSink.yield(level)
            }
            try graph.engine.start()
        }
        audioSink.onTermination = { [weak self] _ in self?.stop() }
        return (audio, levels)
    }

    /// Plays a reply's audio through the engine (and its echo canceller), resampled to the
    /// player's rate; the resampler's last few samples come with the next buffer.
    public func play(_ audio: ParleyCore.AudioBuffer) {
        graph.withLock { graph in
            guard let format = graph.playbackFormat else { return }
            var converter = graph.playback ?? PCMConverter(outputRate: Int(format.sampleRate))
            let samples = converter.convert(channels: [audio.samples], sampleRate: audio.sampleRate).samples
            graph.playback = converter
            guard !samples.isEmpty,
                  let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count)),
                  let channel = buffer.floatChannelData?[0] else { return }
            buffer.frameLength = AVAudioFrameCount(samples.count)
            for (index, sample) in samples.enumerated() { channel[index] = sample }
            graph.player.scheduleBuffer(buffer)
            if !graph.player.isPlaying { graph.player.play() }
        }
    }

    /// Stops what is playing (barge-in).
    public func stopPlayback() {
        graph.withLock { graph in
            graph.player.stop()
            graph.playback = nil
        }
    }

    /// Stops capture and playback.
    public func stop() {
        graph.withLock { graph in
            graph.engine.inputNode.removeTap(onBus: 0)
            graph.player.stop()
            graph.engine.stop()
            graph.playback = nil
        }
    }
}
#endif
