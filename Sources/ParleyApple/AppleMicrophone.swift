#if canImport(AVFoundation) && !os(watchOS)
import AVFoundation
import ParleyAppleSupport
import ParleyCore

// Never compiled on the Linux machines this package is developed on (see README).

/// The microphone through `AVAudioEngine`, with the system's voice processing (echo
/// cancellation, so the user can talk over a reply: barge-in), as 16 kHz mono buffers and a
/// level for the face to draw. Playback of replies goes through the same engine, so the echo
/// canceller hears what is played.
public final class AppleMicrophone: @unchecked Sendable {
    private let engine = AVAudioEngine()
    private let player = AVAudioPlayerNode()
    private var converter = PCMConverter(outputRate: 16_000)
    private var meter = LevelMeter()

    /// A microphone; nothing starts until ``start()``.
    public init() {}

    /// Starts capture: the buffers (16 kHz mono) and the level (0…1) of each.
    public func start() throws -> (audio: AsyncStream<AudioBuffer>, levels: AsyncStream<Float>) {
        let (audio, audioSink) = AsyncStream.makeStream(of: AudioBuffer.self)
        let (levels, levelSink) = AsyncStream.makeStream(of: Float.self)
        let input = engine.inputNode
        try input.setVoiceProcessingEnabled(true)
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: nil)
        let format = input.outputFormat(forBus: 0)
        input.installTap(onBus: 0, bufferSize: 1_024, format: format) { [weak self] buffer, _ in
            guard let self, let channels = buffer.floatChannelData else { return }
            let frames = Int(buffer.frameLength)
            let arrays = (0..<Int(format.channelCount)).map { Array(UnsafeBufferPointer(start: channels[$0], count: frames)) }
            let converted = self.converter.convert(channels: arrays, sampleRate: Int(format.sampleRate))
            audioSink.yield(converted)
            levelSink.yield(self.meter.take(converted))
        }
        audioSink.onTermination = { [weak self] _ in self?.stop() }
        try engine.start()
        return (audio, levels)
    }

    /// Plays a reply's audio through the engine (and its echo canceller).
    public func play(_ audio: AudioBuffer) {
        guard let format = AVAudioFormat(standardFormatWithSampleRate: Double(audio.sampleRate), channels: 1),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(audio.samples.count)),
              let channel = buffer.floatChannelData?[0] else { return }
        buffer.frameLength = AVAudioFrameCount(audio.samples.count)
        for (index, sample) in audio.samples.enumerated() { channel[index] = sample }
        player.scheduleBuffer(buffer)
        if !player.isPlaying { player.play() }
    }

    /// Stops what is playing (barge-in).
    public func stopPlayback() {
        player.stop()
    }

    /// Stops capture and playback.
    public func stop() {
        engine.inputNode.removeTap(onBus: 0)
        player.stop()
        engine.stop()
    }
}
#endif
