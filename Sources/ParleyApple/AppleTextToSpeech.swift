#if canImport(AVFoundation)
import AVFoundation
import ParleyAppleSupport
import ParleyCore

// Never compiled on the Linux machines this package is developed on (see README).

/// Text to speech with the system's voices (`AVSpeechSynthesizer.write`), into audio buffers
/// rather than the speaker, so replies go through Parley's own playback and barge-in.
public struct AppleTextToSpeech: TextToSpeechProvider {
    public let identity = ProviderIdentity(name: "apple-speech-synthesis", isLocal: true)

    /// The system's synthesizer.
    public init() {}

    public func availability() async -> Availability {
        AVSpeechSynthesisVoice.speechVoices().isEmpty ? .unsupported(reason: "the system has no speech voices") : .ready
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        AsyncThrowingStream { continuation in
            let synthesizer = AVSpeechSynthesizer()
            let utterance = AVSpeechUtterance(string: text)
            if let voice = options.customVoice.flatMap({ AVSpeechSynthesisVoice(identifier: $0) ?? AVSpeechSynthesisVoice(language: $0) }) {
                utterance.voice = voice
            }
            utterance.rate = Float(Double(AVSpeechUtteranceDefaultSpeechRate) * options.rate)
            let converter = ConverterBox()
            synthesizer.write(utterance) { buffer in
                guard let pcm = buffer as? AVAudioPCMBuffer, pcm.frameLength > 0 else {
                    continuation.yield(converter.finish())
                    continuation.finish()
                    return
                }
                let rate = Int(pcm.format.sampleRate)
                let frames = Int(pcm.frameLength)
                if let channels = pcm.floatChannelData {
                    let arrays = (0..<Int(pcm.format.channelCount)).map { Array(UnsafeBufferPointer(start: channels[$0], count: frames)) }
                    continuation.yield(converter.convert(channels: arrays, sampleRate: rate))
                } else if let channels = pcm.int16ChannelData {
                    let samples = Array(UnsafeBufferPointer(start: channels[0], count: frames))
                    continuation.yield(converter.convert(int16: samples, sampleRate: rate))
                }
            }
            continuation.onTermination = { _ in synthesizer.stopSpeaking(at: .immediate) }
        }
    }
}

/// The converter of one utterance's buffers, which arrive one after another on the
/// synthesizer's queue.
private final class ConverterBox: @unchecked Sendable {
    private var converter = PCMConverter(outputRate: 24_000)
    func convert(channels: [[Float]], sampleRate: Int) -> AudioBuffer { converter.convert(channels: channels, sampleRate: sampleRate) }
    func convert(int16 samples: [Int16], sampleRate: Int) -> AudioBuffer { converter.convert(int16: samples, channelCount: 1, sampleRate: sampleRate) }
    func finish() -> AudioBuffer { converter.finish() }
}
#endif
