import Foundation
import ParleyCore
import ParleyLocal
import ParleyStore

/// A conversation a ``Runtime`` made: the session to drive, and where it is written down.
public struct RuntimeConversation<C: Clock>: Sendable where C.Duration == Duration {
    /// The conversation: feed it audio, typed text and images; read its updates.
    public let session: ConversationSession<C>
    /// Where its turns are saved, when they are.
    public let journal: ThreadJournal?
    /// The settings it runs with (saved with a new thread).
    public let settings: ThreadSettings
    /// Engines being loaded ahead (the neural voice while the first turn is heard).
    let preparation: Task<Void, Never>?
    /// The on-device neural voice: it loads another thread count when a sentence first wants
    /// one, so ``prepared()`` waits for that too.
    let neuralVoice: PiperTextToSpeech

    /// Waits until the engines the conversation loads ahead are loaded. Call it before the
    /// process ends: a C engine still loading on another thread while the process exits can
    /// crash it (`parley talk` on silent audio ended with a segmentation fault one time in five).
    public func prepared() async {
        await preparation?.value
        await neuralVoice.settled()
    }

    /// The saved thread, once there is one.
    public var thread: Int64? {
        get async { await journal?.thread }
    }
}

extension Runtime {
    /// Makes a conversation on this runtime's providers, engines and store.
    ///
    /// - Parameters:
    ///   - options: providers and behaviour; unset fields come from `thread`'s saved settings.
    ///   - thread: a saved conversation of `options.owner` to continue (its history goes to the
    ///     model, trimmed to the context window, and its saved system prompt and reply length
    ///     apply unless `options` sets them); `nil` starts a new one, saved under that owner.
    ///   - output: where replies are played.
    /// - Throws: `StoreError.threadNotFound` for an unknown thread or another owner's;
    ///   `ProviderError.unavailable` when a provider the conversation needs cannot serve.
    public func makeConversation(
        options: ConversationOptions = ConversationOptions(), thread: Int64? = nil,
        output: any AudioOutput
    ) async throws -> RuntimeConversation<C> {
        guard options.saves || thread == nil else {
            throw RuntimeError.invalidSelection("A conversation that is not saved cannot continue a saved thread.")
        }
        let store = options.saves ? try store() : nil
        var history: [ChatMessage] = []
        var saved: ThreadSettings?
        if let store, let thread {
            guard let stored = try await store.thread(thread, owner: options.owner) else { throw StoreError.threadNotFound(thread) }
            saved = stored.settings
            history = try await ThreadJournal.history(of: thread, in: store, owner: options.owner)
        }
        let llm = try await languageModel(options.languageModel)
        let stt = try speechToText(options.speechToText)
        var tts = try textToSpeech(options.textToSpeech)
        try await ensureReady([stt, llm, tts])
        let language = options.language ?? .english
        if !language.isEnglish {
            // English sentences keep the chain's voice; the others go to espeak-ng's voice for
            // their language.
            tts = SentenceLanguageVoices(primary: tts, other: engines.tts, fallback: language.code ?? "en")
        }
        // The on-device model loads on its own thread while the first turn is heard.
        let answerer = await llm.answerer()
        let onDevice = Self.isOnDevice(answerer)
        let systemPrompt =
            options.systemPrompt ?? saved?.systemPrompt
            ?? (language.isEnglish ? ThreadSettings.defaultSystemPrompt : LocalizedPhrases.voicePrompt(language))
        if onDevice {
            // Loaded, and the conversation's start (instructions, tools, history) evaluated,
            // while the first turn is heard.
            let local = engines.llm
            let start = [ChatMessage.system(systemPrompt)] + history + [.user("")]
            let tools = options.tools?.definitions ?? []
            Task {
                try? await local.load()
                try? await local.prefill(start, tools: tools)
            }
        }

        // The neural voice loads (about a second) while the first turn is heard, not on the
        // reply's first sentence, when it is the voice that speaks first (no cloud voice before it).
        let neural = engines.neuralVoice
        var preparation: Task<Void, Never>?
        if tts.identity.isLocal, (try? entries(.textToSpeech, for: options.textToSpeech))?.contains(where: { $0.name == "neural" }) == true,
            await neural.availability().isReady, let voice = try? neural.voice(named: SpeechOptions(voice: options.voice).customVoice)
        {
            // One thread count (as many as the cores are free for): a second load beside the
            // first turn would hold up its pause's score.
            preparation = Task { try? await neural.load(voice) }
        }

        let maxTokens = options.maxTokens ?? saved?.maxTokens ?? ConversationOptions.defaultMaxTokens
        var configuration = ConversationConfiguration(systemPrompt: systemPrompt)
        configuration.tools = options.tools
        configuration.clientTools = options.clientTools
        configuration.toolChoice = options.toolChoice
        configuration.sampling.maxTokens = maxTokens
        configuration.sampling.temperature = options.temperature
        configuration.speech.voice = options.voice
        configuration.segmentation.endSilence = options.endSilence
        configuration.segmentation.maxSpeech = options.maxTurn
        if let threshold = options.speechThreshold {
            configuration.segmentation.onThreshold = threshold
            configuration.segmentation.offThreshold = max(0.01, threshold - 0.15)
        }
        if let padding = options.speechPadding { configuration.segmentation.padding = padding }
        if let transcription = options.transcription { configuration.transcription = transcription }
        if options.language != nil { configuration.transcription.language = language.transcriptionLanguage }
        let heardLanguage = configuration.transcription.language
        configuration.duplex = options.duplex
        configuration.rules.allowsBargeIn = options.allowsBargeIn
        configuration.rules.interruption = options.interruption.map { rules in
            var rules = rules
            if rules.language == nil { rules.language = heardLanguage }
            return rules
        }
        configuration.partialInterval = options.partialInterval.flatMap { $0 > 0 ? $0 : nil }
        configuration.startsListening = options.startsListening
        configuration.reviewTranscript = options.reviewTranscript
        configuration.contextTokens = self.options.engines.contextLength
        if options.prefillsPrompt { configuration.prefiller = answerer.promptPrefiller }
        if let shortSilence = options.shortSilence {
            // An on-device model scores the words whichever provider answers. The answering
            // model itself when it evaluates the reply's prompt while the user speaks: its
            // memory then holds all but the last words, the score costs only those (which the
            // reply needs anyway) and the reply evaluates only the template's close after it.
            // Otherwise the small model when there is one (a 1.5B model's evaluation of a whole
            // prompt on two cores does not finish within the pause), else the main one. The
            // reply starts during the pause on the on-device model, which costs nothing when
            // it is dropped; not on a model billed per token.
            let answererScores = configuration.prefiller != nil ? answerer.turnPredictor : nil
            // With `turnSignals` `.both` or `.voice` the voice is scored too (Smart Turn on
            // device, ~70 ms), the words only when it is unsure; asked for without the model,
            // the words alone decide (with a warning). By default the words alone.
            let turnModel = options.turnSignals == .words ? nil : engines.audioTurnScorer()
            configuration.turnPrediction = TurnPrediction(
                predictor: answererScores ?? (smallModel as (any TurnPredictor)?) ?? engines.llm,
                audio: turnModel, readsWords: options.turnSignals != .voice || turnModel == nil,
                policy: TurnPolicy(shortSilence: shortSilence),
                speculates: onDevice && options.startsReplyEarly)
            // The first pause is scored on its words within a fraction of a second: the
            // scoring model, and the on-device transcriber when it is the one that hears, must
            // be loaded by then, not on that pause.
            let hearing = await stt.answerer()
            let small = answererScores == nil ? smallModel : nil
            Task {
                await hearing.prepare()
                // Another language than English, or auto, is heard by the multilingual model.
                if let whisper = hearing as? WhisperSpeechToText { try? await whisper.load(language: heardLanguage) }
                try? await small?.load()
                try? await turnModel?.load()
            }
        }

        if options.wakeWord {
            // Loaded now: a missing model fails here, with what to run, not at the first frame.
            let spotter = try await engines.wakeWordSpotter()
            configuration.wakeWord = WakeWordGate(spotter: spotter, followUp: options.wakeWordFollowUp)
        }

        let settings = ThreadSettings(
            backend: saved?.backend ?? (llm.identity.isLocal ? "local" : llm.identity.name),
            modelPreset: saved?.modelPreset ?? llm.identity.model, systemPrompt: systemPrompt, maxTokens: maxTokens)
        if let store, let thread, settings != saved {
            try await store.updateSettings(settings, thread: thread, owner: options.owner)
        }
        // Recordings are written beside the SQLite file (a shared store also keeps their bytes).
        let audioDirectory = databaseURL.deletingLastPathComponent().appendingPathComponent("audio", isDirectory: true)
        let journal = store.map {
            ThreadJournal(
                store: $0, thread: thread, settings: settings, owner: options.owner,
                keepAudioIn: options.keepsAudio ? audioDirectory : nil)
        }
        let session = ConversationSession(
            vad: try voiceActivityDetector().activeDetector(), stt: stt, llm: llm, tts: tts,
            output: output, journal: journal, history: history, configuration: configuration, clock: clock)
        return RuntimeConversation(
            session: session, journal: journal, settings: settings, preparation: preparation,
            neuralVoice: neural)
    }
}
