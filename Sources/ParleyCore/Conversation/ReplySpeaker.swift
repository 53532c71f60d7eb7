import Synchronization
/// Generates a reply and speaks it sentence by sentence while the model still writes: the
/// model's text is cut into sentences, each is synthesized as soon as it is complete, and its
/// audio goes to the output at once.
///
/// Cancelling the calling task stops the model and the synthesizer promptly; the outcome then
/// holds what had been written and spoken up to that point.
public struct ReplySpeaker: Sendable {
    /// What one reply produced.
    public struct Outcome: Sendable {
        /// Everything the model wrote.
        public var text: String
        /// The sentences spoken, with their audio lengths.
        public var spoken: SpokenReply
        /// The model's accounting.
        public var usage: Usage
        /// Who answered.
        public var provider: ProviderIdentity
        /// Who spoke the reply (the provider that served, where the voice is a chain); `nil`
        /// when nothing was spoken.
        public var voice: ProviderIdentity?
        /// From the request to the first text.
        public var firstToken: Duration?
        /// From the request to the first audio handed to the output.
        public var firstAudio: Duration?
        /// From the request to the model's last text.
        public var generation: Duration
        /// Time spent synthesizing.
        public var synthesis: Duration
        /// Whether the reply was cut short by cancellation.
        public var cancelled: Bool
        /// The tool exchange before the final text, in order: each round's assistant message
        /// with its calls, then the tools' results (empty when no tool was called).
        public var toolExchange: [ChatMessage] = []
        /// The tool calls' results, in order, with their timings.
        public var toolResults: [ToolResult] = []
        /// Calls to tools the speaker does not have (the request's own, a client's): the reply
        /// ended there, for the caller to run them.
        public var clientCalls: [ToolCall] = []
    }

    /// What the voice says while a tool takes its time.
    public struct Acknowledgement: Sendable, Equatable {
        /// How long a tool may run before the acknowledgement is spoken.
        public var after: Duration
        /// What is said.
        public var text: String

        /// Creates an acknowledgement.
        public init(after: Duration = .milliseconds(700), text: String = "One moment.") {
            self.after = after
            self.text = text
        }
    }

    /// The words a first clause needs to be spoken on its own (see
    /// ``SentenceChunker/init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``).
    public static let firstClauseWords = 5

    /// The words a subject needs to be spoken before its verb (see
    /// ``SentenceChunker/init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``): "The capital of France |
    /// is Paris." starts three tokens sooner; "The moon | is …" would leave the voice waiting
    /// for the rest.
    public static let firstPredicateWords = 3

    /// The words the first chunk needs to be spoken before a number (see
    /// ``SentenceChunker/init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``): "The
    /// moon is approximately | 384,400 kilometers away." is spoken from before the number's
    /// first digit instead of after its last (Qwen2.5 writes each digit as a token).
    public static let firstNumberWords = 3

    /// The words a first clause needs to be spoken on its own when it ends at a comma,
    /// semicolon or colon (see
    /// ``SentenceChunker/init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``):
    /// "I apologize, | but I'm not sure what you're asking." is spoken from the comma.
    public static let firstMarkWords = 2

    /// The words the first chunk needs to be spoken before a word that opens a phrase (see
    /// ``SentenceChunker/init(firstClauseWords:firstPredicateWords:firstNumberWords:firstMarkWords:firstPhraseWords:)``):
    /// "Your meeting | with the science teacher …". The neural voice's time to its first audio
    /// grows with the length of the chunk (about 0.12 s per second of speech on one core).
    public static let firstPhraseWords = 2

    /// A chunker that cuts a reply's text as the speaker speaks it: the first chunk as soon
    /// as a phrase, clause or subject is whole, whole sentences after it.
    public static func replyChunker() -> SentenceChunker {
        SentenceChunker(
            firstClauseWords: firstClauseWords, firstPredicateWords: firstPredicateWords,
            firstNumberWords: firstNumberWords, firstMarkWords: firstMarkWords, firstPhraseWords: firstPhraseWords)
    }

    /// The most silence (seconds) kept after a chunk that ends inside a sentence (a first
    /// clause, or a subject before its verb): a breath, not the pause a synthesizer leaves
    /// after every text it is given (espeak-ng's is 0.3 s).
    public static let midSentencePause = 0.08

    /// Whether `chunk` ends a sentence (its last mark, after any closing quotes or brackets,
    /// is `.`, `!`, `?` or `…`).
    static func endsSentence(_ chunk: String) -> Bool {
        guard let mark = chunk.last(where: { !"\"'”’)]".contains($0) && !$0.isWhitespace }) else { return false }
        return ".!?…".contains(mark)
    }

    /// The model.
    public let llm: any LanguageModelProvider
    /// The voice.
    public let tts: any TextToSpeechProvider
    /// Voice settings.
    public let speech: SpeechOptions
    /// The tools the model may call while it answers (none: a plain reply).
    public var tools: ToolBox?
    /// The most rounds of tool calls in one reply; the round after the last answers in words.
    public var toolRounds: Int = 3
    /// What is said while a tool runs longer than its ``Acknowledgement/after``; `nil` says nothing.
    public var acknowledgement: Acknowledgement? = Acknowledgement()
    /// The acknowledgement's audio, synthesized once before the model reads a tool's result:
    /// the voice and the model take turns on the cores, so it could not be made while the
    /// model reads.
    private let acknowledgementAudio = PreparedSpeech()

    /// Creates a speaker.
    public init(
        llm: any LanguageModelProvider, tts: any TextToSpeechProvider, speech: SpeechOptions = SpeechOptions(),
        tools: ToolBox? = nil
    ) {
        self.llm = llm
        self.tts = tts
        self.speech = speech
        self.tools = tools.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Generates the reply to `request`, sending its audio to `output` as it is synthesized,
    /// and times it on the continuous clock.
    /// - Parameters:
    ///   - request: the conversation so far, ending with the turn to answer.
    ///   - output: where the reply's audio is played.
    ///   - onFirstAudio: called once, just before the first chunk is played.
    /// - Throws: the model's or the synthesizer's error (not on cancellation).
    public func speak(
        _ request: ChatRequest, to output: any AudioOutput, onFirstAudio: @Sendable () async -> Void = {}
    ) async throws -> Outcome {
        try await speak(request, to: output, clock: ContinuousClock(), onFirstAudio: onFirstAudio)
    }

    /// Generates the reply to `request`, sending its audio to `output` as it is synthesized,
    /// and times it on `clock`.
    /// - Parameters:
    ///   - request: the conversation so far, ending with the turn to answer.
    ///   - output: where the reply's audio is played.
    ///   - clock: the clock that times the reply's stages.
    ///   - onText: called with each piece of the model's text as it arrives.
    ///   - onFirstAudio: called once, just before the first chunk is played (nothing is
    ///     played if the task is cancelled meanwhile).
    /// - Throws: the model's or the synthesizer's error (not on cancellation).
    public func speak<C: Clock>(
        _ request: ChatRequest, to output: any AudioOutput, clock: C,
        onText: @escaping @Sendable (String) async -> Void = { _ in }, onFirstAudio: @Sendable () async -> Void = {}
    ) async throws -> Outcome where C.Duration == Duration {
        let start = clock.now
        let (sentences, sentenceSink) = AsyncStream.makeStream(of: ReplyPiece.self)
        let llm = self.llm

        // The model writes into the sentence stream while the synthesizer speaks each sentence
        // as it arrives.
        let tools = self.tools
        let rounds = max(1, toolRounds)
        let acknowledgement = self.acknowledgement
        async let generation: Written = {
            var written = Written(provider: llm.identity)
            // A long first sentence is spoken from its first clause on.
            var chunker = Self.replyChunker()
            defer { sentenceSink.finish() }
            var current = request
            // A cued call (see ToolBox.cue) is the look-up the words asked for: the model then
            // answers from it in words rather than calling again.
            var cued = false
            if let tools {
                current.tools = ToolBox.merged(current.tools, tools.definitions)
                if let choice = tools.cuedChoice(for: current) {
                    current.toolChoice = choice
                    cued = true
                }
            }
            // What the voice says when a tool exchange keeps the reply quiet: from the calls
            // until the model's next words, which include evaluating the calls and results.
            let quiet = AcknowledgementWindow()
            defer { quiet.close() }
            // A call the words plainly want, with its arguments, is made before the model
            // writes: the model's one round answers from its result.
            if let tools, let call = tools.cuedCall(for: current) {
                if let acknowledgement {
                    quiet.open(
                        acknowledgement, audio: await acknowledgementAudio.audio(for: acknowledgement.text, voice: tts, options: speech),
                        clock: clock, into: sentenceSink)
                }
                let results = await tools.run([call], clock: clock)
                let exchange = [ChatMessage.assistant("", toolCalls: [call])] + results.map(\.message)
                written.toolExchange += exchange
                written.toolResults += results
                current.messages += exchange
                current.toolChoice = .none
            }
            do {
                for round in 1...rounds {
                    var calls: [ToolCall] = []
                    var roundText = ""
                    for try await event in llm.complete(current) {
                        switch event {
                        case .text(let piece):
                            quiet.close()
                            if written.firstToken == nil { written.firstToken = start.duration(to: clock.now) }
                            written.text += piece
                            roundText += piece
                            await onText(piece)
                            for sentence in chunker.append(piece) { sentenceSink.yield(.text(sentence)) }
                        case .finished(_, let reported):
                            written.usage.add(reported)
                        case .provider(let identity):
                            written.provider = identity
                        case .toolCall(let call):
                            calls.append(call)
                        case .toolCallDelta:
                            break
                        }
                    }
                    guard !calls.isEmpty, !Task.isCancelled else { break }
                    // What the model said before its calls is spoken now, not after the tools.
                    if let rest = chunker.finish() { sentenceSink.yield(.text(rest)) }
                    let ours = calls.filter { tools?.tool(named: $0.name) != nil }
                    guard let tools, ours.count == calls.count else {
                        // Calls for the caller: the ones the speaker has run, the rest wait.
                        let results = await tools?.run(ours, clock: clock) ?? []
                        written.toolExchange += [ChatMessage.assistant(roundText, toolCalls: calls)] + results.map(\.message)
                        written.toolResults += results
                        written.clientCalls = calls.filter { tools?.tool(named: $0.name) == nil }
                        break
                    }
                    if let acknowledgement {
                        quiet.open(
                            acknowledgement, audio: await acknowledgementAudio.audio(for: acknowledgement.text, voice: tts, options: speech),
                            clock: clock, into: sentenceSink)
                    }
                    let results = await tools.run(calls, clock: clock)
                    let exchange = [ChatMessage.assistant(roundText, toolCalls: calls)] + results.map(\.message)
                    written.toolExchange += exchange
                    written.toolResults += results
                    current.messages += exchange
                    current.toolChoice =
                        round == 1 && cued
                        ? .none
                        : ToolLoop.nextChoice(
                            current.toolChoice, round: round, of: rounds, calls: calls,
                            before: written.toolResults.dropLast(results.count).map(\.call))
                    if let last = written.text.last, !last.isWhitespace { written.text += " " }
                }
            } catch  where Task.isCancelled {
                // Stopped by the caller: what was written so far stands.
            }
            if !Task.isCancelled, let rest = chunker.finish() { sentenceSink.yield(.text(rest)) }
            written.total = start.duration(to: clock.now)
            return written
        }()

        var spoken = SpokenReply()
        var firstAudio: Duration?
        var synthesis = Duration.zero
        var synthesisError: (any Error)?
        var voice: ProviderIdentity?
        for await piece in sentences {
            guard !Task.isCancelled else { break }
            let sentence = piece.text
            let sentenceStart = clock.now
            var duration = 0.0
            // The pause the voice leaves after the chunk: a sentence's own, or a breath.
            var tail = SilenceTail()
            do {
                for try await spokenChunk in piece.audio(voice: tts, options: speech) {
                    let chunk = spokenChunk.audio
                    if voice == nil { voice = spokenChunk.provider }
                    if firstAudio == nil {
                        firstAudio = start.duration(to: clock.now)
                        await onFirstAudio()
                        // Cut short while the first audio was announced: nothing is played.
                        guard !Task.isCancelled else { break }
                    }
                    for part in tail.play(chunk) {
                        await output.play(part)
                        duration += part.duration
                    }
                }
                if !Task.isCancelled, let pause = tail.end(keeping: Self.endsSentence(sentence) ? nil : Self.midSentencePause) {
                    await output.play(pause)
                    duration += pause.duration
                }
            } catch {
                if !Task.isCancelled { synthesisError = error }
                break
            }
            synthesis += sentenceStart.duration(to: clock.now)
            if duration > 0 { spoken.append(sentence, duration: duration) }
        }
        let written = try await generation
        if let synthesisError { throw synthesisError }
        return Outcome(
            text: written.text.trimmingWhitespace(), spoken: spoken, usage: written.usage, provider: written.provider, voice: voice,
            firstToken: written.firstToken, firstAudio: firstAudio, generation: written.total,
            synthesis: synthesis, cancelled: Task.isCancelled, toolExchange: written.toolExchange,
            toolResults: written.toolResults, clientCalls: written.clientCalls)
    }

    /// What the model wrote over the reply's rounds.
    private struct Written: Sendable {
        var text = ""
        var usage = Usage()
        var firstToken: Duration?
        var total = Duration.zero
        var provider: ProviderIdentity
        var toolExchange: [ChatMessage] = []
        var toolResults: [ToolResult] = []
        var clientCalls: [ToolCall] = []
    }
}

/// The stretch in which a tool exchange keeps a spoken reply quiet: opened when calls begin,
/// closed by the model's next words (or the reply's end). The acknowledgement is spoken once the
/// stretch has lasted its delay, and never after the words: both sides decide under one lock.
private final class AcknowledgementWindow: Sendable {
    private struct State {
        var generation = 0
        var open = false
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Opens the window (if it is not open already): `acknowledgement` is yielded into `sink`
    /// when it is still open after ``ReplySpeaker/Acknowledgement/after``.
    func open<C: Clock>(
        _ acknowledgement: ReplySpeaker.Acknowledgement, audio: [SpokenChunk], clock: C,
        into sink: AsyncStream<ReplyPiece>.Continuation
    ) where C.Duration == Duration {
        state.withLock { state in
            guard !state.open else { return }
            state.open = true
            state.generation += 1
            let generation = state.generation
            state.timer = Task { [weak self] in
                guard (try? await clock.sleep(for: acknowledgement.after)) != nil else { return }
                self?.state.withLock { state in
                    guard state.open, state.generation == generation else { return }
                    state.open = false
                    sink.yield(audio.isEmpty ? .text(acknowledgement.text) : .prepared(acknowledgement.text, audio))
                }
            }
        }
    }

    /// Closes the window: the acknowledgement, if not yet spoken, is not.
    func close() {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.open = false
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }
}

/// What a spoken reply says next: text for the voice, or words whose audio is already made.
enum ReplyPiece: Sendable {
    /// Words to synthesize.
    case text(String)
    /// Words and their audio, synthesized before.
    case prepared(String, [SpokenChunk])

    /// The words.
    var text: String {
        switch self {
        case .text(let text), .prepared(let text, _): text
        }
    }

    /// The piece's audio: synthesized by `voice` now, or the prepared chunks.
    func audio(voice: any TextToSpeechProvider, options: SpeechOptions) -> AsyncThrowingStream<SpokenChunk, any Error> {
        switch self {
        case .text(let text):
            return voice.synthesizeAttributed(text, options: options)
        case .prepared(_, let chunks):
            return AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        }
    }
}

/// Phrases synthesized once and kept, for a speaker that says them again (the acknowledgement).
final class PreparedSpeech: Sendable {
    private let made = Mutex<[String: [SpokenChunk]]>([:])

    /// The audio of `text`: kept from before, or synthesized by `voice` now and kept. Empty when
    /// the voice fails (the words are then synthesized when said, as any other).
    func audio(for text: String, voice: any TextToSpeechProvider, options: SpeechOptions) async -> [SpokenChunk] {
        if let kept = made.withLock({ $0[text] }) { return kept }
        var chunks: [SpokenChunk] = []
        do {
            for try await chunk in voice.synthesizeAttributed(text, options: options) { chunks.append(chunk) }
        } catch {
            return []
        }
        made.withLock { $0[text] = chunks }
        return chunks
    }
}
