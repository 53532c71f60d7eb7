import Logging

/// A spoken conversation: audio frames stream in, the VAD ends each turn after the
/// configured silence, the turn is transcribed (with partial transcripts while the user
/// speaks), the reply is generated and spoken sentence by sentence, and the user can cut it
/// short by speaking (barge-in). Every turn is written to the journal as it ends.
///
/// The rules live in ``ConversationStateMachine``; this actor carries out its actions.
public actor ConversationEngine {
    /// The turn being answered.
    private struct PendingTurn {
        var transcript: String
        var segment: SpeechSegment
        var partials: [String]
        var endpoint: ContinuousClock.Instant
        var sttTime: Duration
        var vadTime: Duration
        /// When the reply was requested (after the transcript was saved and reviewed).
        var requested: ContinuousClock.Instant?
        var outcome: ReplySpeaker.Outcome?
    }

    /// The speech being collected.
    private struct Utterance {
        var id: Int
        var start: Int
        var lastPartial: Int
        var partials: [String] = []
        /// The provider's live session, when it transcribes live.
        var live: LiveSession?
    }

    /// A live transcription fed while the user speaks.
    private struct LiveSession {
        var sink: AsyncStream<AudioBuffer>.Continuation
        var result: Task<Transcript, any Error>
        /// The first sample (absolute, at the VAD's rate) not yet sent.
        var fed: Int
    }

    public nonisolated let vad: any VoiceActivityDetector
    public nonisolated let stt: any SpeechToTextProvider
    public nonisolated let llm: any LanguageModelProvider
    public nonisolated let tts: any TextToSpeechProvider
    public nonisolated let configuration: Configuration
    /// What happens, as it happens.
    public nonisolated let updates: AsyncStream<ConversationUpdate>

    private let updateSink: AsyncStream<ConversationUpdate>.Continuation
    private let output: any AudioOutput
    private let journal: (any ConversationJournal)?
    private let speaker: ReplySpeaker
    private let logger: Logger
    private let clock = ContinuousClock()

    private var machine: ConversationStateMachine<ContinuousClock.Instant>
    private var history: [ChatMessage]
    private var turns: [TurnResult] = []
    private var utterance: Utterance?
    private var nextUtteranceID = 0
    private var partialInFlight = false
    private var pending: PendingTurn?
    private var replyTask: Task<Void, Never>?
    private var replyID = 0
    private var failure: (any Error)?
    private var vadTime = Duration.zero
    private var heardNothing = false

    /// Creates a conversation.
    /// - Parameters:
    ///   - history: earlier messages of this conversation (without the system prompt), to
    ///     continue it.
    ///   - output: where replies are played.
    ///   - journal: where turns are written down, if anywhere.
    public init(
        vad: any VoiceActivityDetector, stt: any SpeechToTextProvider, llm: any LanguageModelProvider,
        tts: any TextToSpeechProvider, output: any AudioOutput, journal: (any ConversationJournal)? = nil,
        history: [ChatMessage] = [], configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "parley.conversation")
    ) {
        self.vad = vad
        self.stt = stt
        self.llm = llm
        self.tts = tts
        self.output = output
        self.journal = journal
        self.configuration = configuration
        self.speaker = ReplySpeaker(llm: llm, tts: tts, speech: configuration.speech)
        self.logger = logger
        self.machine = ConversationStateMachine(configuration: configuration.rules)
        self.history = [.system(configuration.systemPrompt)] + history.filter { $0.role != .system }
        (updates, updateSink) = AsyncStream.makeStream(of: ConversationUpdate.self)
    }

    /// Why the conversation refused a request.
    public typealias Rejection = ConversationStateMachine<ContinuousClock.Instant>.Rejection
    private typealias Machine = ConversationStateMachine<ContinuousClock.Instant>

    /// Opens or closes one of the gates the host controls (closing a required gate while the
    /// conversation is active stops it).
    public func setGate(_ gate: ConversationGate, open: Bool) async throws {
        try await carryOut(try applyOrThrow(.setGate(gate, open: open)))
    }

    /// Makes the conversation ready to listen; every required gate must be open.
    public func arm() throws(Rejection) {
        _ = try applyOrThrow(.arm)
    }

    /// Starts listening, on a deliberate `trigger` only (a tap, a hot key; not a scroll).
    public func startListening(_ trigger: ListenTrigger) throws(Rejection) {
        _ = try applyOrThrow(.startListening(trigger, at: clock.now))
    }

    /// Stops listening and any reply in progress (what was heard of it is saved).
    public func stop() async throws {
        try await carryOut(try applyOrThrow(.stop))
    }

    /// Where the conversation stands.
    public var state: ConversationState { machine.state }

    /// Runs the conversation over `frames` (mono audio in chunks of any size) until they end
    /// and the last reply has been played, and returns its turns.
    ///
    /// Frames at a rate other than the VAD's (``VoiceActivityDetector/sampleRate``, 16 kHz
    /// for both detectors) are converted as one continuous stream; a change of rate mid-stream
    /// starts a new conversion.
    ///
    /// - Throws: ``Failure`` when no turn was found; a provider's or the journal's error,
    ///   after the turns before it were written down.
    public func run<Frames: AsyncSequence & Sendable>(_ frames: Frames) async throws -> [TurnResult] where Frames.Element == AudioBuffer {
        defer { updateSink.finish() }
        do {
            try await converse(frames)
        } catch {
            replyTask?.cancel()
            await replyTask?.value
            // A live session still open would wait for audio that never comes.
            utterance?.live?.sink.finish()
            utterance?.live?.result.cancel()
            apply(.failed("\(error)"))
            throw error
        }
        return turns
    }

    private func converse<Frames: AsyncSequence & Sendable>(_ frames: Frames) async throws where Frames.Element == AudioBuffer {
        if configuration.startsListening {
            for gate in configuration.rules.requiredGates { apply(.setGate(gate, open: true)) }
            apply(.arm)
            apply(.startListening(.user, at: clock.now))
        }

        let rate = vad.sampleRate
        let frameSize = vad.frameSize
        var session = try vad.makeSession()
        var segmenter = SpeechSegmenter(configuration: configuration.segmentation, frameSize: frameSize, sampleRate: rate)
        // Audio at the VAD's rate from absolute sample `base` on; `next` is the first sample
        // not yet given to the VAD.
        var audio: [Float] = []
        var base = 0
        var next = 0
        var frame = [Float](repeating: 0, count: frameSize)
        let keep = Int((configuration.segmentation.padding + 0.5) * Double(rate))
        var received = 0
        // Frames at another rate are converted as one stream, without seams between frames.
        var converter: StreamingResampler?

        for try await chunk in frames {
            try check()
            let samples: [Float]
            if chunk.sampleRate == rate || chunk.isEmpty {
                samples = chunk.samples
            } else {
                if converter?.resampler.inputRate != chunk.sampleRate {
                    converter = StreamingResampler(from: chunk.sampleRate, to: rate)
                }
                samples = converter?.process(chunk.samples) ?? []
            }
            received += samples.count
            audio.append(contentsOf: samples)
            while next + frameSize <= base + audio.count {
                let offset = next - base
                for index in 0..<frameSize { frame[index] = audio[offset + index] }
                let started = clock.now
                let probability = session.speechProbability(of: frame)
                vadTime += clock.now - started
                next += frameSize
                if configuration.rules.listenTimeout != nil { apply(.tick(at: clock.now)) }
                switch segmenter.process(probability: probability) {
                case .speechStarted(let at):
                    try await speechStarted(at: at)
                case .speechEnded(let segment):
                    try await speechEnded(segment, audio: audio, base: base)
                case nil:
                    if var live = utterance?.live {
                        feed(&live, audio: audio, base: base, upTo: next)
                        utterance?.live = live
                    } else if probability >= configuration.segmentation.onThreshold {
                        // Partials only while words are coming: one during the closing silence
                        // would only delay the final transcript behind it.
                        requestPartial(audio: audio, base: base, next: next)
                    }
                }
            }
            // Outside speech only the padding before the next utterance is needed.
            if !segmenter.isInSpeech, audio.count > 2 * keep {
                let drop = audio.count - keep
                audio.removeFirst(drop)
                base += drop
            }
        }
        if let segment = segmenter.finish() {
            try await speechEnded(segment, audio: audio, base: base)
        }
        await replyTask?.value
        try check()
        if machine.state != .idle { apply(.stop) }
        guard !turns.isEmpty else {
            throw heardNothing ? Failure.nothingTranscribed : Failure.noSpeech(duration: Double(received) / Double(rate))
        }
    }

    private func check() throws {
        if let failure { throw failure }
    }

    // MARK: - Turn taking

    private func speechStarted(at sample: Int) async throws {
        guard let actions = apply(.speechStarted(at: clock.now)) else { return }
        try await carryOut(actions, utteranceStart: sample)
    }

    /// Carries out the actions that cancel, stop, save or begin something.
    private func carryOut(_ actions: [Machine.Action], utteranceStart: Int = 0) async throws {
        var played: Double?
        for action in actions {
            switch action {
            case .cancelReply:
                replyTask?.cancel()
                await replyTask?.value
                replyTask = nil
            case .stopPlayback:
                played = await output.stop()
            case .saveAssistantTurn(let interrupted):
                try await finishReply(played: played, interrupted: interrupted)
            case .beginUtterance:
                nextUtteranceID += 1
                let live = await stt.transcribesLive
                utterance = Utterance(id: nextUtteranceID, start: utteranceStart, lastPartial: utteranceStart,
                                      live: live ? openLiveSession(utterance: nextUtteranceID, from: utteranceStart) : nil)
            case .closeAudio:
                utterance?.live?.sink.finish()
                utterance = nil
            default:
                break
            }
        }
        // Cancelled before any audio: the question stays, unanswered, in the history.
        if pending != nil, actions.contains(.cancelReply), !actions.contains(.stopPlayback) { pending = nil }
    }

    private func speechEnded(_ segment: SpeechSegment, audio: [Float], base: Int) async throws {
        let endpoint = clock.now
        guard apply(.speechEnded(at: endpoint)) != nil else { return }
        let live = utterance?.live
        let lower = max(0, segment.start - base), upper = min(audio.count, segment.end - base)
        let speech = AudioBuffer(samples: lower < upper ? Array(audio[lower..<upper]) : [], sampleRate: segment.sampleRate)
        let transcript: Transcript
        if var live {
            // The live session has heard everything but the last moments: send them, close
            // the stream, and its final transcript follows.
            feed(&live, audio: audio, base: base, upTo: segment.end)
            live.sink.finish()
            do {
                transcript = try await live.result.value
            } catch {
                logger.warning("[STT] \(stt.identity) live session failed (\(error)); transcribing the whole utterance instead")
                transcript = try await stt.transcribe(speech.resampled(to: stt.preferredSampleRate), options: configuration.transcription)
            }
        } else {
            transcript = try await stt.transcribe(speech.resampled(to: stt.preferredSampleRate), options: configuration.transcription)
        }
        // Partials that arrived while the final was awaited still count.
        let partials = utterance?.partials ?? []
        utterance = nil
        let sttTime = clock.now - endpoint
        var heard = transcript.text.trimmingWhitespace()
        if Self.isNonSpeechMarker(heard) { heard = "" }
        if heard.isEmpty {
            heardNothing = true
            logger.info("Skipping speech at \(segment.startTime) s with no recognisable words")
        } else {
            updateSink.yield(.finalTranscript(heard))
        }
        // The user may correct the transcript (or drop the turn) before it is sent.
        var sent = heard
        if !heard.isEmpty, let review = configuration.reviewTranscript {
            sent = (await review(heard) ?? "").trimmingWhitespace()
        }
        guard let actions = apply(.transcribed(sent, at: clock.now)) else { return }
        for action in actions {
            switch action {
            case .saveUserTurn(let text):
                history.append(.user(text))
                pending = PendingTurn(transcript: text, segment: segment, partials: partials, endpoint: endpoint,
                                      sttTime: sttTime, vadTime: vadTime, requested: nil, outcome: nil)
                vadTime = .zero
                try await journal?.record(JournalEntry(
                    role: .user, text: text, rawTranscript: heard, editedText: text == heard ? nil : text,
                    provider: stt.identity.description, timingsMs: ["stt": sttTime.milliseconds], audio: speech))
            case .generateReply:
                try await startReply()
            default:
                break
            }
        }
    }

    private func startReply() async throws {
        replyID += 1
        let id = replyID
        var sampling = configuration.sampling
        sampling.maxTokens = max(1, min(sampling.maxTokens, configuration.contextTokens / 2))
        let window = ContextWindow(tokens: configuration.contextTokens, reservedForReply: sampling.maxTokens)
        let request = ChatRequest(messages: window.trim(history), sampling: sampling)
        await output.beginReply()
        pending?.requested = clock.now
        let speaker = self.speaker, output = self.output
        switch configuration.duplex {
        case .half:
            let outcome = try await speaker.speak(request, to: output, onFirstAudio: { await self.replyAudioStarted(id) })
            let played = await output.finish()
            pending?.outcome = outcome
            try await replyFinished(id, played: played)
        case .full:
            replyTask = Task {
                do {
                    let outcome = try await speaker.speak(request, to: output, onFirstAudio: { await self.replyAudioStarted(id) })
                    self.store(outcome, for: id)
                    guard !Task.isCancelled else { return }
                    let played = await output.finish()
                    guard !Task.isCancelled else { return }
                    try await self.replyFinished(id, played: played)
                } catch {
                    self.fail(error, reply: id)
                }
            }
        }
    }

    private func store(_ outcome: ReplySpeaker.Outcome, for id: Int) {
        guard id == replyID else { return }
        pending?.outcome = outcome
    }

    private func fail(_ error: any Error, reply id: Int) {
        guard id == replyID, failure == nil else { return }
        failure = error
    }

    private func replyAudioStarted(_ id: Int) {
        guard id == replyID else { return }
        apply(.replyAudioStarted)
    }

    private func replyFinished(_ id: Int, played: Double) async throws {
        guard id == replyID, let actions = apply(.replyFinished(at: clock.now)) else { return }
        for case .saveAssistantTurn(let interrupted) in actions {
            try await finishReply(played: played, interrupted: interrupted)
        }
        replyTask = nil
    }

    /// Records the reply of the pending turn, cut to what was played.
    private func finishReply(played: Double?, interrupted: Bool) async throws {
        guard var turn = pending, let outcome = turn.outcome else { return }
        pending = nil
        let heard = interrupted ? outcome.spoken.heard(upTo: played ?? 0) : outcome.text
        if !heard.isEmpty { history.append(.assistant(heard)) }
        let endpoint = turn.endpoint
        let requestedAfter = turn.requested.map { endpoint.duration(to: $0) } ?? turn.sttTime
        // Latencies run from the endpoint, on one clock: transcription, saving and review
        // count, as the listener waits through them.
        func since(_ duration: Duration?) -> Double {
            guard let duration else { return 0 }
            return (requestedAfter + duration).milliseconds
        }
        var result = TurnResult(
            segment: turn.segment, transcript: turn.transcript, reply: heard,
            replyAudioDuration: interrupted ? min(played ?? 0, outcome.spoken.duration) : outcome.spoken.duration,
            providers: .init(vad: vad.identity.description, stt: stt.identity.description,
                             llm: outcome.provider.description, tts: tts.identity.description),
            timings: .init(vad: turn.vadTime.milliseconds, stt: turn.sttTime.milliseconds,
                           llmFirstToken: outcome.firstToken?.milliseconds ?? outcome.generation.milliseconds,
                           llmTotal: outcome.generation.milliseconds, firstAudio: outcome.firstAudio?.milliseconds ?? 0,
                           tts: outcome.synthesis.milliseconds, total: (clock.now - endpoint).milliseconds),
            usage: outcome.usage)
        result.interrupted = interrupted
        result.fullReply = interrupted ? outcome.text : nil
        result.partialTranscripts = turn.partials
        result.latency = .init(endpointSilence: configuration.segmentation.endSilence * 1000,
                               finalTranscript: turn.sttTime.milliseconds,
                               firstToken: since(outcome.firstToken), firstAudio: since(outcome.firstAudio))
        turn.outcome = nil
        turns.append(result)
        updateSink.yield(.turn(result))
        guard interrupted || !heard.isEmpty else {
            // Nothing to keep: the model said nothing (the listener heard silence).
            logger.warning("[LLM] \(outcome.provider) returned an empty reply")
            return
        }
        let t = result.timings
        try await journal?.record(JournalEntry(
            role: .assistant, text: heard, provider: outcome.provider.description,
            timingsMs: ["llm_first_token": t.llmFirstToken, "llm_total": t.llmTotal, "tts": t.tts,
                        "first_audio_after_endpoint": result.latency.firstAudio],
            usage: outcome.usage, interrupted: interrupted, fullReply: result.fullReply))
    }

    // MARK: - Partial transcripts

    /// Starts the provider's live session for an utterance that begins at sample `start`.
    private func openLiveSession(utterance id: Int, from start: Int) -> LiveSession {
        let (frames, sink) = AsyncStream.makeStream(of: AudioBuffer.self)
        let stt = self.stt, options = configuration.transcription
        let result = Task {
            var final: Transcript?
            for try await update in stt.transcribe(stream: frames, options: options) {
                switch update {
                case .partial(let text): self.partialReady(text.trimmingWhitespace(), utterance: id, live: true)
                case .final(let transcript): final = transcript
                }
            }
            guard let final else {
                throw ProviderError.engineFailure(provider: stt.identity.description, detail: "the live session ended without a final transcript")
            }
            return final
        }
        return LiveSession(sink: sink, result: result, fed: start)
    }

    /// Sends the utterance's audio up to sample `end` (absolute) to its live session.
    private func feed(_ live: inout LiveSession, audio: [Float], base: Int, upTo end: Int) {
        let lower = max(live.fed, base) - base, upper = min(end - base, audio.count)
        guard lower < upper else { return }
        live.sink.yield(AudioBuffer(samples: Array(audio[lower..<upper]), sampleRate: vad.sampleRate))
        live.fed = base + upper
    }

    private func requestPartial(audio: [Float], base: Int, next: Int) {
        guard let interval = configuration.partialInterval, var current = utterance, !partialInFlight,
              Double(next - current.lastPartial) >= interval * Double(vad.sampleRate) else { return }
        current.lastPartial = next
        utterance = current
        partialInFlight = true
        let lower = max(0, current.start - base)
        let speech = AudioBuffer(samples: Array(audio[lower..<(next - base)]), sampleRate: vad.sampleRate)
        let stt = self.stt, options = configuration.transcription, id = current.id
        Task {
            let text = (try? await stt.transcribe(speech.resampled(to: stt.preferredSampleRate), options: options).text) ?? ""
            self.partialReady(text.trimmingWhitespace(), utterance: id)
        }
    }

    private func partialReady(_ text: String, utterance id: Int, live: Bool = false) {
        if !live { partialInFlight = false }
        guard utterance?.id == id, !text.isEmpty, !Self.isNonSpeechMarker(text) else { return }
        utterance?.partials.append(text)
        updateSink.yield(.partialTranscript(text))
    }

    // MARK: - State

    /// Applies an event a caller asked for: its actions, or the rejection thrown.
    private func applyOrThrow(_ event: Machine.Event) throws(Rejection) -> [Machine.Action] {
        switch machine.handle(event) {
        case .success(let transition):
            if transition.changedState { updateSink.yield(.transition(from: transition.from, to: transition.to)) }
            return transition.actions
        case .failure(let rejection):
            throw rejection
        }
    }

    /// Applies an event, reporting the transition or the rejection; returns the actions.
    @discardableResult
    private func apply(_ event: ConversationStateMachine<ContinuousClock.Instant>.Event) -> [ConversationStateMachine<ContinuousClock.Instant>.Action]? {
        switch machine.handle(event) {
        case .success(let transition):
            if transition.changedState {
                logger.debug("conversation: \(transition.from) → \(transition.to)")
                updateSink.yield(.transition(from: transition.from, to: transition.to))
            }
            return transition.actions
        case .failure(let rejection):
            logger.debug("conversation: rejected \(event): \(rejection)")
            updateSink.yield(.rejected(rejection.description))
            return nil
        }
    }

    /// Whisper marks non-speech with bracketed tags such as "[BLANK_AUDIO]" or "(music)".
    static func isNonSpeechMarker(_ text: String) -> Bool {
        let stripped = text.trimmingCharacters(in: " .")
        guard let first = stripped.first, let last = stripped.last else { return true }
        return (first == "[" && last == "]") || (first == "(" && last == ")")
    }
}
