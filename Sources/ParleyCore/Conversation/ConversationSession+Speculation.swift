extension ConversationSession {
    /// A reply begun on the transcript of a pause while the end of the turn was still being
    /// confirmed. Its text is kept back and its audio held: nothing of it reaches the listener,
    /// the subscribers, the history or the journal unless the turn it answers is confirmed, with
    /// exactly the request it was made for (then it becomes that turn's reply); if the user goes
    /// on, or the turn turns out otherwise, it is cancelled and dropped without a trace.
    struct Speculation {
        /// Its number, which its callbacks carry.
        var number: Int
        /// The end of the speech whose pause it answers (see ``ConversationSession/scoringSegmentEnd``).
        var segmentEnd: Int
        /// What it asked the model.
        var request: ChatRequest
        /// When it was started.
        var started: C.Instant
        var audio: HeldReplyAudio
        var task: Task<ReplySpeaker.Outcome, any Error>
        /// The model's text so far, kept back.
        var text: [String] = []
        /// Whether its first audio is ready (held).
        var audible = false
    }

    /// Starts a reply on the words of a pause that sound whole (``TurnPrediction/speculates``),
    /// unless one for this pause is under way or the conversation is not waiting for the user.
    func speculate(on score: TurnScore) {
        guard configuration.turnPrediction?.speculates == true, reply == nil, machine.state == .listening,
            detector?.openSegment?.end == score.segment.end, speculation?.segmentEnd != score.segment.end
        else { return }
        let words = score.transcript.text.trimmingWhitespace()
        guard !words.isEmpty else { return }
        discardSpeculation(because: "a later pause replaces it")
        stopPrefill()
        // The request the turn will make if it ends with these words (see saveUserTurn).
        let request = replyRequest(history + [ChatMessage(role: .user, parts: pendingImages.map(\.part) + [.text(words)])])
        speculations += 1
        let number = speculations
        let audio = HeldReplyAudio()
        let speaker = self.speaker, clock = self.clock
        let task = Task {
            try await speaker.speak(
                request, to: audio, clock: clock,
                onText: { await self.speculativeText($0, speculation: number) },
                onFirstAudio: { await self.speculativeAudioStarted(speculation: number) })
        }
        speculation = Speculation(number: number, segmentEnd: score.segment.end, request: request, started: clock.now, audio: audio, task: task)
        logger.debug("conversation: started a reply to \"\(words)\" while the end of the turn is confirmed")
    }

    /// Cancels the speculative reply, if any; nothing of it was heard or kept.
    func discardSpeculation(because reason: String) {
        guard let dropped = speculation else { return }
        speculation = nil
        dropped.task.cancel()
        logger.debug("conversation: dropped the reply started early: \(reason)")
    }

    /// Drops the speculative reply when the user has spoken again since the pause it answers.
    func checkSpeculation() {
        guard let speculation, let open = detector?.openSegment, open.end != speculation.segmentEnd else { return }
        discardSpeculation(because: "the user went on")
    }

    /// Makes the speculative reply reply `id`, when it was made for exactly `request`: what it
    /// has written is shown, its held audio plays, and the returned task carries it to its end
    /// as ``startReply(_:)``'s would. `nil` (and the speculation dropped) otherwise.
    func adoptSpeculation(for request: ChatRequest, reply id: Int) -> Task<Void, Never>? {
        guard let adopted = speculation else { return nil }
        guard adopted.request == request else {
            discardSpeculation(because: "the turn did not end with the words it answered")
            return nil
        }
        speculation = nil
        adoptedSpeculation = (adopted.number, id)
        let confirmed = clock.now
        recorder.requested(reply: id, at: adopted.started, speculative: true)
        logger.debug("conversation: the reply started early answers the turn")
        for piece in adopted.text { broadcast(.replyText(piece)) }
        let output = self.output
        return Task {
            do {
                if adopted.audible { await self.replyAudioStarted(id) }
                await adopted.audio.release(to: output)
                var outcome = try await withTaskCancellationHandler {
                    try await adopted.task.value
                } onCancel: {
                    adopted.task.cancel()
                }
                // Nothing of it reached the listener before the turn was confirmed.
                let wait = adopted.started.duration(to: confirmed)
                outcome.firstToken = outcome.firstToken.map { max($0, wait) }
                outcome.firstAudio = outcome.firstAudio.map { max($0, wait) }
                try await self.playedOut(outcome, reply: id)
            } catch {
                await self.replyFailed(error, reply: id)
            }
        }
    }

    private func speculativeText(_ piece: String, speculation number: Int) {
        if let adoptedSpeculation, adoptedSpeculation.number == number {
            replyText(piece, reply: adoptedSpeculation.reply)
        } else if speculation?.number == number {
            speculation?.text.append(piece)
        }
    }

    private func speculativeAudioStarted(speculation number: Int) async {
        if let adoptedSpeculation, adoptedSpeculation.number == number {
            await replyAudioStarted(adoptedSpeculation.reply)
        } else if speculation?.number == number {
            speculation?.audible = true
        }
    }
}
