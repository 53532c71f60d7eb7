import Logging

/// The offline voice turn: speech in a recording → VAD → STT → LLM → TTS → speech.
///
/// Each stretch of speech separated from the next by at least
/// ``Configuration/segmentation``'s end silence is one turn; the conversation's history is
/// carried from turn to turn. The reply is spoken sentence by sentence while the model still
/// writes, so the first audio is ready long before the answer is complete.
public struct VoicePipeline: Sendable {
    /// Settings of a pipeline.
    public struct Configuration: Sendable {
        /// The system prompt that opens the conversation.
        public var systemPrompt: String
        /// How the model samples.
        public var sampling: SamplingOptions
        /// How speech is found in the input.
        public var segmentation: SpeechSegmenter.Configuration
        /// Transcription settings.
        public var transcription: TranscriptionOptions
        /// Voice settings.
        public var speech: SpeechOptions

        /// Creates a configuration with defaults for short spoken answers.
        public init(
            systemPrompt: String = "You are a helpful voice assistant. Answer in one or two short sentences.",
            sampling: SamplingOptions = SamplingOptions(),
            segmentation: SpeechSegmenter.Configuration = SpeechSegmenter.Configuration(endSilence: 1.2),
            transcription: TranscriptionOptions = TranscriptionOptions(),
            speech: SpeechOptions = SpeechOptions()
        ) {
            self.systemPrompt = systemPrompt
            self.sampling = sampling
            self.segmentation = segmentation
            self.transcription = transcription
            self.speech = speech
        }
    }

    /// Why a recording yielded no turn.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The audio is silent, or no stretch of it sounded like speech.
        case noSpeech(duration: Double)
        /// Speech was found but the transcriber heard no words in it.
        case nothingTranscribed

        public var description: String {
            switch self {
            case .noSpeech(let duration):
                return String(format: "No speech was found in the %.1f s of audio; check the recording level or the file.", duration)
            case .nothingTranscribed:
                return "Speech was detected but no words could be recognised in it."
            }
        }
    }

    public let vad: any VoiceActivityDetector
    public let stt: any SpeechToTextProvider
    public let llm: any LanguageModelProvider
    public let tts: any TextToSpeechProvider
    public let configuration: Configuration
    private let logger: Logger

    /// Creates a pipeline from one provider per stage.
    public init(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider,
        llm: any LanguageModelProvider, tts: any TextToSpeechProvider,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "parley.pipeline")
    ) {
        self.vad = vad
        self.stt = stt
        self.llm = llm
        self.tts = tts
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs every turn found in `audio`, in order.
    /// - Parameter onTurn: called as soon as each turn is complete.
    public func run(
        _ audio: AudioBuffer, onTurn: @Sendable (TurnResult) async -> Void = { _ in }
    ) async throws -> [TurnResult] {
        guard !audio.isEmpty else { throw ProviderError.invalidInput("The audio is empty.") }
        let clock = ContinuousClock()
        let vadStart = clock.now
        let segments = audio.peak < 1e-4 ? [] : try vad.segments(in: audio, configuration: configuration.segmentation)
        let vadTime = (clock.now - vadStart).milliseconds
        logger.debug("VAD found \(segments.count) segment(s) in \(vadTime) ms")
        guard !segments.isEmpty else { throw Failure.noSpeech(duration: audio.duration) }

        var history: [ChatMessage] = [.system(configuration.systemPrompt)]
        var results: [TurnResult] = []
        for segment in segments {
            let speech = audio.slice(segment.start..<segment.end)
            let sttStart = clock.now
            let transcript = try await stt.transcribe(speech.resampled(to: stt.preferredSampleRate), options: configuration.transcription)
            let sttTime = (clock.now - sttStart).milliseconds
            let heard = transcript.text.trimmingWhitespace()
            guard !heard.isEmpty, !Self.isNonSpeechMarker(heard) else {
                logger.info("Skipping a segment at \(segment.startTime) s with no recognisable words")
                continue
            }
            history.append(.user(heard))
            var turn = try await answer(history: history, clock: clock)
            turn.segment = segment
            turn.transcript = heard
            turn.timings.vad = results.isEmpty ? vadTime : 0
            turn.timings.stt = sttTime
            turn.timings.total += sttTime
            history.append(.assistant(turn.reply))
            results.append(turn)
            await onTurn(turn)
        }
        guard !results.isEmpty else { throw Failure.nothingTranscribed }
        return results
    }

    /// Generates and speaks the reply to the last user message of `history`.
    public func answer(history: [ChatMessage], clock: ContinuousClock = ContinuousClock()) async throws -> TurnResult {
        let start = clock.now
        let (sentences, sentenceSink) = AsyncStream.makeStream(of: String.self)
        let llm = self.llm
        let request = ChatRequest(messages: history, sampling: configuration.sampling)

        // The model writes into the sentence stream; the synthesizer speaks each sentence as it
        // arrives. Both run at once.
        async let generation: (String, Usage, Duration?, Duration, ProviderIdentity) = {
            var answeredBy = llm.identity
            var chunker = SentenceChunker()
            var reply = ""
            var usage = Usage()
            var firstToken: Duration?
            defer { sentenceSink.finish() }
            for try await event in llm.complete(request) {
                switch event {
                case .text(let piece):
                    if firstToken == nil { firstToken = clock.now - start }
                    reply += piece
                    for sentence in chunker.append(piece) { sentenceSink.yield(sentence) }
                case .finished(_, let reported):
                    usage = reported
                case .provider(let identity):
                    answeredBy = identity
                }
            }
            if let rest = chunker.finish() { sentenceSink.yield(rest) }
            return (reply, usage, firstToken, clock.now - start, answeredBy)
        }()

        var audio: AudioBuffer?
        var firstAudio: Duration?
        var ttsTime = Duration.zero
        do {
            for await sentence in sentences {
                let ttsStart = clock.now
                for try await chunk in tts.synthesize(sentence, options: configuration.speech) {
                    if firstAudio == nil { firstAudio = clock.now - start }
                    if audio == nil { audio = chunk } else { audio?.appendConverting(chunk) }
                }
                ttsTime += clock.now - ttsStart
            }
        } catch {
            _ = try? await generation
            throw error
        }
        let (reply, usage, firstToken, llmTotal, answeredBy) = try await generation
        let text = reply.trimmingWhitespace()
        guard !text.isEmpty, let audio else {
            throw ProviderError.engineFailure(provider: llm.identity.description, detail: "the model returned an empty reply")
        }
        return TurnResult(
            segment: SpeechSegment(start: 0, end: 0, sampleRate: audio.sampleRate),
            transcript: history.last(where: { $0.role == .user })?.text ?? "",
            reply: text,
            replyAudio: audio,
            providers: .init(vad: vad.identity.description, stt: stt.identity.description,
                             llm: answeredBy.description, tts: tts.identity.description),
            timings: .init(llmFirstToken: firstToken?.milliseconds ?? llmTotal.milliseconds,
                           llmTotal: llmTotal.milliseconds,
                           firstAudio: firstAudio?.milliseconds ?? 0,
                           tts: ttsTime.milliseconds,
                           total: (clock.now - start).milliseconds),
            usage: usage)
    }

    /// Whisper marks non-speech with bracketed tags such as "[BLANK_AUDIO]" or "(music)".
    static func isNonSpeechMarker(_ text: String) -> Bool {
        let stripped = text.trimmingCharacters(in: " .")
        guard let first = stripped.first, let last = stripped.last else { return true }
        return (first == "[" && last == "]") || (first == "(" && last == ")")
    }
}

extension Duration {
    /// The duration in milliseconds.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
