import Foundation
import ParleyCore

/// A language model that replies with scripted text, split into the given pieces, and
/// records the requests it saw. For tests of orchestration only.
public actor ScriptedLanguageModel: LanguageModelProvider {
    public nonisolated let identity: ProviderIdentity
    /// What the model declares it can do (nothing is checked: it answers every request).
    public nonisolated let capabilities: LanguageModelCapabilities
    private var replies: [[String]]
    private var nextReply = 0
    /// The requests received, in order.
    public private(set) var requests: [ChatRequest] = []
    /// A delay before each piece, to model generation time.
    public let pieceDelay: Duration

    /// Creates a model that answers the n-th request with `replies[n]`'s pieces (cycling).
    public init(
        name: String = "scripted", replies: [[String]], capabilities: LanguageModelCapabilities = .textOnly,
        pieceDelay: Duration = .zero
    ) {
        self.identity = ProviderIdentity(name: name, isLocal: true)
        self.replies = replies
        self.capabilities = capabilities
        self.pieceDelay = pieceDelay
    }

    /// Creates a model that reads images or not, and declares nothing else.
    public init(name: String = "scripted", replies: [[String]], supportsImages: Bool, pieceDelay: Duration = .zero) {
        self.init(name: name, replies: replies, capabilities: LanguageModelCapabilities(images: supportsImages), pieceDelay: pieceDelay)
    }

    public nonisolated func availability() async -> Availability { .ready }

    private func take(_ request: ChatRequest) -> [String] {
        requests.append(request)
        defer { nextReply += 1 }
        return replies.isEmpty ? [] : replies[nextReply % replies.count]
    }

    public nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        .producing { continuation in
            let pieces = await self.take(request)
            for piece in pieces {
                if self.pieceDelay > .zero { try? await Task.sleep(for: self.pieceDelay) }
                if Task.isCancelled {
                    continuation.yield(.finished(.cancelled, Usage()))
                    return
                }
                continuation.yield(.text(piece))
            }
            continuation.yield(.finished(.stop, Usage(inputTokens: request.messages.count, outputTokens: pieces.count)))
        }
    }
}

/// A transcriber that returns scripted transcripts in order and records the audio it got.
public actor ScriptedSpeechToText: SpeechToTextProvider {
    public nonisolated let identity = ProviderIdentity(name: "scripted-stt", isLocal: true)
    public nonisolated let preferredSampleRate: Int
    private var transcripts: [String]
    /// The audio received, in order.
    public private(set) var received: [AudioBuffer] = []

    /// Creates a transcriber answering the n-th call with `transcripts[n]` (the last repeats).
    public init(transcripts: [String], preferredSampleRate: Int = 16_000) {
        self.transcripts = transcripts
        self.preferredSampleRate = preferredSampleRate
    }

    public nonisolated func availability() async -> Availability { .ready }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        received.append(audio)
        let index = min(received.count - 1, transcripts.count - 1)
        return Transcript(text: index >= 0 ? transcripts[index] : "")
    }
}

/// A synthesizer that renders each piece of text as a tone whose length is proportional to
/// the text, and records what it was asked to say.
public actor ToneTextToSpeech: TextToSpeechProvider {
    public nonisolated let identity = ProviderIdentity(name: "tone-tts", isLocal: true)
    public nonisolated let sampleRate: Int
    /// The texts received, in order.
    public private(set) var spoken: [String] = []

    /// Creates a synthesizer at `sampleRate`.
    public init(sampleRate: Int = 16_000) {
        self.sampleRate = sampleRate
    }

    public nonisolated func availability() async -> Availability { .ready }

    private func record(_ text: String) { spoken.append(text) }

    public nonisolated func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let rate = sampleRate
        return .producing { continuation in
            await self.record(text)
            let count = max(1, text.count) * rate / 100
            let samples = (0..<count).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
            continuation.yield(AudioBuffer(samples: samples, sampleRate: rate))
        }
    }
}
