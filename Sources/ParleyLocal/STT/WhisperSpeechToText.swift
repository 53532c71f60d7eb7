import Foundation
import ParleyCore

/// On-device speech-to-text: whisper.cpp with a Whisper model in its ggml format.
///
/// The model loads on first use and stays loaded. Work runs on the actor's own thread.
/// Streaming sessions re-transcribe the audio so far once a second (see
/// ``SpeechToTextProvider/transcribeByWindows(stream:options:partialInterval:)``).
public actor WhisperSpeechToText: SpeechToTextProvider {
    public nonisolated let identity: ProviderIdentity
    public nonisolated let preferredSampleRate = 16_000
    /// The model file.
    public nonisolated let modelPath: String
    /// CPU threads.
    public nonisolated let threads: Int
    private let executor = ThreadExecutor(name: "parley.whisper")
    private var context: WhisperContext?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the provider; nothing is loaded until the first request.
    public init(modelPath: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.modelPath = modelPath
        self.threads = max(1, threads)
        let name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
            .replacingOccurrences(of: "ggml-", with: "")
        self.identity = ProviderIdentity(name: "whisper.cpp", model: name, isLocal: true)
    }

    public nonisolated func availability() async -> Availability {
        FileManager.default.fileExists(atPath: modelPath)
            ? .ready
            : .missingModel(path: modelPath, hint: "download a whisper.cpp (ggml) model there or pass its path in the configuration")
    }

    /// Loads the model now (otherwise it loads on the first request).
    public func load() throws(WhisperError) {
        _ = try loadedContext()
    }

    private func loadedContext() throws(WhisperError) -> WhisperContext {
        if let context { return context }
        let loaded = try WhisperContext(modelPath: modelPath)
        context = loaded
        return loaded
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) throws -> Transcript {
        guard !audio.isEmpty else { throw ProviderError.invalidInput("The audio is empty.") }
        let samples = audio.resampled(to: preferredSampleRate).samples
        let context = try loadedContext()
        let segments = try ComputeLane.shared.run { try context.transcribe(samples, threads: CoreShare.shared.threads(upTo: threads), prompt: options.prompt) }
        let parts = segments.map { Transcript.Segment(start: $0.start, end: $0.end, text: $0.text.trimmingCharacters(in: .whitespaces)) }
        let text = parts.map(\.text).joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        // Whisper writes tags such as "[BLANK_AUDIO]" or "(music)" where it hears no words.
        guard !Self.isNonSpeechMarker(text) else { return Transcript(text: "") }
        return Transcript(text: text, segments: parts)
    }

    /// Whether `text` holds no words: nothing but Whisper's bracketed tags for non-speech
    /// ("[BLANK_AUDIO]", "(music)", "[ Silence ]"), spaces and full stops.
    static func isNonSpeechMarker(_ text: String) -> Bool {
        var depth = 0
        for character in text {
            switch character {
            case "[", "(": depth += 1
            case "]", ")": depth = max(0, depth - 1)
            case " ", ".", "\n", "\t": continue
            default: if depth == 0 { return false }
            }
        }
        return true
    }
}
