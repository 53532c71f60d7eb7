import Foundation
import ParleyCore

/// One conversation in a ``RoomRig``: a question, a reply heard back through the room, and
/// whatever is said over it; what the conversation made of it.
public struct RoomOutcome: Sendable {
    /// Pauses and cuts of a reply while nobody spoke over it: the reply's own echo taken for
    /// the user.
    public var selfInterruptions = 0
    /// Pauses of a reply (any cause).
    public var pauses = 0
    /// Replies resumed after a pause.
    public var resumes = 0
    /// Replies cut.
    public var cuts = 0
    /// The user turns saved, in order.
    public var savedUserTurns: [String] = []
    /// Every final transcript.
    public var transcripts: [String] = []
    /// Echo return loss enhancement over the run, when a canceller ran.
    public var erle: Double?

    public init() {}
}

/// Runs conversations in a ``RoomRig``.
public enum RoomRun {
    private actor Journal: ConversationJournal {
        private(set) var entries: [JournalEntry] = []
        func record(_ entry: JournalEntry) { entries.append(entry) }
    }

    private actor Tally {
        var outcome = RoomOutcome()
        func update(_ change: (inout RoomOutcome) -> Void) { change(&outcome) }
    }

    /// Lets `canceller` learn the room on `played` (16 kHz) coming back through it, as it would
    /// have on an earlier reply of the session (or a greeting): a canceller that has never heard
    /// the room lets the first half second of the first reply through.
    public static func warm(_ canceller: any EchoCanceller, in acoustics: RoomAcoustics, on played: [Float]) async {
        var echo = RoomEcho(acoustics)
        for offset in stride(from: 0, to: played.count, by: RoomRig.frameSize) {
            let far = Array(played[offset..<min(played.count, offset + RoomRig.frameSize)])
            _ = await canceller.cancel(microphone: echo.hear(far), speaker: far)
        }
    }

    /// Asks `question` (said 0.3 s after the microphone opens), lets `llm` answer through `tts`
    /// out of the room's speaker, and says each of `over` over the reply; returns what the
    /// conversation heard and did. `canceller`, when given, cleans the microphone. The room
    /// closes 3 s after the last reply and line, or after `maximumSeconds` (a reply that keeps
    /// interrupting itself would go on for ever).
    public static func run(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider, llm: any LanguageModelProvider, tts: any TextToSpeechProvider,
        acoustics: RoomAcoustics, question: [Float], over: [RoomRig.Line], canceller: (any EchoCanceller)?,
        interruption: InterruptionRules, realtime: Bool = true, maximumSeconds: Double = 30, warmUp: [Float]? = nil
    ) async throws -> RoomOutcome {
        if let canceller, let warmUp { await warm(canceller, in: acoustics, on: warmUp) }
        let speaker = PulledSpeaker(sampleRate: 16_000)
        let lines = [RoomRig.Line(samples: question, start: .atSecond(0.3), overReply: false)] + over
        let rig = RoomRig(
            acoustics: acoustics, speaker: speaker, lines: lines, canceller: canceller, realtime: realtime,
            maximumSeconds: maximumSeconds)
        let journal = Journal()
        var configuration = ConversationConfiguration(duplex: .full)
        configuration.rules.interruption = interruption
        let session = ConversationSession(
            vad: vad, stt: stt, llm: llm, tts: tts, output: speaker, journal: journal,
            configuration: configuration)
        let tally = Tally()
        let updates = await session.updates()
        let watcher = Task {
            let trace = ProcessInfo.processInfo.environment["PARLEY_ROOM_TRACE"] != nil
            for await update in updates {
                if trace { print(String(format: "room %6.2f s: ", await rig.now) + "\(update)") }
                switch update {
                case .transition(_, .paused):
                    let meant = await rig.userSpeaksOverReply
                    await tally.update {
                        $0.pauses += 1; if !meant { $0.selfInterruptions += 1 }
                    }
                case .replyInterrupted:
                    let meant = await rig.userSpeaksOverReply
                    // A cut that follows a pause was counted with the pause.
                    await tally.update {
                        $0.cuts += 1; if !meant, $0.pauses == 0 { $0.selfInterruptions += 1 }
                    }
                case .replyResumed: await tally.update { $0.resumes += 1 }
                case .finalTranscript(let text): await tally.update { $0.transcripts.append(text) }
                default: break
                }
            }
        }
        // The speaker plays on after the microphone closes (on a device it does not wait for
        // the microphone): what the conversation still says is pulled to its end.
        let drain = Task {
            while !Task.isCancelled {
                if await rig.closed { _ = await speaker.pull(RoomRig.frameSize) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer { drain.cancel() }
        _ = try await session.run(rig.microphone())
        await session.close()
        await watcher.value
        var outcome = await tally.outcome
        outcome.savedUserTurns = await journal.entries.filter { $0.role == .user }.map(\.text)
        outcome.erle = await rig.erle
        return outcome
    }
}
