#if canImport(AVFoundation)
import AVFoundation
import ParleyAppleSupport
import ParleyCore

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here (see README). AVFoundation brings
// CoreAudioTypes' C struct `AudioBuffer`: Parley's is always written `ParleyCore.AudioBuffer`.

/// Text to speech with the system's voices (`AVSpeechSynthesizer.write`), into audio buffers
/// rather than the speaker, so replies go through Parley's own playback and barge-in.
public struct AppleTextToSpeech: TextToSpeechProvider {
    public let identity = ProviderIdentity(name: "apple-speech-synthesis", isLocal: true)

    /// The system's synthesizer.
    public init() {}

    public func availability() async -> Availability {
        AVSpeechSynthesisVoice.speechVoices().isEmpty ? AppleUnavailability.noVoice(language: nil).availability : .ready
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<ParleyCore.AudioBuffer, any Error> {
        AsyncThrowingStream { continuation in
            let synthesizer = AVSpeechSynthesizer()
            let utterance = AVSpeechUtterance(string: text)
            if let voice = options.customVoice.flatMap({ AVSpeechSynthesisVoice(identifier: $0) ?? AVSpeechSynthesisVoice(language: $0) }) {
                utterance.voice = voice
            }
            utterance.rate = Float(Double(AVSpeechUtteranceDefaultSpeechRate) * options.rate)
            // One utterance's buffers arrive one after another on the synthesizer's queue.
            let converter = Locked(PCMConverter(outputRate: 24_000))
            synthesizer.write(utterance) { buffer in
                guard let pcm = buffer as? AVAudioPCMBuffer, pcm.frameLength > 0 else {
                    let rest = converter.withLock { $0.finish() }
                    if !rest.samples.isEmpty { continuation.yield(rest) }
                    continuation.finish()
                    return
                }
                let rate = Int(pcm.format.sampleRate)
                let frames = Int(pcm.frameLength)
                if let channels = pcm.floatChannelData {
                    let arrays = (0..<Int(pcm.format.channelCount)).map { Array(UnsafeBufferPointer(start: channels[$0], count: frames)) }
                    continuation.yield(converter.withLock { $0.convert(channels: arrays, sampleRate: rate) })
                } else if let channels = pcm.int16ChannelData {
                    let samples = Array(UnsafeBufferPointer(start: channels[0], count: frames))
                    continuation.yield(converter.withLock { $0.convert(int16: samples, channelCount: 1, sampleRate: rate) })
                }
            }
            // The synthesizer lives until the stream ends, and is stopped from whichever thread ends it.
            let speaking = Locked<AVSpeechSynthesizer?>(synthesizer)
            continuation.onTermination = { _ in
                speaking.withLock { synthesizer in
                    synthesizer?.stopSpeaking(at: .immediate)
                    synthesizer = nil
                }
            }
        }
    }
}
#endif
