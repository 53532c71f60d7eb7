extension ConversationSession {
    /// What came with the event whose action is carried out.
    enum Cue: Sendable {
        case none
        /// Speech began at this absolute sample (padding included).
        case speechStart(Int)
        /// The utterance ended with this segment, at this instant.
        case speechEnd(SpeechSegment, at: C.Instant)
        /// A transcript is final: the turn as spoken.
        case spoken(TurnRecorder<C.Instant>.UserTurn)
        /// A typed message's images.
        case typed([ChatMessage.Part])
        /// The client's tool results are in the history: the reply answers them, with no new
        /// message of the user's.
        case toolResults
        /// Reply `reply` finished after `played` seconds were heard.
        case played(Double, reply: Int)
    }

    // MARK: - Events

    /// Applies an event, reporting the transition or the rejection; returns the action.
    @discardableResult
    func handle(_ event: Machine.Event) -> Machine.Action? {
        switch machine.handle(event) {
        case .success(let transition):
            report(transition)
            return transition.action
        case .failure(let rejection):
            logger.debug("conversation: rejected \(event): \(rejection)")
            broadcast(.rejected(rejection.description))
            return nil
        }
    }

    /// Applies an event a caller asked for: its action, or the rejection thrown.
    func applyOrThrow(_ event: Machine.Event) throws(Rejection) -> Machine.Action {
        switch machine.handle(event) {
        case .success(let transition):
            report(transition)
            return transition.action
        case .failure(let rejection):
            throw rejection
        }
    }

    private func report(_ transition: Machine.Transition) {
        // Told before the state leaves `paused`, so that a follower drops the speech first.
        if transition.action == .resumeReply { broadcast(.replyResumed) }
        guard transition.changedState else { return }
        logger.debug("conversation: \(transition.from) → \(transition.to)")
        if case .error = transition.from { failure = nil }
        broadcast(.transition(from: transition.from, to: transition.to))
    }

    /// Applies an event a caller asked for and carries out its action; a refusal is thrown, a
    /// failure stops the conversation and is thrown.
    func perform(_ event: Machine.Event) async throws {
        let action = try applyOrThrow(event)
        do {
            try await carryOut(action)
        } catch {
            await fail(error)
            throw error
        }
    }

    /// Applies an event of the conversation's own and carries out its action; a refusal is
    /// reported.
    func apply(_ event: Machine.Event, _ cue: Cue = .none) async throws {
        guard let action = handle(event) else { return }
        try await carryOut(action, cue)
    }

    /// Puts the conversation in the error state for `error`, undoing what was under way.
    func fail(_ error: any Error) async {
        guard failure == nil, !closed else { return }
        if case .error = machine.state { return }
        logger.debug("conversation failed: \(error)")
        guard let action = handle(.failed("\(error)")) else { return }
        failure = error
        do {
            try await carryOut(action)
        } catch {
            logger.error("conversation: stopping after a failure failed too: \(error)")
        }
        // No awaited turn will end now.
        for id in awaitedReplies where resolvedTurns[id] == nil { resolveTurn(id, nil) }
    }

    // MARK: - Actions

    /// Carries out the machine's action.
    func carryOut(_ action: Machine.Action, _ cue: Cue = .none) async throws {
        switch action {
        case .none:
            break
        case .openAudio:
            detector = try UtteranceDetector(vad: vad, segmentation: configuration.segmentation)
            kept.clear()
            detection = .zero
            arrivals = ArrivalLog()
        case .scheduleListenTimeout(let deadline):
            scheduleListenTimeout(deadline)
        case .beginUtterance:
            cancelListenTimeout()
            await beginUtterance(cue)
        case .bargeIn(let cut):
            cancelListenTimeout()
            try await cutReply(cut)
            await beginUtterance(cue)
        case .pauseReply:
            cancelListenTimeout()
            await output.pause()
            logger.debug("conversation: the user speaks over the reply: it is paused")
            await beginUtterance(cue)
        case .resumeReply:
            dropUtteranceOverReply()
            logger.info("conversation: the speech over the reply was no interruption: it resumes")
            await output.resume()
        case .interruptReply(let cut):
            logger.info("conversation: the speech over the reply is an interruption: it is cut")
            try await cutReply(cut)
            broadcast(.replyInterrupted)
        case .interruptAndReply(let cut, let text):
            logger.info("conversation: the speech over the reply is an interruption: it is cut")
            try await cutReply(cut)
            broadcast(.replyInterrupted)
            try await saveUserTurnAndReply(text, cue)
        case .transcribe:
            try await transcribe(cue)
        case .discardUtterance(let deadline):
            discardSpeculation(because: "the utterance was dropped")
            if case .spoken(let turn) = cue, turn.heard?.isEmpty != false {
                currentRun?.heardNothing = true
                // It may have been a pause, not the end: the next utterance takes the speech in.
                if machine.state == .listening {
                    logger.info("No recognisable words in the speech at \(turn.segment.startTime) s: kept for the words that may follow")
                    kept.keep(turn.segment)
                } else {
                    logger.info("Skipping speech at \(turn.segment.startTime) s with no recognisable words")
                    kept.clear()
                }
            } else {
                kept.clear()
            }
            holdKeptSpeech()
            if let deadline { scheduleListenTimeout(deadline) }
        case .saveUserTurnAndReply(let text):
            try await saveUserTurnAndReply(text, cue)
        case .startPlayback:
            reply?.playing = true
            await output.beginReply()
            // A reply that starts while paused starts held.
            if machine.state == .paused { await output.pause() }
        case .finishReply(let deadline):
            let (played, id) = if case .played(let seconds, let id) = cue { (seconds, id) } else { (0.0, replies) }
            if reply?.id == id { reply = nil }
            try await saveAssistantTurn(reply: id, played: played, interrupted: false)
            if let deadline { scheduleListenTimeout(deadline) }
        case .cancelReply(let cut, let deadline):
            try await cutReply(cut)
            if let deadline { scheduleListenTimeout(deadline) }
        case .stopListening:
            cancelListenTimeout()
            kept.clear()
            holdKeptSpeech()
            await rearmWakeWord()
        case .listenTimedOut:
            listenTimer = nil
            kept.clear()
            holdKeptSpeech()
            await rearmWakeWord()
            logger.info("Stopped listening: no speech within \(configuration.rules.listenTimeout.map { "\($0)" } ?? "the timeout")")
        case .shutDown(let cut):
            cancelListenTimeout()
            discardSpeculation(because: "the conversation stopped")
            transcriber.discard()
            detector = nil
            kept.clear()
            if let cut { try await cutReply(cut) }
        }
    }

    /// Persists the user's turn and starts the reply to it.
    private func saveUserTurnAndReply(_ text: String, _ cue: Cue) async throws {
        cancelListenTimeout()
        kept.clear()
        holdKeptSpeech()
        replies += 1
        try await saveUserTurn(text, cue, reply: replies)
        startReply(replies)
        if configuration.duplex == .half, let task = reply?.task {
            await task.value
            if let failure { throw failure }
        }
    }

    /// Forgets the speech over a paused reply: nothing of it is transcribed, kept or answered.
    private func dropUtteranceOverReply() {
        windowedPartial?.cancel()
        windowedPartial = nil
        checkPauseScoring(ended: true)
        discardSpeculation(because: "the speech over the reply was no interruption")
        stopPrefill()
        transcriber.discard()
        turnScore = nil
        preheard = nil
        kept.clear()
        holdKeptSpeech()
    }

    // MARK: - Listening

    /// Analyses a frame of audio and acts on what it finds.
    func listen(to frame: AudioBuffer) async throws {
        guard detector != nil else {
            // The audio is closed: dropped, but counted.
            let converted = frame.sampleRate > 0 ? frame.samples.count * vad.sampleRate / frame.sampleRate : 0
            currentRun?.received += converted
            return
        }
        if let gate = configuration.wakeWord, machine.state == .armed {
            try await spotWakeWord(in: frame, gate: gate)
            return
        }
        // (Appended first: an optional chain would skip the right-hand side outside a run.)
        let appended = detector?.append(frame) ?? 0
        currentRun?.received += appended
        if let received = detector?.received { arrivals.record(samples: received, at: clock.now) }
        while true {
            let started = clock.now
            guard let scored = detector?.next() else { break }
            detection += started.duration(to: clock.now)
            broadcast(.audioLevel(scored.level))
            if detector?.isInSpeech == false, kept.expire(at: scored.end) {
                logger.debug("conversation: no speech followed the speech with no recognisable words: it is let go")
                holdKeptSpeech()
            }
            switch scored.event {
            case .speechStarted(let start)?:
                try await apply(.speechStarted(at: clock.now), .speechStart(start))
            case .speechEnded(let segment)?:
                let endpoint = clock.now
                try await apply(.speechEnded(at: endpoint), .speechEnd(segment, at: endpoint))
            case nil:
                if machine.state == .paused, machine.userIsSpeaking, let lasted = voicedSpeech() {
                    try await apply(.speechLasted(lasted))
                }
                guard machine.state != .paused else {
                    // Speech over a paused reply is no turn yet: its words are heard, not scored.
                    guard let detector, let partial = transcriber.heard(scored, in: detector) else { break }
                    windowedPartial = Task {
                        let text = await partial.transcribe()
                        await self.partialArrived(text, utterance: partial.utterance, windowed: true)
                    }
                    break
                }
                try await predictTurnEnd()
                guard let detector, let partial = transcriber.heard(scored, in: detector) else { break }
                windowedPartial = Task {
                    let text = await partial.transcribe()
                    await self.partialArrived(text, utterance: partial.utterance, windowed: true)
                }
            }
        }
    }

    /// Waiting for the wake phrase: the frame goes to the spotter and to a short pre-roll,
    /// nowhere else. When the phrase is heard the conversation starts listening, from the
    /// pre-roll on.
    private func spotWakeWord(in frame: AudioBuffer, gate: WakeWordGate) async throws {
        currentRun?.received += frame.sampleRate > 0 ? frame.samples.count * vad.sampleRate / frame.sampleRate : 0
        wakePreRoll.keep(frame, seconds: gate.preRoll)
        guard let heard = try await gate.spotter.listen(to: frame) else { return }
        // The spotter may have been waited on while the state moved (a typed turn, a stop).
        guard machine.state == .armed else { return }
        logger.info("conversation: heard the wake phrase \"\(heard.phrase)\" (score \(String(format: "%.2f", heard.score))): listening")
        let preRoll = wakePreRoll.take()
        try await apply(.startListening(.user, at: clock.now))
        if let preRoll, machine.state == .listening { try await listen(to: preRoll) }
    }

    /// Back to waiting for the wake phrase: the spotter and the pre-roll start afresh.
    func rearmWakeWord() async {
        guard let gate = configuration.wakeWord else { return }
        wakePreRoll.clear()
        await gate.spotter.reset()
    }

    // MARK: - End-of-turn prediction

    /// Once per stretch of silence in the open utterance (after the policy's scoring silence),
    /// transcribes the utterance so far and scores its words; on every frame after, decides
    /// with the silence so far whether the turn ends.
    private func predictTurnEnd() async throws {
        checkSpeculation()
        checkPauseScoring()
        guard let prediction = configuration.turnPrediction, let detector, let silence = detector.silence,
            let segment = detector.openSegment
        else { return }
        if let scored = turnScore, scored.segment.end == segment.end {
            try await decideTurnEnd(scored, silence: silence, policy: prediction.policy)
            return
        }
        guard silence >= prediction.policy.scoringSilence, scoringSegmentEnd != segment.end else { return }
        scoringSegmentEnd = segment.end
        // A partial transcript still under way would only hold up the transcription of the
        // words so far, which says more.
        windowedPartial?.cancel()
        // The words of the utterance so far, with any speech kept from before it.
        let whole = kept.covering(segment)
        let audio = detector.audio(from: whole.start, to: whole.end)
        let stt = self.stt, options = configuration.transcription, clock = self.clock
        let judge = prediction.detector
        let task = Task {
            let started = clock.now
            // The voice is scored while the words are transcribed (the speech up to the pause).
            let voice = Task { await judge.scoreVoice(audio, clock: clock) }
            defer { voice.cancel() }
            guard let transcript = try? await stt.transcribe(audio.resampled(to: stt.preferredSampleRate), options: options),
                !Task.isCancelled
            else { return }
            let transcribed = clock.now
            let words = transcript.text.trimmingWhitespace()
            // The conversation as the reply would give it to the model (trimmed to the
            // context window), so that a model that answers too finds what it scored in memory.
            let context = Array(self.replyRequest(self.history + [.user(words)]).messages.dropLast())
            let tools = self.configuration.tools?.definitions ?? []
            // The voice decides when it is sure; the words are scored only when it is not.
            // No words (a cough, a noise): nothing to end the turn on before the long silence.
            let threshold = await prediction.predictor.completionThreshold()
            let judgement =
                words.isEmpty
                ? TurnJudgement()
                : await judge.judge(
                    voice: await voice.value, words: words, history: context, tools: tools,
                    textThreshold: threshold ?? prediction.policy.threshold, clock: clock)
            guard !Task.isCancelled else { return }
            await self.pauseScored(
                TurnScore(
                    segment: segment, transcript: transcript, completion: judgement.completion,
                    threshold: judgement.source == .text ? threshold : nil, judgement: judgement),
                took: (started.duration(to: transcribed), transcribed.duration(to: clock.now)))
        }
        pauseScoring = task
    }

    /// Stops transcribing and scoring a pause the user has spoken after: its words are no
    /// longer all of them, and the work would only hold up the engines (the next partial
    /// transcript, the prompt's evaluation, the next pause's own score).
    func checkPauseScoring(ended: Bool = false) {
        guard let scoring = pauseScoring else { return }
        if !ended, detector?.openSegment?.end == scoringSegmentEnd { return }
        pauseScoring = nil
        scoring.cancel()
    }

    /// Keeps the score of a stretch of silence and decides at once if the user has not spoken
    /// since. `took`: how long the transcription and the score took (for the log).
    private func pauseScored(_ score: TurnScore, took: (transcription: Duration, scoring: Duration)) async {
        if scoringSegmentEnd == score.segment.end { pauseScoring = nil }
        guard let prediction = configuration.turnPrediction, let silence = detector?.silence,
            detector?.openSegment?.end == score.segment.end
        else {
            logger.debug(
                "conversation: end of turn scored too late (\(score.completion.map { String(format: "%.2f", $0) } ?? "no score")): the user spoke again or the silence already ended the turn"
            )
            return
        }
        turnScore = score
        let voice = score.judgement.audio.map { String(format: "voice %.3f, ", $0) } ?? ""
        let decided = score.judgement.source.map { $0 == .audio ? "by the voice" : "by the words" } ?? "undecided"
        logger.debug(
            "conversation: pause scored after \(silence) s of silence: \(voice)\(score.completion.map { String(format: "%.4f", $0) } ?? "no words") \(decided) (transcribed in \(Int(took.transcription.milliseconds)) ms, scored in \(Int(took.scoring.milliseconds)) ms)"
        )
        do {
            try await decideTurnEnd(score, silence: silence, policy: prediction.policy)
            // Not over yet, but the words sound whole: the reply can start while the pause
            // goes on. (Unfinished words most likely go on: starting on them would only hold
            // up the engines.)
            if turnScore != nil, let completion = score.completion, completion >= prediction.policy.with(threshold: score.threshold).threshold {
                speculate(on: score)
            }
        } catch {
            await fail(error)
        }
    }

    /// Ends the utterance now when the policy says its words and the silence so far end the turn.
    private func decideTurnEnd(_ score: TurnScore, silence: Double, policy: TurnPolicy) async throws {
        var decision = policy.with(threshold: score.threshold).decide(silence: silence, completion: score.completion)
        guard decision.endsTurn, let ended = detector?.endSpeech() else { return }
        if score.judgement.source == .audio, let voice = score.judgement.audio, silence < policy.longSilence {
            decision.reason = "the voice sounds finished (\(TurnPolicy.percent(voice))) after \(TurnPolicy.seconds(silence)) of silence"
        }
        logger.debug("conversation: turn ends: \(decision.reason)")
        turnScore = nil
        preheard = (ended.end, score.transcript, silence, decision.reason)
        let endpoint = clock.now
        try await apply(.speechEnded(at: endpoint), .speechEnd(ended, at: endpoint))
    }

    /// The input ended: an utterance still open ends with it.
    func endOfInput() async throws {
        guard let segment = detector?.endSpeech() else { return }
        let endpoint = clock.now
        try await apply(.speechEnded(at: endpoint), .speechEnd(segment, at: endpoint))
    }

    private func beginUtterance(_ cue: Cue) async {
        guard case .speechStart(let start) = cue else { return }
        broadcast(.speechStarted(at: Double(start) / Double(vad.sampleRate)))
        // Speech kept from a stretch with no recognisable words is transcribed with this one.
        let from = kept.begin(at: start)
        holdKeptSpeech()
        if from < start {
            logger.debug(
                "conversation: the speech at \(Double(from) / Double(vad.sampleRate)) s, with no recognisable words, is transcribed with this utterance")
        }
        let live = await stt.transcribesLive
        transcriber.begin(at: from, live: live) { id, text in
            await self.partialArrived(text, utterance: id, windowed: false)
        }
        // The conversation so far and the opening of the user's message (not while a reply
        // is paused: it may resume, and its model is busy).
        if machine.state != .paused { prefillReply(upTo: "") }
    }

    /// How long the open utterance's speech has lasted, its padding left out.
    private func voicedSpeech() -> Duration? {
        guard let segment = detector?.openSegment else { return nil }
        // The segment has padding at both ends (less at the start of the audio, which a reply
        // never overlaps).
        let padding = Int(configuration.segmentation.padding * Double(vad.sampleRate))
        let voiced = max(0, segment.end - segment.start - 2 * padding)
        return .seconds(Double(voiced) / Double(vad.sampleRate))
    }

    private func partialArrived(_ text: String, utterance id: Int, windowed: Bool) async {
        guard let text = transcriber.partialArrived(text, utterance: id, windowed: windowed) else { return }
        broadcast(.partialTranscript(text))
        if machine.state == .paused {
            do {
                try await apply(.partiallyTranscribed(text))
            } catch {
                await fail(error)
            }
            return
        }
        let settled = Self.settledWords(of: text)
        if !settled.isEmpty { prefillReply(upTo: settled) }
    }

    /// Has the detector keep the audio the kept speech needs.
    func holdKeptSpeech() {
        detector?.holdAudio(from: kept.firstNeeded)
    }

    // MARK: - The listen timeout

    private func scheduleListenTimeout(_ deadline: C.Instant) {
        listenTimer?.cancel()
        let clock = self.clock
        listenTimer = Task {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return  // cancelled: speech began, or listening ended
            }
            await self.listenTimeoutFired()
        }
    }

    private func cancelListenTimeout() {
        listenTimer?.cancel()
        listenTimer = nil
    }

    private func listenTimeoutFired() async {
        do {
            try await apply(.listenTimeoutExpired(at: clock.now))
        } catch {
            await fail(error)
        }
    }
}
