import Foundation
import ParleyCore

/// A simulated room around a conversation: the microphone hears the reply coming back from a
/// ``PulledSpeaker`` through ``RoomAcoustics`` (delay, reverberation, noise), and the user's
/// lines spoken over it; with a canceller, the conversation hears the microphone after echo
/// cancellation, the speaker's audio as the reference.
///
/// The microphone is the clock: each 100 ms frame pulls 100 ms of the reply, so echo and
/// reference line up exactly as on a device. Frames come at the pace of real time (or as fast as
/// they are made, without `realtime`).
public actor RoomRig {
    /// When a line is said.
    public enum Start: Sendable {
        /// This many seconds after the microphone opened.
        case atSecond(Double)
        /// This many seconds after the first reply began to play.
        case intoReply(Double)
    }

    /// Something the user says in the room, at 16 kHz.
    public struct Line: Sendable {
        public var samples: [Float]
        public var start: Start
        /// Whether it is said over a reply (a backchannel, a cough, a barge-in), not a question.
        public var overReply: Bool

        public init(samples: [Float], start: Start, overReply: Bool) {
            self.samples = samples
            self.start = start
            self.overReply = overReply
        }
    }

    /// Samples per microphone frame (100 ms at 16 kHz).
    public static let frameSize = 1_600
    public nonisolated let sampleRate = 16_000
    private let speaker: PulledSpeaker
    private var echo: RoomEcho
    private let canceller: (any EchoCanceller)?
    private let realtime: Bool
    private let tailSeconds: Double
    private let maximumSeconds: Double
    private var lines: [Line]
    private var lineStarts: [Int?]
    private var position = 0
    private var firstReplyAt: Int?
    // Energy of the microphone and of the canceller's output on frames with echo and no user speech.
    private var echoEnergy: Double = 0
    private var residualEnergy: Double = 0

    /// A room in which `speaker` plays and `lines` are said; `canceller` (if any) cleans the
    /// microphone. The microphone closes `tailSeconds` after the last line and reply, or at
    /// `maximumSeconds`.
    public init(
        acoustics: RoomAcoustics, speaker: PulledSpeaker, lines: [Line], canceller: (any EchoCanceller)?,
        realtime: Bool = true, tailSeconds: Double = 3, maximumSeconds: Double = 60
    ) {
        precondition(acoustics.sampleRate == 16_000 && speaker.sampleRate == 16_000, "the rig runs at 16 kHz")
        self.speaker = speaker
        self.echo = RoomEcho(acoustics)
        self.canceller = canceller
        self.realtime = realtime
        self.tailSeconds = tailSeconds
        self.maximumSeconds = maximumSeconds
        self.lines = lines
        self.lineStarts = lines.map { _ in nil }
    }

    /// Seconds since the microphone opened.
    public var now: Double { Double(position) / Double(sampleRate) }

    /// Whether a line said over a reply is being said (or ended under half a second ago: the
    /// detector's decision trails the sound).
    public var userSpeaksOverReply: Bool {
        lines.indices.contains { index in
            guard lines[index].overReply, let start = lineStarts[index] else { return false }
            return position < start + lines[index].samples.count + sampleRate / 2
        }
    }

    /// Whether every line over a reply has begun.
    public var saidEverything: Bool { !lineStarts.contains { $0 == nil } }

    /// Echo return loss enhancement on frames with echo and no user speech, in dB (nil without a
    /// canceller or echo).
    public var erle: Double? {
        guard canceller != nil, echoEnergy > 0, residualEnergy > 0 else { return nil }
        return 10 * log10(echoEnergy / residualEnergy)
    }

    /// The microphone's frames, as the conversation hears them.
    public func microphone() -> AsyncStream<AudioBuffer> {
        AsyncStream { continuation in
            let task = Task {
                let clock = ContinuousClock()
                let opened = clock.now
                var frame = 0
                while !Task.isCancelled, let samples = await self.nextFrame() {
                    continuation.yield(AudioBuffer(samples: samples, sampleRate: 16_000))
                    frame += 1
                    if realtime { try? await clock.sleep(until: opened.advanced(by: .milliseconds(100 * frame)), tolerance: nil) }
                }
                continuation.finish()
                await self.close()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private var quietSince = 0

    /// Whether the microphone has closed.
    public private(set) var closed = false

    private func close() { closed = true }

    /// The next frame, or nil when the room falls silent for good.
    private func nextFrame() async -> [Float]? {
        let count = Self.frameSize
        guard Double(position) < maximumSeconds * Double(sampleRate) else { return nil }
        let played = await speaker.pull(count)
        let playing = await speaker.isPlaying
        if playing, firstReplyAt == nil { firstReplyAt = position }
        var heard = echo.hear(played)
        let echoOnly = heard
        var userActive = false
        for index in lines.indices {
            if lineStarts[index] == nil {
                switch lines[index].start {
                case .atSecond(let seconds) where Double(position) >= seconds * Double(sampleRate): lineStarts[index] = position
                case .intoReply(let seconds):
                    if let firstReplyAt, position >= firstReplyAt + Int(seconds * Double(sampleRate)) { lineStarts[index] = position }
                default: break
                }
            }
            guard let start = lineStarts[index] else { continue }
            let offset = position - start
            guard offset < lines[index].samples.count else { continue }
            userActive = true
            for sample in 0..<count where offset + sample < lines[index].samples.count {
                heard[sample] += lines[index].samples[offset + sample]
            }
        }
        var output = heard
        if let canceller {
            output = await canceller.cancel(microphone: heard, speaker: played)
            if !userActive, played.contains(where: { $0 != 0 }), output.count == heard.count {
                echoEnergy += echoOnly.reduce(0) { $0 + Double($1 * $1) }
                residualEnergy += output.reduce(0) { $0 + Double($1 * $1) }
            }
        }
        position += count
        if playing || userActive || !saidEverything || firstReplyAt == nil { quietSince = position }
        if Double(position - quietSince) >= tailSeconds * Double(sampleRate) { return nil }
        return output
    }
}
