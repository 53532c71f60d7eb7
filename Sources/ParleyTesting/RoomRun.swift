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

    /// Asks `question` (said 0.3 s after the microphone opens), lets `llm` answer through `tts`
    /// out of the room's speaker, and says each of `over` over the reply; returns what the
    /// conversation heard and did. `canceller`, when given, cleans the microphone.
    public static func run(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider, llm: any LanguageModelProvider, tts: any TextToSpeechProvider,
        acoustics: RoomAcoustics, question: [Float], over: [RoomRig.Line], canceller: (any EchoCanceller)?,
        interruption: InterruptionRules, realtime: Bool = true
    ) async throws -> RoomOutcome {
        let speaker = PulledSpeaker(sampleRate: 16_000)
        let lines = [RoomRig.Line(samples: question, start: .atSecond(0.3), overReply: false)] + over
        let rig = RoomRig(acoustics: acoustics, speaker: speaker, lines: lines, canceller: canceller, realtime: realtime)
        let journal = Journal()
        var configuration = ConversationConfiguration(duplex: .full)
        configuration.rules.interruption = interruption
        let session = ConversationSession(vad: vad, stt: stt, llm: llm, tts: tts, output: speaker, journal: journal,
                                          configuration: configuration)
        let tally = Tally()
        let updates = await session.updates()
        let watcher = Task {
            for await update in updates {
                switch update {
                case .transition(_, .paused):
                    let meant = await rig.userSpeaksOverReply
                    await tally.update { $0.pauses += 1; if !meant { $0.selfInterruptions += 1 } }
                case .replyInterrupted:
                    let meant = await rig.userSpeaksOverReply
                    // A cut that follows a pause was counted with the pause.
                    await tally.update { $0.cuts += 1; if !meant, $0.pauses == 0 { $0.selfInterruptions += 1 } }
                case .replyResumed: await tally.update { $0.resumes += 1 }
                case .finalTranscript(let text): await tally.update { $0.transcripts.append(text) }
                default: break
                }
            }
        }
        _ = try await session.run(rig.microphone())
        await session.close()
        await watcher.value
        var outcome = await tally.outcome
        outcome.savedUserTurns = await journal.entries.filter { $0.role == .user }.map(\.text)
        outcome.erle = await rig.erle
        return outcome
    }
}
