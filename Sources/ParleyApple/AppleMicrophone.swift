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
/// A call or another app's audio stops playback, and capture starts again when the system says
/// it may; unplugged headphones stop the reply; a new hardware format (a route change) sets the
/// engine up again (the rules: ``AudioSessionPolicy``).
public final class AppleMicrophone: Sendable {
    /// The engine and what hangs on it, touched only under the lock (they are not `Sendable`).
    private struct Graph {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        var isAttached = false
        /// The player's format: mono at the mixer's rate, set when capture starts.
        var playbackFormat: AVAudioFormat?
        /// Brings replies (any rate) to the player's rate.
        var playback: PCMConverter?
        /// Where captured audio and levels go, while capturing.
        var sinks: (audio: AsyncStream<ParleyCore.AudioBuffer>.Continuation, levels: AsyncStream<Float>.Continuation)?
        /// The notification observers, removed when capture stops.
        var observers: [any NSObjectProtocol] = []
        var policy = AudioSessionPolicy()
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
            graph.sinks = (audioSink, levelSink)
            // Made here, not before the lock: a non-Sendable value captured from outside could
            // not be stored in the locked graph (region isolation; `swiftc -typecheck` does not
            // see it, emitting the module does).
            graph.observers = observe()
            graph.policy.isCapturing = true
            try Self.configure(&graph, capture: capture)
        }
        audioSink.onTermination = { [weak self] _ in self?.stop() }
        return (audio, levels)
    }

    /// Sets the engine up for the hardware as it is now and starts it: the player connected in
    /// the format of what it plays (mono: a stereo connection with mono buffers scheduled
    /// raises) at the mixer's rate, and the tap at the input's own format, converted here.
    private static func configure(_ graph: inout Graph, capture: Locked<Capture>) throws {
        guard let sinks = graph.sinks else { return }
        let input = graph.engine.inputNode
        input.removeTap(onBus: 0)
        try input.setVoiceProcessingEnabled(true)
        let mixerRate = graph.engine.mainMixerNode.outputFormat(forBus: 0).sampleRate
        guard let playbackFormat = AVAudioFormat(standardFormatWithSampleRate: mixerRate > 0 ? mixerRate : 48_000, channels: 1) else {
            throw ProviderError.unavailable(provider: "apple-microphone", .unsupported(reason: "no mono playback format at \(mixerRate) Hz"))
        }
        if !graph.isAttached {
            graph.engine.attach(graph.player)
            graph.isAttached = true
        }
        graph.engine.connect(graph.player, to: graph.engine.mainMixerNode, format: playbackFormat)
        graph.playbackFormat = playbackFormat
        graph.playback = nil
        let format = input.outputFormat(forBus: 0)
        input.installTap(onBus: 0, bufferSize: 1_024, format: format) { @Sendable buffer, _ in
            guard let channels = buffer.floatChannelData else { return }
            let frames = Int(buffer.frameLength)
            let arrays = (0..<Int(format.channelCount)).map { Array(UnsafeBufferPointer(start: channels[$0], count: frames)) }
            let (converted, level) = capture.withLock { capture in
                let converted = capture.converter.convert(channels: arrays, sampleRate: Int(format.sampleRate))
                return (converted, capture.meter.take(converted))
            }
            sinks.audio.yield(converted)
            sinks.levels.yield(level)
        }
        graph.engine.prepare()
        try graph.engine.start()
    }

    /// The system's notifications, each mapped to an ``AudioSessionPolicy/Event``.
    private func observe() -> [any NSObjectProtocol] {
        let center = NotificationCenter.default
        // Delivered on a queue of their own, never on the thread that posts them: the engine may
        // post while this class holds its lock (starting it), and the lock is not reentrant.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        var observers: [any NSObjectProtocol] = []
        func on(_ name: NSNotification.Name, _ event: @escaping @Sendable (Notification) -> AudioSessionPolicy.Event?) {
            observers.append(
                center.addObserver(forName: name, object: nil, queue: queue) { [weak self] notification in
                    if let event = event(notification) { self?.handle(event) }
                })
        }
        on(.AVAudioEngineConfigurationChange) { _ in .engineConfigurationChanged }
        #if !os(macOS)
        on(AVAudioSession.interruptionNotification) { notification in
            let info = notification.userInfo ?? [:]
            switch (info[AVAudioSessionInterruptionTypeKey] as? UInt).flatMap(AVAudioSession.InterruptionType.init(rawValue:)) {
            case .began: return .interruptionBegan
            case .ended:
                let options = AVAudioSession.InterruptionOptions(rawValue: info[AVAudioSessionInterruptionOptionKey] as? UInt ?? 0)
                return .interruptionEnded(shouldResume: options.contains(.shouldResume))
            default: return nil
            }
        }
        on(AVAudioSession.routeChangeNotification) { notification in
            switch (notification.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt).flatMap(AVAudioSession.RouteChangeReason.init(rawValue:)) {
            case .newDeviceAvailable: return .routeChanged(.newDeviceAvailable)
            case .oldDeviceUnavailable: return .routeChanged(.oldDeviceUnavailable)
            default: return .routeChanged(.other)
            }
        }
        on(AVAudioSession.mediaServicesWereResetNotification) { _ in .mediaServicesReset }
        #endif
        return observers
    }

    /// Carries out what the policy says for `event`.
    private func handle(_ event: AudioSessionPolicy.Event) {
        let capture = self.capture
        graph.withLock { graph in
            for action in graph.policy.handle(event) {
                switch action {
                case .stopPlayback:
                    graph.player.stop()
                    graph.playback = nil
                case .restart:
                    // A restart that fails leaves capture stopped; the next change tries again.
                    try? Self.configure(&graph, capture: capture)
                }
            }
        }
    }

    /// Plays a reply's audio through the engine (and its echo canceller), resampled to the
    /// player's rate; the resampler's last few samples come with the next buffer.
    public func play(_ audio: ParleyCore.AudioBuffer) {
        graph.withLock { graph in
            guard let format = graph.playbackFormat, !graph.policy.isInterrupted else { return }
            var converter = graph.playback ?? PCMConverter(outputRate: Int(format.sampleRate))
            let samples = converter.convert(channels: [audio.samples], sampleRate: audio.sampleRate).samples
            graph.playback = converter
            guard !samples.isEmpty,
                let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count)),
                let channel = buffer.floatChannelData?[0]
            else { return }
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
        let (observers, sinks) = graph.withLock { graph in
            graph.engine.inputNode.removeTap(onBus: 0)
            graph.player.stop()
            graph.engine.stop()
            graph.playback = nil
            graph.policy.isCapturing = false
            let observers = graph.observers
            let sinks = graph.sinks
            graph.observers = []
            graph.sinks = nil
            return (observers, sinks)
        }
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        sinks?.audio.finish()
        sinks?.levels.finish()
    }
}
#endif
