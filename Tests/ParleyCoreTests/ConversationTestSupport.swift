import Foundation
import ParleyTesting
@testable import ParleyCore

/// Audio for conversation tests: a 150 Hz tone stands for speech (the energy VAD hears it),
/// zeros for silence; all at 16 kHz.
enum TestAudio {
    static func speech(_ seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 150 * Double($0) / 16_000)) }
    }

    static func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * 16_000)) }

    /// `samples` as 100 ms frames.
    static func frames(_ samples: [Float]) -> [AudioBuffer] {
        stride(from: 0, to: samples.count, by: 1_600).map {
            AudioBuffer(samples: Array(samples[$0..<min(samples.count, $0 + 1_600)]), sampleRate: 16_000)
        }
    }

    /// `samples` as a finished stream of 100 ms frames.
    static func stream(_ samples: [Float]) -> AsyncStream<AudioBuffer> {
        AsyncStream { continuation in
            for frame in frames(samples) { continuation.yield(frame) }
            continuation.finish()
        }
    }
}

/// Records what a conversation writes down.
actor RecordingJournal: ConversationJournal {
    private(set) var entries: [JournalEntry] = []
    func record(_ entry: JournalEntry) { entries.append(entry) }
}

/// An output whose playback of the replies listed in `held` never ends by itself (the
/// listener is still hearing it), and which reports `heardOnStop` seconds when stopped.
actor HeldOutput: AudioOutput {
    private let held: Set<Int>
    private let heardOnStop: Double
    /// Never advanced: a held reply plays until its task is cancelled.
    private let clock = ManualClock()
    private var reply = 0
    private var queued = 0.0
    private(set) var holding = false

    init(held: Set<Int>, heardOnStop: Double) {
        self.held = held
        self.heardOnStop = heardOnStop
    }

    func beginReply() {
        reply += 1
        queued = 0
    }

    func play(_ chunk: AudioBuffer) { queued += chunk.duration }
    func stop() -> Double { min(heardOnStop, queued) }

    func finish() async -> Double {
        guard held.contains(reply) else { return queued }
        holding = true
        defer { holding = false }
        try? await clock.sleep(for: .seconds(3_600))
        return stop()
    }

    /// Waits (yielding) until a held reply is playing.
    func waitUntilHolding() async {
        while !holding { await Task.yield() }
    }
}

/// A language model that writes its pieces with a pause on `clock` before each, to model
/// generation time without real sleeping.
actor PacedLanguageModel: LanguageModelProvider {
    nonisolated let identity = ProviderIdentity(name: "paced", isLocal: true)
    nonisolated let capabilities = LanguageModelCapabilities.textOnly
    private let pieces: [String]
    private let pause: Duration
    private let clock: ManualClock

    init(pieces: [String], pause: Duration, clock: ManualClock) {
        self.pieces = pieces
        self.pause = pause
        self.clock = clock
    }

    nonisolated func availability() async -> Availability { .ready }

    nonisolated func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        let pieces = self.pieces, pause = self.pause, clock = self.clock
        return AsyncThrowingStream { continuation in
            let task = Task {
                for piece in pieces {
                    do { try await clock.sleep(for: pause) } catch { break }
                    continuation.yield(.text(piece))
                }
                continuation.yield(.finished(.stop, Usage(outputTokens: pieces.count)))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A transcriber whose live session reports how much audio it heard; whole-buffer calls are
/// recorded so a test can check they were not needed. With `failing`, the live session
/// breaks after its first partial.
actor LiveCountingSpeechToText: SpeechToTextProvider {
    nonisolated let identity = ProviderIdentity(name: "live-counter", isLocal: true)
    nonisolated let preferredSampleRate = 16_000
    nonisolated var transcribesLive: Bool { true }
    nonisolated let failing: Bool
    private(set) var wholeBufferCalls = 0

    init(failing: Bool = false) {
        self.failing = failing
    }

    nonisolated func availability() async -> Availability { .ready }

    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        wholeBufferCalls += 1
        return Transcript(text: "whole buffer of \(audio.samples.count) samples")
    }

    nonisolated func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        let failing = self.failing
        return AsyncThrowingStream { continuation in
            let task = Task {
                var samples = 0
                var announced = 0
                for try await frame in frames {
                    samples += frame.samples.count
                    if samples / 8_000 > announced {
                        announced = samples / 8_000
                        continuation.yield(.partial("heard \(announced * 500) ms"))
                        if failing {
                            continuation.finish(throwing: ProviderError.engineFailure(provider: "live-counter", detail: "connection reset"))
                            return
                        }
                    }
                }
                continuation.yield(.final(Transcript(text: "heard \(samples) samples")))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Collects a stream's updates until it ends.
func collect(_ updates: AsyncStream<ConversationUpdate>) -> Task<[ConversationUpdate], Never> {
    Task {
        var seen: [ConversationUpdate] = []
        for await update in updates { seen.append(update) }
        return seen
    }
}

extension [ConversationUpdate] {
    /// The states entered, in order.
    var states: [ConversationState] {
        compactMap { if case .transition(_, let to) = $0 { to } else { nil } }
    }

    /// The audio levels reported, in order.
    var levels: [Float] {
        compactMap { if case .audioLevel(let level) = $0 { level } else { nil } }
    }
}
