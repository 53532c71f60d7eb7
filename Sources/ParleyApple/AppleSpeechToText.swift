#if canImport(Speech) && canImport(AVFoundation)
import AVFoundation
import ParleyAppleSupport
import ParleyCore
import Speech

// Never compiled on the Linux machines this package is developed on (see README).

/// Speech to text with Apple's on-device recognizer (`SFSpeechRecognizer` with
/// `requiresOnDeviceRecognition`): the audio never leaves the device. Its availability is read
/// without asking the user (authorization is the app's to request, when it chooses).
public struct AppleSpeechToText: SpeechToTextProvider {
    public let identity: ProviderIdentity
    public let preferredSampleRate = 16_000
    private let locale: Locale

    /// A recognizer for `locale`.
    public init(locale: Locale = Locale(identifier: "en-US")) {
        self.locale = locale
        identity = ProviderIdentity(name: "apple-speech", model: locale.identifier, isLocal: true)
    }

    public func availability() async -> Availability {
        guard SFSpeechRecognizer.authorizationStatus() == .authorized else {
            return .unsupported(reason: "speech recognition is not authorized: the app must ask (SFSpeechRecognizer.requestAuthorization)")
        }
        guard let recognizer = SFSpeechRecognizer(locale: locale), recognizer.isAvailable else {
            return .unsupported(reason: "no speech recognizer for \(locale.identifier) right now")
        }
        return recognizer.supportsOnDeviceRecognition ? .ready : .unsupported(reason: "on-device recognition is not supported for \(locale.identifier)")
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        var last = ""
        for try await update in recognize(chunks: [audio]) {
            last = update
        }
        return Transcript(text: last, provider: identity)
    }

    /// The recognizer's cumulative transcripts for `chunks`, as it revises them.
    private func recognize(chunks: [AudioBuffer]) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            guard let recognizer = SFSpeechRecognizer(locale: locale),
                  let format = AVAudioFormat(standardFormatWithSampleRate: Double(preferredSampleRate), channels: 1) else {
                continuation.finish(throwing: ProviderError.unavailable(provider: "apple-speech", .unsupported(reason: "no speech recognizer for \(locale.identifier)")))
                return
            }
            let request = SFSpeechAudioBufferRecognitionRequest()
            request.requiresOnDeviceRecognition = true
            request.shouldReportPartialResults = true
            let task = recognizer.recognitionTask(with: request) { result, error in
                if let result { continuation.yield(result.bestTranscription.formattedString) }
                if let error { continuation.finish(throwing: error) } else if result?.isFinal == true { continuation.finish() }
            }
            for chunk in chunks {
                guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(chunk.samples.count)),
                      let channel = buffer.floatChannelData?[0] else { continue }
                buffer.frameLength = AVAudioFrameCount(chunk.samples.count)
                chunk.samples.withUnsafeBufferPointer { samples in
                    for index in samples.indices { channel[index] = samples[index] }
                }
                request.append(buffer)
            }
            request.endAudio()
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
#endif
