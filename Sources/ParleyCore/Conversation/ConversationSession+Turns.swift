extension ConversationSession {
    // MARK: - The user's turn

    /// Transcribes the utterance that ended (or, with no segment given, the one the user
    /// stopped listening in) and reports the transcript to the machine.
    func transcribe(_ cue: Cue) async throws {
        let ended: (segment: SpeechSegment, endpoint: C.Instant)?
        if case .speechEnd(let segment, let endpoint) = cue {
            ended = (segment, endpoint)
        } else {
            ended = detector?.endSpeech().map { ($0, clock.now) }
        }
        guard let ended, let detector else {
            // Too short to count as speech: nothing to transcribe.
            transcriber.discard()
            try await apply(.transcribed("", at: clock.now))
            return
        }
        broadcast(.speechStopped(at: ended.segment.endTime))
        // The whole utterance is transcribed now: a partial transcript still under way is
        // stale, and so is a pause's transcription and score that did not end the turn in time.
        windowedPartial?.cancel()
        checkPauseScoring(ended: true)
        // The utterance's speech, from that of a stretch before it with no recognisable words;
        // held until it is known whether it is kept for the next utterance.
        let segment = kept.end(ended.segment)
        holdKeptSpeech()
        defer {
            kept.transcribed()
            holdKeptSpeech()
        }
        let ending = transcriber.end(segment, in: detector)
        // An utterance the end-of-turn prediction ended was transcribed to decide it; one the
        // long silence ended was transcribed too, if the prediction scored its last pause.
        let early = preheard.flatMap { $0.end == ended.segment.end ? $0 : nil }
        let scored = turnScore.flatMap { $0.segment.end == ended.segment.end ? $0.transcript : nil }
        preheard = nil
        turnScore = nil
        let transcript: Transcript
        if let early {
            logger.debug("conversation: turn ended early: \(early.reason)")
            transcript = early.transcript
        } else if let scored {
            transcript = scored
        } else {
            transcript = try await ending.transcript(logger: logger)
        }
        let partials = transcriber.finish()
        let transcription = ended.endpoint.duration(to: clock.now)
        let heard = transcript.text.trimmingWhitespace()
        if !heard.isEmpty {
            heardLanguage = transcript.language
            broadcast(.finalTranscript(heard))
        }
        // The user may correct the transcript (or drop the turn) before it is sent.
        var sent = heard
        // Words over a reply that do not interrupt it are never reviewed: they are no turn.
        let backchannel =
            machine.speechOverReply
            && configuration.rules.interruption.map {
                $0.backchannels.contains(heard, language: $0.language)
            } == true
        if !heard.isEmpty, !backchannel, let review = configuration.reviewTranscript {
            sent = (await review(heard) ?? "").trimmingWhitespace()
        }
        // Stopped (or cut short) meanwhile: the transcript is no longer awaited.
        guard machine.awaitsTranscript else {
            logger.debug("conversation: dropping a transcript nobody waits for any more")
            return
        }
        // The segment ends with padding after its last voiced frame.
        let padding = Int(configuration.segmentation.padding * Double(vad.sampleRate))
        let turn = TurnRecorder<C.Instant>.UserTurn(
            text: sent, heard: heard, segment: segment, partials: partials, endpoint: ended.endpoint,
            voiceEnded: arrivals.arrival(of: max(ended.segment.start, ended.segment.end - padding)),
            transcription: transcription, detection: detection, audio: ending.speech, transcribedBy: transcript.provider,
            predictedEnd: early.map { ($0.silence, $0.reason) }, language: transcript.language)
        try await apply(.transcribed(sent, at: clock.now), .spoken(turn))
    }

    /// Adds the user's turn to the history and writes it down.
    func saveUserTurn(_ text: String, _ cue: Cue, reply id: Int) async throws {
        let turn: TurnRecorder<C.Instant>.UserTurn
        switch cue {
        case .spoken(var spoken):
            spoken.text = text
            spoken.images = pendingImages
            turn = spoken
            detection = .zero
            history.append(ChatMessage(role: .user, parts: pendingImages.map(\.part) + [.text(text)]))
            pendingImages = []
        case .typed(let images):
            turn = .init(
                text: text, segment: SpeechSegment(start: 0, end: 0, sampleRate: vad.sampleRate), endpoint: clock.now,
                images: images.compactMap { if case .image(let data, let mimeType) = $0 { ImageAttachment(data: data, mimeType: mimeType) } else { nil } })
            history.append(ChatMessage(role: .user, parts: images + [.text(text)]))
        case .toolResults:
            // The results are in the history already; there is no message of the user's to keep.
            _ = recorder.begin(
                .init(text: "", segment: SpeechSegment(start: 0, end: 0, sampleRate: vad.sampleRate), endpoint: clock.now),
                reply: id)
            return
        case .none, .speechStart, .speechEnd, .played:
            turn = .init(text: text, segment: SpeechSegment(start: 0, end: 0, sampleRate: vad.sampleRate), endpoint: clock.now)
            history.append(.user(text))
        }
        let entry = recorder.begin(turn, reply: id)
        try await journal?.record(entry)
    }

    // MARK: - The reply

    /// Starts generating and speaking reply `id` to the history.
    func startReply(_ id: Int) {
        stopPrefill()
        let request = replyRequest(history, instructions: replyInstructions)
        replyInstructions = nil
        // A reply started on these very words during the pause is already on its way.
        if let adopted = adoptSpeculation(for: request, reply: id) {
            reply = Reply(id: id, task: adopted)
            return
        }
        recorder.requested(reply: id, at: clock.now)
        let speaker = self.speaker, output = self.output, clock = self.clock
        let task = Task {
            do {
                let outcome = try await speaker.speak(
                    request, to: output, clock: clock,
                    onText: { await self.replyText($0, reply: id) },
                    onFirstAudio: { await self.replyAudioStarted(id) })
                try await self.playedOut(outcome, reply: id)
            } catch {
                await self.replyFailed(error, reply: id)
            }
        }
        reply = Reply(id: id, task: task)
    }

    /// Keeps reply `id`'s outcome, waits until it has played to its end and closes its turn;
    /// returns early when the calling reply task is cancelled (the reply is being cut short).
    func playedOut(_ outcome: ReplySpeaker.Outcome, reply id: Int) async throws {
        replyGenerated(outcome, reply: id)
        guard !Task.isCancelled else { return }
        let played = isPlaying(id) ? await output.finish() : 0
        guard !Task.isCancelled else { return }
        try await replyFinished(id, played: played)
    }

    /// What the model is asked for a reply to `history`: the history trimmed to the context
    /// window, with room left for the reply; `instructions` replace the system prompt.
    func replyRequest(_ history: [ChatMessage], instructions: String? = nil) -> ChatRequest {
        var history = history
        if let instructions, history.first?.role == .system { history[0] = .system(instructions) }
        var sampling = configuration.sampling
        sampling.maxTokens = max(1, min(sampling.maxTokens, configuration.contextTokens / 2))
        let window = ContextWindow(tokens: configuration.contextTokens, reservedForReply: sampling.maxTokens)
        // A call the model must make is made once: the reply to its result answers in words.
        let choice = history.last?.role == .tool && configuration.toolChoice.forcesCall ? .auto : configuration.toolChoice
        return ChatRequest(messages: window.trim(history), sampling: sampling, tools: configuration.clientTools, toolChoice: choice)
    }

    private func isCurrent(_ id: Int) -> Bool {
        guard let reply, reply.id == id else { return false }
        return !reply.cut
    }

    func replyText(_ piece: String, reply id: Int) {
        guard isCurrent(id) else { return }
        broadcast(.replyText(piece))
    }

    func replyAudioStarted(_ id: Int) async {
        guard isCurrent(id) else { return }
        do {
            try await apply(.replyAudioStarted)
        } catch {
            await fail(error)
        }
    }

    private func replyGenerated(_ outcome: ReplySpeaker.Outcome, reply id: Int) {
        recorder.generated(outcome, reply: id)
    }

    private func isPlaying(_ id: Int) -> Bool {
        isCurrent(id) && reply?.playing == true
    }

    private func replyFinished(_ id: Int, played: Double) async throws {
        guard isCurrent(id) else { return }
        try await apply(.replyFinished(at: clock.now), .played(played, reply: id))
    }

    func replyFailed(_ error: any Error, reply id: Int) async {
        if let current = reply, current.id == id {
            // A reply being cut short has nothing more to say.
            guard !current.cut else { return }
            reply = nil
        }
        await fail(error)
    }

    /// Cuts the reply in progress short: cancels it, and either forgets its turn (nothing was
    /// heard: the question stays in the history, unanswered) or stops playback and saves what
    /// was heard as an interrupted turn.
    func cutReply(_ cut: Machine.ReplyCut) async throws {
        let id = reply?.id ?? replies
        if let current = reply {
            reply?.cut = true
            current.task.cancel()
            await current.task.value
            if reply?.id == id { reply = nil }
        }
        switch cut {
        case .beforePlayback:
            recorder.abandon(reply: id)
            resolveTurn(id, nil)
        case .duringPlayback:
            let played = await output.stop()
            try await saveAssistantTurn(reply: id, played: played, interrupted: true)
        }
    }

    /// Writes up turn `id` with its reply cut to what was heard, and adds the reply to the
    /// history.
    func saveAssistantTurn(reply id: Int, played: Double, interrupted: Bool) async throws {
        guard let finished = recorder.finish(reply: id, played: played, interrupted: interrupted, at: clock.now) else {
            resolveTurn(id, nil)
            return
        }
        // The tools the reply called, and what they gave, come before its words, and are kept.
        history += finished.toolExchange
        for message in finished.toolExchange { try await journal?.record(JournalEntry(toolExchange: message)) }
        if !finished.heard.isEmpty { history.append(.assistant(finished.heard)) }
        currentRun?.turns.append(finished.result)
        broadcast(.turn(finished.result))
        resolveTurn(id, finished.result)
        guard let entry = finished.entry else {
            // Nothing to keep: the model said nothing (the listener heard silence).
            logger.warning("[LLM] \(finished.result.providers.llm) returned an empty reply")
            return
        }
        try await journal?.record(entry)
    }
}
