import ArgumentParser
import Foundation
import ParleyCore
#if Server
import ParleyMCP
#endif
import ParleyRuntime
import ParleyData

/// `parley talk`: a spoken conversation from a recording or live audio.
struct Talk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the spoken question(s) in a WAV file, or in live audio on standard input, with speech.",
        discussion: """
            Each stretch of speech followed by a pause (--end-silence, \(Tunable.endSilence.defaultText) s) is one turn of the conversation: \
            VAD → STT → LLM → TTS, the reply spoken sentence by sentence while the model still writes. Turns are \
            saved (parley history shows them). Heard in real time, a turn whose words sound complete ends sooner \
            (--predict-turn-end, \(Tunable.shortSilence.defaultText) s), and the reply starts during the pause. With --realtime, or with --input - (raw 16-bit mono PCM, e.g. \
            `arecord -f S16_LE -r 16000 -c 1 -t raw | parley talk --input -`), audio arrives in real time and speech \
            during a reply pauses it: words that last --min-interruption and are no backchannel ("mm-hmm", "yeah", \
            "okay") cut it, and the saved reply is what was heard; anything else resumes it, and is not saved.
            """)

    @Option(name: .shortAndLong, help: "The WAV file with the spoken question(s), or - for raw PCM on standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "Where to write the spoken answer(s), as heard, as WAV.")
    var output: String = "reply.wav"

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Flag(help: "Play the file in real time: replies overlap the input, and speech during a reply interrupts it.")
    var realtime = false

    @Option(help: "Sample rate of raw PCM on standard input.")
    var rate: Int = 16_000

    @Option(name: .tunable(.endSilence), help: ArgumentHelp(Tunable.endSilence.summary))
    var endSilence: Double = Tunable.endSilence.defaultValue

    @Option(name: .tunable(.maxTurn), help: ArgumentHelp(Tunable.maxTurn.summary))
    var maxTurn: Double = Tunable.maxTurn.defaultValue

    @Option(
        name: .tunable(.partialInterval),
        help: "Seconds of speech between partial transcripts (default: \(Tunable.partialInterval.defaultText) in real time, none otherwise; 0 for none).")
    var partialInterval: Double?

    @Option(name: .customLong("system-prompt"), help: "The assistant's instructions (default: a continued conversation's, else short spoken answers).")
    var systemPrompt: String?

    @Option(
        name: .customLong("max-tokens"),
        help: "The longest answer in tokens (default: a continued conversation's, else \(ConversationOptions.defaultMaxTokens)).")
    var maxTokens: Int?

    @Option(help: "Continue the saved conversation with this id (see parley history).")
    var thread: Int64?

    @Option(help: "The conversation database (default: PARLEY_DATABASE, else parley.sqlite in the data directory).")
    var database: String?

    @Flag(name: .customLong("no-save"), help: "Do not save the conversation.")
    var noSave = false

    @Flag(
        name: .customLong("keep-audio"),
        help: "Keep each question's recorded speech with the saved conversation (audio/ in the data directory; parley history delete removes it).")
    var keepAudio = false

    @Option(
        name: .tunable(.shortSilence),
        help:
            "\(Tunable.shortSilence.summary) (default: \(Tunable.shortSilence.defaultText) with --realtime or live input; a file read at full speed waits for --end-silence)."
    )
    var predictTurnEnd: Double?

    @Flag(name: .customLong("no-turn-prediction"), help: "End every turn after --end-silence, however complete the words sound.")
    var noTurnPrediction = false

    @Option(
        name: .customLong("turn-signals"),
        help:
            "With turn prediction, what judges a pause: words (the language model's text score; the default), both (the voice by the on-device audio turn model, Smart Turn, then the words when it is unsure), or voice."
    )
    var turnSignals: String = TurnSignals.words.rawValue

    @Flag(
        name: .customLong("no-early-reply"),
        help:
            "With --predict-turn-end: do not start the reply during the pause (by default the on-device model starts it on the words so far, held back until the turn ends, and dropped unheard if you go on)."
    )
    var noEarlyReply = false

    @Flag(
        name: .customLong("no-prefill"),
        help:
            "Do not evaluate the reply's prompt while you speak (by default the on-device model evaluates the conversation and the words of each partial transcript ahead, so the reply waits only for your last words)."
    )
    var noPrefill = false

    @Flag(
        name: .customLong("no-tools"), help: "Offer the model none of the built-in tools (parley tools): no search of your materials, assignments or the date.")
    var noTools = false

    @Option(name: .tunable(.minInterruption), help: ArgumentHelp(Tunable.minInterruption.summary))
    var minInterruption: Double = Tunable.minInterruption.defaultValue

    @Option(
        name: .customLong("backchannels"),
        help: "Comma-separated words that never cut a reply, replacing the built-in English, Spanish, German and French lists (e.g. \"mm-hmm,yeah,okay\").")
    var backchannels: String?

    @Flag(name: .customLong("interrupt-at-once"), help: "Cut a reply on the first speech over it, without pausing it to hear whether the words are meant.")
    var interruptAtOnce = false

    @Option(
        help:
            "Play the replies with this command, which reads raw 16-bit mono PCM at 22,050 Hz (e.g. \"aplay -q -f S16_LE -r 22050 -c 1 -t raw\"), instead of writing them to --output only."
    )
    var speaker: String?

    @Flag(
        name: .customLong("echo-cancellation"),
        help:
            "With --input - and --speaker: take the replies' echo out of the microphone (--echo-canceller), so the assistant does not hear itself; a short chime on start lets it learn the room."
    )
    var echoCancellation = false

    @Option(
        name: .customLong("echo-canceller"),
        help:
            "With --echo-cancellation: speex (SpeexDSP, the default: the start's chime lets it learn the room), webrtc (WebRTC's audio processing, the fallback) or webrtc-then-speex (WebRTC's until SpeexDSP's has heard 3 s of replies)."
    )
    var echoCanceller: String?

    @Flag(
        name: .customLong("wake-word"),
        help:
            "Wait for \"Hey Parley\" (heard on device) before listening: nothing before it is transcribed, saved or sent. After the phrase and after each reply it listens for --wake-word-follow-up seconds, then waits for the phrase again."
    )
    var wakeWord = false

    @Option(name: .tunable(.wakeWordFollowUp), help: ArgumentHelp(Tunable.wakeWordFollowUp.summary))
    var wakeWordFollowUp: Double = Tunable.wakeWordFollowUp.defaultValue

    @Option(name: .customLong("image"), help: "An image (PNG, JPEG, WebP) that goes with the first spoken question (repeat for several).")
    var images: [String] = []

    @OptionGroup var common: CommonOptions
    @OptionGroup var spoken: LanguageOption
    @OptionGroup var model: ModelSelection
    @OptionGroup var mcp: MCPOptions

    func validate() throws {
        if let maxTokens, maxTokens <= 0 { throw ValidationError("--max-tokens must be at least 1.") }
        try Self.check(endSilence, .endSilence)
        try Self.check(maxTurn, .maxTurn)
        guard (8_000...192_000).contains(rate) else { throw ValidationError("--rate must be between 8000 and 192000.") }
        try Self.check(wakeWordFollowUp, .wakeWordFollowUp)
        if let partialInterval { try Self.check(partialInterval, .partialInterval) }
        if let predictTurnEnd, !(Tunable.shortSilence.range.lowerBound...endSilence).contains(predictTurnEnd) {
            throw ValidationError("--predict-turn-end must be between \(Tunable.shortSilence.range.lowerBound) s and --end-silence (\(endSilence) s).")
        }
        if noTurnPrediction, predictTurnEnd != nil { throw ValidationError("--no-turn-prediction and --predict-turn-end cannot be used together.") }
        guard TurnSignals(rawValue: turnSignals) != nil else {
            throw ValidationError("--turn-signals must be one of \(TurnSignals.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if noTurnPrediction, noEarlyReply { throw ValidationError("--no-early-reply has no effect with --no-turn-prediction: leave one out.") }
        if noSave, thread != nil { throw ValidationError("--thread continues a saved conversation; it cannot be used with --no-save.") }
        try validateOutput(output)
        try Self.check(minInterruption, .minInterruption)
        if interruptAtOnce, backchannels != nil { throw ValidationError("--backchannels has no effect with --interrupt-at-once: leave one out.") }
        if let backchannels, Self.phrases(backchannels).isEmpty { throw ValidationError("--backchannels needs at least one word, such as \"mm-hmm,yeah\".") }
        if let echoCanceller {
            guard EchoEngine(rawValue: echoCanceller) != nil else {
                throw ValidationError("--echo-canceller is speex, webrtc or webrtc-then-speex, not '\(echoCanceller)'.")
            }
            guard echoCancellation else { throw ValidationError("--echo-canceller chooses the canceller of --echo-cancellation: add it.") }
        }
        if echoCancellation, speaker == nil || !live {
            throw ValidationError("--echo-cancellation needs --input - (a live microphone) and --speaker (the replies played by Parley).")
        }
        if noSave, keepAudio { throw ValidationError("--keep-audio keeps audio with a saved conversation; it cannot be used with --no-save.") }
    }

    private var live: Bool { input == "-" }

    /// The phrases of a comma-separated list.
    static func phrases(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// How speech over a reply is told from an interruption, as the flags say.
    var interruption: InterruptionRules? {
        guard !interruptAtOnce else { return nil }
        var rules = InterruptionRules(minimumSpeech: .seconds(minInterruption))
        if let backchannels { rules.backchannels = Backchannels(phrases: ["*": Self.phrases(backchannels)]) }
        return rules
    }

    /// Refuses `value` when `tunable` does not take it, in the words of its flag.
    static func check(_ value: Double, _ tunable: Tunable) throws {
        guard tunable.accepts(value) else { throw ValidationError(tunable.refusal("--\(tunable.flag ?? tunable.id)")) }
    }

    func run() async throws {
        common.bootstrapLogging()
        var conversationMade: RuntimeConversation<ContinuousClock>?
        do {
            // Read and check the input before loading anything, so bad input fails at once.
            let recording = live ? nil : try readAudio(input)
            let attachments = try images.map { path throws(ImageError) in try ImageAttachment.read(path: path) }
            let hub = try await mcp.connect()
            let runtime = try await common.runtime(smallModel: model.smallModel, database: database, tools: hub?.runtimeTools ?? [])
            let paced = realtime || live
            let interval = partialInterval ?? (paced ? Tunable.partialInterval.defaultValue : 0)
            var options = ConversationOptions(
                languageModel: model.selection, systemPrompt: systemPrompt, maxTokens: maxTokens, voice: common.voice,
                endSilence: endSilence, maxTurn: maxTurn, partialInterval: interval > 0 ? interval : nil,
                duplex: paced ? .full : .half, saves: !noSave, keepsAudio: keepAudio)
            options.shortSilence = noTurnPrediction ? nil : predictTurnEnd ?? (paced ? min(Tunable.shortSilence.defaultValue, endSilence) : nil)
            options.startsReplyEarly = !noEarlyReply
            options.interruption = interruption
            options.turnSignals = TurnSignals(rawValue: turnSignals) ?? .words
            options.prefillsPrompt = !noPrefill
            options.language = try spoken.setting
            options.wakeWord = wakeWord
            options.wakeWordFollowUp = wakeWordFollowUp
            if !noTools { options.tools = try await runtime.toolbox(owner: .local, warn: false, language: options.language) }
            let echo = echoCancellation ? TalkSpeaker.echoCancellation(rate: rate, engine: echoCanceller.flatMap(EchoEngine.init(rawValue:))) : nil
            let player = try self.speaker.map { try TalkSpeaker(command: $0, reference: echo?.1) }
            let recorder = RecordingOutput(clock: ContinuousClock(), realtime: paced)
            let made = try await runtime.makeConversation(options: options, thread: thread, output: player?.output ?? recorder)
            conversationMade = made
            let conversation = made.session
            if !attachments.isEmpty { try await conversation.attach(images: attachments) }

            let printText = !json
            let updates = await conversation.updates()
            let reporter = Task {
                for await update in updates where printText {
                    switch update {
                    case .turn(let turn): TalkReport.printTurn(paced ? turn : TalkReport.unpaced(turn))
                    case .partialTranscript(let text): print("  … \(text)")
                    default: break
                    }
                }
            }
            var turns: [TurnResult]
            if let recording {
                turns = try await conversation.run(AudioFrames.from(recording, realtime: realtime))
            } else if let (canceller, reference) = echo {
                // A chime says that Parley listens, and lets the canceller learn the room before
                // the first reply (one that has never heard it lets that reply's echo through).
                if let speaker = player?.output { Task { await speaker.playCue(ReadyChime.audio(sampleRate: TalkSpeaker.sampleRate)) } }
                turns = try await conversation.run(
                    EchoCancellingInput.frames(AudioFrames.standardInput(sampleRate: rate), canceller: canceller, reference: reference))
            } else {
                turns = try await conversation.run(AudioFrames.standardInput(sampleRate: rate))
            }
            if !paced { turns = turns.map(TalkReport.unpaced) }
            await conversation.close()
            await reporter.value
            await made.prepared()

            await player?.close()
            let played = await player?.output.heardAudio, recorded = await recorder.heardAudio
            let heard = played ?? recorded ?? AudioBuffer(samples: [], sampleRate: 22_050)
            try WAV.write(heard, to: URL(fileURLWithPath: output))
            let threadID = await made.thread
            if json {
                print(try TalkReport.json(turns, output: output, thread: threadID))
            } else {
                print(String(format: "Saved the spoken answer to %@ (%.1f s).", output, heard.duration))
                if let threadID { print("Saved as conversation \(threadID) (parley history show \(threadID)).") }
            }
        } catch {
            // An engine still loading while the process exits could crash it.
            await conversationMade?.prepared()
            throw fail(error)
        }
    }
}

/// Sources of audio frames for a conversation.
enum AudioFrames {
    /// Seconds of audio per frame handed to the engine.
    static let frameSeconds = 0.1

    /// A recording cut into frames, delivered at once or at the pace of real time.
    static func from(_ audio: AudioBuffer, realtime: Bool) -> AsyncStream<AudioBuffer> {
        let step = max(1, Int(Double(audio.sampleRate) * frameSeconds))
        return AsyncStream { continuation in
            let task = Task {
                let clock = ContinuousClock()
                let start = clock.now
                for (index, offset) in stride(from: 0, to: audio.samples.count, by: step).enumerated() {
                    if realtime {
                        try? await clock.sleep(until: start.advanced(by: .seconds(Double(index) * frameSeconds)), tolerance: nil)
                    }
                    if Task.isCancelled { break }
                    continuation.yield(audio.slice(offset..<(offset + step)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Raw signed 16-bit little-endian mono PCM from standard input, as it arrives: each read
    /// hands on what the recorder has written so far (one of its periods) instead of waiting
    /// for a whole frame, which would hold every sound, and so every pause, back by up to
    /// ``frameSeconds`` (measured: a writer of 20 ms pieces was read 100 ms at a time).
    static func standardInput(sampleRate: Int) -> AsyncStream<AudioBuffer> {
        AsyncStream { continuation in
            // Blocking reads run on their own thread, off Swift's cooperative pool.
            let reader = Thread {
                var carry = Data()
                while true {
                    let data = FileHandle.standardInput.availableData
                    if data.isEmpty { break }
                    carry.append(data)
                    let usable = carry.count - carry.count % 2
                    guard usable > 0 else { continue }
                    let samples = carry.prefix(usable).withUnsafeBytes { raw in
                        raw.bindMemory(to: Int16.self).map { Float(Int16(littleEndian: $0)) / 32_768 }
                    }
                    carry.removeFirst(usable)
                    continuation.yield(AudioBuffer(samples: samples, sampleRate: sampleRate))
                }
                continuation.finish()
            }
            reader.start()
        }
    }
}

/// Formatting of `parley talk`'s results.
enum TalkReport {
    /// A turn of a file read as fast as it goes: the whole file arrives at once, so the time
    /// from the last voiced frame's arrival to the reply means nothing and is left out.
    static func unpaced(_ turn: TurnResult) -> TurnResult {
        var turn = turn
        turn.latency.voiceToVoice = nil
        return turn
    }

    static func printTurn(_ turn: TurnResult) {
        let t = turn.timings, l = turn.latency
        print("You said:  \(turn.transcript)")
        print("Parley:    \(turn.reply)\(turn.interrupted ? " [interrupted]" : "")")
        print("Providers: vad \(turn.providers.vad) · stt \(turn.providers.stt) · llm \(turn.providers.llm) · tts \(turn.providers.tts)")
        print(
            String(
                format: "Timings:   stt %.0f ms · first token %.0f ms · first audio %.0f ms · llm %.0f ms · tts %.0f ms",
                t.stt, t.llmFirstToken, t.firstAudio, t.llmTotal, t.tts))
        print(
            String(
                format: "Latency:   after the %.1f s end silence: transcript %.0f ms → first token %.0f ms → first audio %.0f ms",
                l.endpointSilence / 1000, l.finalTranscript, l.firstToken, l.firstAudio)
                + (l.voiceToVoice.map { String(format: " (voice to voice %.0f ms)", $0) } ?? ""))
    }

    struct Document: Encodable {
        struct Turn: Encodable {
            var transcript: String
            var reply: String
            var interrupted: Bool
            var full_reply: String?
            var partial_transcripts: [String]
            var providers: TurnResult.Providers
            var timings_ms: TurnResult.Timings
            var latency_ms: TurnResult.Latency
            var speech: [Double]
            var reply_audio_seconds: Double
            var usage: Usage
            /// Why the turn ended early (end-of-turn prediction), when it did.
            var end_of_turn: String?
            /// Whether the reply was started during the pause, before the end of the turn was confirmed.
            var reply_started_early: Bool
            /// The language the question was heard in (detected with --language auto).
            var language: String?
        }
        var turns: [Turn]
        var output: String
        var thread: Int64?
    }

    static func json(_ turns: [TurnResult], output: String, thread: Int64?) throws -> String {
        let document = Document(
            turns: turns.map {
                .init(
                    transcript: $0.transcript, reply: $0.reply, interrupted: $0.interrupted, full_reply: $0.fullReply,
                    partial_transcripts: $0.partialTranscripts, providers: $0.providers, timings_ms: $0.timings,
                    latency_ms: $0.latency, speech: [$0.segment.startTime, $0.segment.endTime],
                    reply_audio_seconds: $0.replyAudioDuration, usage: $0.usage, end_of_turn: $0.endOfTurn,
                    reply_started_early: $0.startedEarly, language: $0.language)
            },
            output: output, thread: thread)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase  // usage's fields, like every other key
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
