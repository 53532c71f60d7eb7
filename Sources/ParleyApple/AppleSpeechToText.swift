#if canImport(Speech) && canImport(AVFoundation)
import AVFoundation
import ParleyAppleSupport
import ParleyCore
import Speech

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here (see README). AVFoundation brings
// CoreAudioTypes' C struct `AudioBuffer`: Parley's is always written `ParleyCore.AudioBuffer`.

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
        let unavailable: AppleUnavailability
        switch SFSpeechRecognizer.authorizationStatus() {
        case .authorized:
            guard let recognizer = SFSpeechRecognizer(locale: locale) else {
                unavailable = .localeUnsupported(engine: "Apple's speech recognizer", locale: locale.identifier)
                break
            }
            guard recognizer.supportsOnDeviceRecognition else {
                unavailable = .onDeviceRecognitionUnsupported(locale: locale.identifier)
                break
            }
            guard recognizer.isAvailable else {
                unavailable = .recognizerBusy(locale: locale.identifier)
                break
            }
            return .ready
        case .notDetermined: unavailable = .speechRecognitionNotDetermined
        case .denied: unavailable = .speechRecognitionDenied(restricted: false)
        case .restricted: unavailable = .speechRecognitionDenied(restricted: true)
        @unknown default: unavailable = .speechRecognitionNotDetermined
        }
        return unavailable.availability
    }

    public func transcribe(_ audio: ParleyCore.AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        var last = ""
        for try await update in recognize(audio) {
            last = update
        }
        return Transcript(text: last, provider: identity)
    }

    /// A recognizer and its task, kept alive together until the stream ends (a recognizer let go
    /// while its task runs ends the task).
    private struct Recognition {
        let recognizer: SFSpeechRecognizer
        let task: SFSpeechRecognitionTask
    }

    /// The recognizer's cumulative transcripts for `audio` (brought to 16 kHz mono first), as it
    /// revises them.
    private func recognize(_ audio: ParleyCore.AudioBuffer) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            guard let recognizer = SFSpeechRecognizer(locale: locale),
                let format = AVAudioFormat(standardFormatWithSampleRate: Double(preferredSampleRate), channels: 1)
            else {
                continuation.finish(
                    throwing: ProviderError.unavailable(provider: "apple-speech", .unsupported(reason: "no speech recognizer for \(locale.identifier)")))
                return
            }
            var converter = PCMConverter(outputRate: preferredSampleRate)
            let samples = converter.convert(channels: [audio.samples], sampleRate: audio.sampleRate).samples + converter.finish().samples
            let request = SFSpeechAudioBufferRecognitionRequest()
            request.requiresOnDeviceRecognition = true
            request.shouldReportPartialResults = true
            if let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count)),
                let channel = buffer.floatChannelData?[0]
            {
                buffer.frameLength = AVAudioFrameCount(samples.count)
                samples.withUnsafeBufferPointer { samples in
                    for index in samples.indices { channel[index] = samples[index] }
                }
                request.append(buffer)
            }
            request.endAudio()
            let task = recognizer.recognitionTask(with: request) { result, error in
                if let result { continuation.yield(result.bestTranscription.formattedString) }
                if let error { continuation.finish(throwing: error) } else if result?.isFinal == true { continuation.finish() }
            }
            // The task is cancelled (and both let go) from whichever thread ends the stream.
            let running = Locked<Recognition?>(Recognition(recognizer: recognizer, task: task))
            continuation.onTermination = { _ in
                running.withLock { recognition in
                    recognition?.task.cancel()
                    recognition = nil
                }
            }
        }
    }
}
#endif
