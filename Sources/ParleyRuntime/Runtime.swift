import Foundation
import Logging
import ParleyCore
import ParleyTasks
import ParleyLocal
import ParleyMaterials
import ParleyModels
import ParleyStore

/// The assistant as a library: one long-lived assembly that every face (the command line, the
/// server, a host app) composes.
///
/// A runtime reads the settings once, owns the on-device engines (built once, loaded lazily on
/// first use, shared by every conversation), one health registry per capability (circuit
/// breakers shared by every chain it builds, with background probes that bring a recovered
/// provider back), the conversation store and the spending tracker; and it makes the chains
/// and conversations. *Which provider answers* is decided here, from ``ProviderCatalog``.
///
/// ```swift
/// let runtime = try await Runtime.load()
/// let reply = try await runtime.languageModel().completeText(
///     ChatRequest(messages: [.user("What is the capital of France?")]))
/// ```
public actor Runtime<C: Clock> where C.Duration == Duration {
    /// The settings in force.
    public nonisolated let settings: RuntimeSettings
    /// The providers known, in chain order.
    public nonisolated let catalog: ProviderCatalog
    /// How the on-device engines were set up.
    public nonisolated let options: RuntimeOptions
    /// The on-device engines, shared by every conversation.
    public nonisolated let engines: LocalEngines
    /// The data directory.
    public nonisolated let paths: ParleyPaths
    /// Health per capability, shared by every chain this runtime builds.
    public nonisolated let health: [ProviderCapability: ProviderHealth<C>]
    /// The clock of timeouts, cool-downs and probes.
    public nonisolated let clock: C
    /// Which on-device language model the settings and the machine chose, and why (`nil` when
    /// the options named a file).
    public nonisolated let languageModelChoice: LanguageModelChoice?
    /// Which on-device speech model hears English, chosen by the settings (`PARLEY_STT_MODEL`)
    /// or the machine, and why (`nil` when the options named a whisper.cpp file).
    public nonisolated let speechModelChoice: SpeechModelChoice?

    let smallModel: LlamaLanguageModel?
    private let logger: Logger
    private var openedStore: (any ConversationStoring)?
    private var spending: SpendingTracker?
    /// Language models made for selections, and the on-device model they were made with.
    private var keptModels: [ProviderSelection: KeptModels] = [:]
    private struct KeptModels {
        var onDevice: String
        var models: (any LanguageModelProvider, (any LanguageModelProvider)?)
    }
    private var probes: [Task<Void, Never>] = []
    private var forwarding: [Task<Void, Never>] = []
    private var subscribers: [UInt64: AsyncStream<HealthChange>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0

    /// Creates a runtime from `settings`.
    public init(
        settings: RuntimeSettings, options: RuntimeOptions = RuntimeOptions(), catalog: ProviderCatalog = .standard,
        clock: C, logger: Logger = Logger(label: "parley.runtime")
    ) {
        self.catalog = catalog
        self.options = options
        self.clock = clock
        self.logger = logger
        let paths = options.paths ?? settings.paths
        self.paths = paths
        var engines = options.engines
        var settings = settings
        if engines.whisperModel == nil {
            // The ears the settings or the machine call for: a whisper.cpp file, or Moonshine
            // first in the on-device chain (as `PARLEY_STT_MODEL=moonshine-base` puts it).
            let choice = SpeechModelChoice.resolve(setting: settings.value("PARLEY_STT_MODEL"), folder: paths.models)
            if choice.isMoonshine, let id = choice.model?.id {
                if settings.value("PARLEY_STT_MODEL") == nil {
                    settings = RuntimeSettings(values: settings.values.merging(["PARLEY_STT_MODEL": id]) { $1 }, file: settings.file)
                }
            } else {
                engines.whisperModel = choice.path.path
            }
            self.speechModelChoice = choice
        } else {
            self.speechModelChoice = nil
        }
        self.settings = settings
        var small = options.smallModel
        if engines.languageModel == nil {
            // The model the settings or the machine call for (ParleyModels' catalog and presets).
            let choice = LanguageModelChoice.resolve(setting: settings.value("PARLEY_LLM_MODEL"), folder: paths.models)
            engines.languageModel = choice.path.path
            if engines.defaultSystemPrompt == nil { engines.defaultSystemPrompt = choice.model?.quirks.defaultSystemPrompt }
            if engines.endOfTurnThreshold == nil { engines.endOfTurnThreshold = choice.model?.quirks.endOfTurnThreshold }
            // The fast preset stays as the small model that answers while memory is short (or
            // while the main one is missing), unless another was named.
            if small == nil, let fast = ModelCatalog.standard.languageModel(.fast), choice.model?.id != fast.id {
                let library = ModelLibrary(folder: paths.models)
                if library.state(of: fast) == .installed { small = library.path(of: fast).path }
            }
            self.languageModelChoice = choice
        } else {
            self.languageModelChoice = nil
        }
        if engines.embeddingModel == nil { engines.embeddingModel = settings.value("PARLEY_EMBEDDING_MODEL") }
        self.engines = LocalEngines(paths: paths, overrides: engines)
        self.smallModel = small.map {
            LlamaLanguageModel(configuration: .init(modelPath: $0, contextLength: options.engines.contextLength, threads: options.engines.threads))
        }
        var health: [ProviderCapability: ProviderHealth<C>] = [:]
        for capability in ProviderCapability.allCases { health[capability] = ProviderHealth(clock: clock) }
        self.health = health
    }

    deinit {
        for task in probes + forwarding { task.cancel() }
        for subscriber in subscribers.values { subscriber.finish() }
    }

    /// The health registry of `capability`.
    public nonisolated func health(of capability: ProviderCapability) -> ProviderHealth<C> {
        // Every capability gets a registry in `init`.
        health[capability] ?? ProviderHealth(clock: clock)
    }

    // MARK: - Providers

    /// The context entries build their providers in.
    nonisolated func context(baseURL: String? = nil, model: String? = nil) -> ProviderContext {
        ProviderContext(settings: settings, baseURL: baseURL, model: model, engines: engines, paths: paths)
    }

    /// The entries of `capability` that a request would try, in order: for `.auto`, every
    /// configured one (the on-device engines are always configured); for `.local`, the
    /// on-device ones (for speech, the neural voice and then espeak-ng); for `.named`, that one.
    public nonisolated func entries(_ capability: ProviderCapability, for selection: ProviderSelection) throws(RuntimeError) -> [ProviderEntry] {
        let all = catalog.entries(for: capability)
        switch selection {
        case .auto:
            return all.filter { $0.isConfigured(in: settings) }
        case .local:
            return all.filter { $0.placement == .onDevice && ($0.chosenBy == nil || $0.isConfigured(in: settings)) }
        case .named(let name, let baseURL, _):
            guard let entry = all.first(where: { $0.name == name }) else {
                throw .unknownProvider(name, capability: capability, known: catalog.selectionNames(for: capability))
            }
            // A remote provider that is not set up is never asked: nothing leaves the machine
            // for a service the user did not configure (a base URL given with the selection is
            // one). An on-device engine named is built, and says itself whether it can serve.
            guard baseURL != nil || entry.placement == .onDevice || entry.isConfigured(in: settings) else {
                throw .notConfigured(name, capability: capability, remedy: entry.remedy)
            }
            return [entry]
        }
    }

    /// The providers of `capability` for `selection`, each built by the factory `maker` reads
    /// (every entry of a capability builds its kind of provider).
    private nonisolated func providers<P>(
        _ capability: ProviderCapability, _ selection: ProviderSelection,
        _ maker: (ProviderFactory) -> (@Sendable (ProviderContext) -> P)?
    ) throws(RuntimeError) -> [P] {
        var baseURL: String?, model: String?
        if case .named(_, let url, let name) = selection { (baseURL, model) = (url, name) }
        let context = context(baseURL: baseURL, model: model)
        return try entries(capability, for: selection).compactMap { maker($0.factory)?(context) }
    }

    /// The language model for `selection`: one provider, or the fallback chain ending
    /// on-device (routed under the monthly budget when one is set and a paid provider is
    /// configured).
    ///
    /// Images are always taken: when no provider that can see them answers, their text is read
    /// on device (``imageReader()``) and the question is answered from it, with a warning.
    public func languageModel(_ selection: ProviderSelection = .auto) async throws -> any LanguageModelProvider {
        let (base, seeing) = try await answeringModels(selection)
        return ImageReadingLanguageModel(base, seeing: seeing, reader: imageReader())
    }

    static func isOnDevice(_ provider: any LanguageModelProvider) -> Bool {
        provider.runsOnDevice
    }

    /// What reads the text of images when no provider can see them: Tesseract, in
    /// `PARLEY_OCR_LANGUAGES` (default `eng`).
    public nonisolated func imageReader() -> any ImageTextReader {
        TesseractImageReader(languages: settings.ocrLanguages)
    }

    /// What reads study materials from files (text, Markdown, PDF; scanned pages and images by
    /// Tesseract in `PARLEY_OCR_LANGUAGES`).
    public nonisolated func materialReader() -> MaterialReader {
        MaterialReader(ocr: TesseractImageReader(languages: settings.ocrLanguages))
    }

    /// The model for requests without images, and (when the vision task orders the providers
    /// differently) the one for requests with images: made once per selection and on-device
    /// model, and kept (a server asks for every request), except under a cost budget, whose
    /// routing is made afresh.
    private func answeringModels(_ selection: ProviderSelection) async throws -> (any LanguageModelProvider, (any LanguageModelProvider)?) {
        guard settings.budget == nil else { return try await makeAnsweringModels(selection) }
        let onDevice = engines.llm.configuration.modelPath
        if let kept = keptModels[selection], kept.onDevice == onDevice { return kept.models }
        let models = try await makeAnsweringModels(selection)
        // Clients may name any model; a few dozen selections are kept at most.
        if keptModels.count >= 32 { keptModels.removeAll() }
        keptModels[selection] = KeptModels(onDevice: onDevice, models: models)
        return models
    }

    private func makeAnsweringModels(_ selection: ProviderSelection) async throws -> (any LanguageModelProvider, (any LanguageModelProvider)?) {
        let chosen = try providers(.languageModel, selection, \.languageModel)
        guard selection == .auto else { return (chosen[0], nil) }
        let remote = chosen.filter { !Self.isOnDevice($0) }
        var onDevice: [any LanguageModelProvider] = chosen.filter(Self.isOnDevice)
        if let smallModel, let first = onDevice.first, first.identity == engines.llm.identity {
            let main = engines.llm
            // The main model steps aside (and is unloaded if need be) while the machine is
            // short of memory or too hot; the small one answers meanwhile.
            let size = (try? FileManager.default.attributesOfItem(atPath: main.configuration.modelPath)[.size] as? NSNumber)?.uint64Value ?? 0
            onDevice = [ResourceGuardedLanguageModel(main, modelBytes: size, monitor: SystemResourceMonitor()), smallModel]
        }
        let all = remote + onDevice
        guard all.count > 1 else { return (all[0], nil) }
        // Images go to the remote providers in the vision task's order (PARLEY_TASK_ORDER,
        // OpenAI then Anthropic unless set); the on-device models stay last.
        let seeing = try settings.taskPolicy().order(for: .vision, among: remote).providers + onDevice
        let reordered = seeing.map(\.identity) != all.map(\.identity)
        let health = health(of: .languageModel)
        let logger = Logger(label: "parley.chain.llm")
        if let budget = settings.budget, !remote.isEmpty {
            // Charges go to the conversation database, so the month's spending holds across
            // runs; past the budget only free (on-device) providers are used.
            let spending = try await spendingTracker(budget: budget, providers: remote)
            let policy = RoutingPolicy(
                defaultChain: all.map(\.identity.description),
                chains: reordered ? [.vision: seeing.map(\.identity.description)] : [:])
            return (RoutedLanguageModel(providers: all, policy: policy, health: health, clock: clock, spending: spending, logger: logger), nil)
        }
        let chain = LanguageModelChain(providers: all, health: health, clock: clock, logger: logger)
        guard reordered else { return (chain, nil) }
        return (chain, LanguageModelChain(providers: seeing, health: health, clock: clock, logger: logger))
    }

    /// Structured output for `selection`: the same providers as ``languageModel(_:)`` (one,
    /// or every configured one ending on-device), in the chain's order, each asked for JSON
    /// that follows a schema, validated, repaired or failed over. Tasks reorder them
    /// (``taskCoordinator(_:)``).
    public func structuredGenerator(_ selection: ProviderSelection = .auto) throws -> StructuredGenerator<C> {
        var chosen = try providers(.languageModel, selection, \.languageModel)
        if selection == .auto, let smallModel { chosen.append(smallModel) }
        return StructuredGenerator(providers: chosen, health: health(of: .languageModel), logger: Logger(label: "parley.structured"))
    }

    /// The learning tasks (entities, summaries, breakdowns, simplification, resolve, mind
    /// maps) over ``structuredGenerator(_:)``, each with its provider order from
    /// `PARLEY_TASK_ORDER` (or the standard one).
    public func taskCoordinator(_ selection: ProviderSelection = .auto) throws -> TaskCoordinator<C> {
        TaskCoordinator(generator: try structuredGenerator(selection), policy: try settings.taskPolicy())
    }

    /// Speech to text for `selection`: one provider, or the chain of configured providers
    /// ending with whisper.cpp.
    public nonisolated func speechToText(_ selection: ProviderSelection = .auto) throws -> any SpeechToTextProvider {
        let chosen = try providers(.speechToText, selection, \.speechToText)
        guard chosen.count > 1 else { return chosen[0] }
        return SpeechToTextChain(providers: chosen, health: health(of: .speechToText))
    }

    /// Text to speech for `selection`: one provider, or the chain of configured providers
    /// ending on device with the neural voice and then espeak-ng (which speaks, with a warning,
    /// when the neural voice is missing or has not the voice asked for).
    public nonisolated func textToSpeech(_ selection: ProviderSelection = .auto) throws -> any TextToSpeechProvider {
        let chosen = try providers(.textToSpeech, selection, \.textToSpeech)
        guard chosen.count > 1 else { return chosen[0] }
        return TextToSpeechChain(providers: chosen, health: health(of: .textToSpeech))
    }

    /// Voice activity detection: Silero, then the energy detector (with a warning) when
    /// Silero cannot run.
    public nonisolated func voiceActivityDetector() -> VoiceActivityDetectorChain {
        let detectors = (try? providers(.voiceActivity, .auto, \.voiceActivity)) ?? []
        return VoiceActivityDetectorChain(
            detectors.isEmpty ? [EnergyVoiceActivityDetector()] : detectors,
            logger: Logger(label: "parley.chain.vad"))
    }

    // MARK: - Store and spending

    /// The conversation store: the one handed over with ``use(store:)``, else the SQLite file
    /// at ``databaseURL``, opened on first use and kept.
    public func store() throws -> any ConversationStoring {
        if let openedStore { return openedStore }
        let store = try ConversationStore(path: databaseURL)
        openedStore = store
        return store
    }

    /// Makes `store` the conversation store of everything this runtime makes from now on
    /// (conversations, their journals, the spending ledger). The server opens the shared
    /// PostgreSQL database that `PARLEY_DATABASE_URL` names and hands it over before serving;
    /// the runtime itself never reads that setting, so command-line conversations keep the
    /// local SQLite file.
    public func use(store: any ConversationStoring) {
        openedStore = store
    }

    /// The SQLite file of the conversations (when no other store is handed over), and the
    /// directory beside it keeps recordings.
    public nonisolated var databaseURL: URL { options.database ?? settings.database }

    private func spendingTracker(budget: RuntimeSettings.Budget, providers: [any LanguageModelProvider]) async throws -> SpendingTracker {
        if let spending { return spending }
        let tracker = SpendingTracker(
            monthlyBudget: budget.monthly, alertThreshold: budget.alert,
            prices: settings.prices(for: providers), ledger: try store())
        try await tracker.restore()
        spending = tracker
        return tracker
    }

    // MARK: - Health

    /// Probes every configured cloud and self-hosted provider every `interval` on the
    /// runtime's clock: one that answers ready after a rest is healthy again and the chains
    /// use it, one that does not is marked down. Changes are logged. Runs until
    /// ``stopProbing()`` or the runtime ends.
    public func startProbing(every interval: Duration) {
        stopProbing()
        for capability in [ProviderCapability.languageModel, .speechToText, .textToSpeech] {
            let remote = (try? providers(capability, .auto, \.provider))?.filter { !$0.identity.isLocal } ?? []
            guard !remote.isEmpty else { continue }
            let health = health(of: capability)
            probes.append(health.startProbing(remote, every: interval))
        }
        forwardHealthChanges()
    }

    /// Stops the background probes.
    public func stopProbing() {
        for probe in probes { probe.cancel() }
        probes = []
    }

    /// A change of a provider's health, with the capability it serves.
    public struct HealthChange: Sendable, Equatable {
        /// The capability.
        public var capability: ProviderCapability
        /// The change.
        public var change: ProviderHealth<C>.Change
    }

    /// Every later change of any provider's health (each call is a new subscription). The
    /// runtime also logs them: a provider going down as a warning, a recovery as a notice.
    public func healthChanges() -> AsyncStream<HealthChange> {
        forwardHealthChanges()
        let (stream, continuation) = AsyncStream.makeStream(of: HealthChange.self, bufferingPolicy: .bufferingNewest(256))
        nextSubscriber += 1
        let id = nextSubscriber
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    private func publish(_ change: HealthChange) {
        let text = "[\(change.capability)] \(change.change.provider): \(change.change.from.rawValue) → \(change.change.to.rawValue) (\(change.change.reason))"
        if change.change.to == .down { logger.warning("\(text)") } else { logger.notice("\(text)") }
        for subscriber in subscribers.values { subscriber.yield(change) }
    }

    /// Reads each registry's changes once, for the subscribers and the log.
    private func forwardHealthChanges() {
        guard forwarding.isEmpty else { return }
        for (capability, registry) in health {
            let changes = registry.changes
            forwarding.append(
                Task { [weak self] in
                    for await change in changes {
                        guard let self else { return }
                        await self.publish(HealthChange(capability: capability, change: change))
                    }
                })
        }
    }
}

extension Runtime where C == ContinuousClock {
    /// A runtime on the real clock, from `settings`.
    public init(
        settings: RuntimeSettings, options: RuntimeOptions = RuntimeOptions(), catalog: ProviderCatalog = .standard,
        logger: Logger = Logger(label: "parley.runtime")
    ) {
        self.init(settings: settings, options: options, catalog: catalog, clock: ContinuousClock(), logger: logger)
    }

    /// Reads the settings (environment, then the settings file) and makes a runtime.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        options: RuntimeOptions = RuntimeOptions()
    ) async throws -> Runtime<ContinuousClock> {
        Runtime(settings: try await RuntimeSettings.load(environment: environment), options: options)
    }
}

/// Checks that each provider can serve before any work starts, so a missing model is one
/// clear sentence instead of a failure half-way.
public func ensureReady(_ providers: [any Provider]) async throws {
    for provider in providers {
        let availability = await provider.availability()
        guard availability.isReady else {
            throw ProviderError.unavailable(provider: provider.identity.description, availability)
        }
    }
}
