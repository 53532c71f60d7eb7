import Logging

/// Transcribes the utterance being spoken: through the provider's live session when it
/// transcribes live, with partial transcripts as they come; otherwise with a partial
/// transcript of the audio so far every ``partialInterval`` seconds of speech (none when that
/// is `nil`) and one whole-buffer transcription when the utterance ends. A live session that
/// fails is replaced by a whole-buffer transcription of the utterance.
///
/// A value held by the conversation: it decides, the conversation runs the requests it returns.
struct UtteranceTranscriber: Sendable {
    /// A partial transcript that is due: the audio of the utterance so far.
    struct PartialRequest: Sendable {
        /// The utterance it belongs to.
        let utterance: Int
        let audio: AudioBuffer
        let stt: any SpeechToTextProvider
        let options: TranscriptionOptions

        /// The partial transcript (empty if the provider failed; a partial is not worth a
        /// failure).
        func transcribe() async -> String {
            let text = try? await stt.transcribe(audio.resampled(to: stt.preferredSampleRate), options: options).text
            return (text ?? "").trimmingWhitespace()
        }
    }

    /// An utterance that has ended, waiting for its final transcript.
    struct Ending: Sendable {
        /// The speech of the utterance (its segment's audio).
        let speech: AudioBuffer
        let live: Task<Transcript, any Error>?
        let stt: any SpeechToTextProvider
        let options: TranscriptionOptions

        /// The final transcript: the live session's, or the whole buffer's when there is no
        /// live session or it failed.
        func transcript(logger: Logger) async throws -> Transcript {
            if let live {
                do {
                    return try await live.value
                } catch {
                    logger.warning("[STT] \(stt.identity) live session failed (\(error)); transcribing the whole utterance instead")
                }
            }
            return try await stt.transcribe(speech.resampled(to: stt.preferredSampleRate), options: options)
        }
    }

    private struct Utterance: Sendable {
        var id: Int
        var start: Int
        var lastPartial: Int
        var partials: [String] = []
        var partialInFlight = false
        var live: LiveFeed?
    }

    /// A live session fed while the user speaks.
    private struct LiveFeed: Sendable {
        var sink: AsyncStream<AudioBuffer>.Continuation
        var result: Task<Transcript, any Error>
        /// The first sample (absolute) not yet sent.
        var fed: Int
    }

    let stt: any SpeechToTextProvider
    let options: TranscriptionOptions
    /// Seconds of speech between windowed partial transcripts; `nil` for none.
    let partialInterval: Double?
    /// Frames at or above this probability carry words (windowed partials are asked for only
    /// then: one during the closing silence would only delay the final transcript).
    let speechThreshold: Float

    private var current: Utterance?
    private var lastID = 0

    init(stt: any SpeechToTextProvider, options: TranscriptionOptions, partialInterval: Double?, speechThreshold: Float) {
        self.stt = stt
        self.options = options
        self.partialInterval = partialInterval
        self.speechThreshold = speechThreshold
    }

    /// Starts an utterance at absolute sample `start`. With `live`, opens the provider's live
    /// session, whose partial transcripts go to `onPartial` with the utterance's number.
    mutating func begin(at start: Int, live: Bool, onPartial: @escaping @Sendable (Int, String) async -> Void) {
        discard()
        lastID += 1
        var utterance = Utterance(id: lastID, start: start, lastPartial: start)
        if live {
            let (frames, sink) = AsyncStream.makeStream(of: AudioBuffer.self)
            let stt = self.stt, options = self.options, id = lastID
            let result = Task {
                var final: Transcript?
                for try await update in stt.transcribe(stream: frames, options: options) {
                    switch update {
                    case .partial(let text): await onPartial(id, text.trimmingWhitespace())
                    case .final(let transcript): final = transcript
                    }
                }
                guard let final else {
                    throw ProviderError.engineFailure(provider: stt.identity.description, detail: "the live session ended without a final transcript")
                }
                return final
            }
            utterance.live = LiveFeed(sink: sink, result: result, fed: start)
        }
        current = utterance
    }

    /// Takes in a frame scored by `detector`: sends a live session the audio it has not heard
    /// yet, or returns a windowed partial transcript that is due.
    mutating func heard(_ frame: UtteranceDetector.Frame, in detector: UtteranceDetector) -> PartialRequest? {
        guard var utterance = current else { return nil }
        defer { current = utterance }
        if var live = utterance.live {
            feed(&live, from: detector, upTo: frame.end)
            utterance.live = live
            return nil
        }
        guard let interval = partialInterval, frame.probability >= speechThreshold, !utterance.partialInFlight,
            Double(frame.end - utterance.lastPartial) >= interval * Double(detector.sampleRate)
        else { return nil }
        utterance.lastPartial = frame.end
        utterance.partialInFlight = true
        return PartialRequest(utterance: utterance.id, audio: detector.audio(from: utterance.start, to: frame.end), stt: stt, options: options)
    }

    /// A partial transcript arrived for utterance `id`; returns the text to report, if the
    /// utterance is still being transcribed and the text says something.
    mutating func partialArrived(_ text: String, utterance id: Int, windowed: Bool) -> String? {
        guard current?.id == id else { return nil }
        if windowed { current?.partialInFlight = false }
        guard !text.isEmpty else { return nil }
        current?.partials.append(text)
        return text
    }

    /// The utterance ended with `segment`: a live session gets the rest of the speech and its
    /// stream is closed, so its final transcript follows.
    mutating func end(_ segment: SpeechSegment, in detector: UtteranceDetector) -> Ending {
        var live = current?.live
        if var feed = live {
            self.feed(&feed, from: detector, upTo: segment.end)
            feed.sink.finish()
            live = feed
        }
        current?.live = nil
        return Ending(speech: detector.audio(from: segment.start, to: segment.end), live: live?.result, stt: stt, options: options)
    }

    /// Forgets the utterance, returning its partial transcripts (those that arrived while the
    /// final one was awaited count too).
    mutating func finish() -> [String] {
        defer { current = nil }
        return current?.partials ?? []
    }

    /// Drops the utterance, closing its live session.
    mutating func discard() {
        current?.live?.sink.finish()
        current?.live?.result.cancel()
        current = nil
    }

    private func feed(_ live: inout LiveFeed, from detector: UtteranceDetector, upTo end: Int) {
        let audio = detector.audio(from: live.fed, to: end)
        guard !audio.isEmpty else { return }
        live.sink.yield(audio)
        live.fed = min(end, detector.received)
    }
}
