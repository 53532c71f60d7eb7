import Foundation
import ParleyCore

/// What a machine can afford: memory it has free and cores.
public struct MachineProfile: Sendable, Equatable {
    /// Memory available to a new process, in bytes.
    public var availableMemory: Int64
    /// CPU cores.
    public var cores: Int

    /// Creates a profile.
    public init(availableMemory: Int64, cores: Int) {
        self.availableMemory = availableMemory
        self.cores = cores
    }

    /// This machine now: the memory it has free (``MachineReadings/availableMemory()``: on
    /// Linux `MemAvailable` within the control group's room, on iOS what the system grants the
    /// app, on macOS the free and reclaimable pages), never the total; and its cores.
    public static func current() -> MachineProfile {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Where nothing says, half the physical memory: a phone must not be taken as all free.
        let available = MachineReadings().availableMemory() ?? ProcessInfo.processInfo.physicalMemory / 2
        return MachineProfile(availableMemory: Int64(clamping: available), cores: cores)
    }

    /// The best preset this machine runs well: the model must fit in a third of the free memory
    /// (leaving room for speech recognition, the browser or the app around it), and the quality
    /// preset needs two cores to keep a turn's first audio near a second.
    public func recommendedPreset(in catalog: ModelCatalog = .standard) -> ModelPreset {
        for preset in ModelPreset.allCases.reversed() {
            guard let model = catalog.languageModel(preset) else { continue }
            if preset == .quality && cores < 2 { continue }
            if model.memory * 3 <= availableMemory { return preset }
        }
        return .fast
    }
}

/// Which on-device language model a runtime uses, and why.
public struct LanguageModelChoice: Sendable, Equatable {
    /// The GGUF file.
    public var path: URL
    /// Its catalog entry, when it has one.
    public var model: CatalogModel?
    /// Why this one, for `parley doctor` and `parley models list`.
    public var reason: String

    /// Chooses the language model:
    /// 1. `PARLEY_LLM_MODEL` (a catalog id or a file path), set in the environment or by
    ///    `parley models use`;
    /// 2. otherwise the preset the machine affords (``MachineProfile/recommendedPreset(in:)``), if
    ///    installed, else the best installed preset below it;
    /// 3. otherwise the recommended one, missing: using it says which command fetches it.
    public static func resolve(
        setting: String?, folder: URL, catalog: ModelCatalog = .standard,
        machine: MachineProfile = .current()
    ) -> LanguageModelChoice {
        let library = ModelLibrary(folder: folder, catalog: catalog)
        if let setting, !setting.isEmpty {
            if let model = catalog.model(setting), model.capability == .llm {
                return LanguageModelChoice(path: library.path(of: model), model: model, reason: "chosen in the settings (PARLEY_LLM_MODEL)")
            }
            let path = URL(fileURLWithPath: (setting as NSString).expandingTildeInPath)
            return LanguageModelChoice(
                path: path, model: catalog.models.first { path.lastPathComponent == $0.files.first?.name },
                reason: "the file the settings name (PARLEY_LLM_MODEL)")
        }
        let recommended = machine.recommendedPreset(in: catalog)
        let candidates = catalog.languageModels.filter { ($0.preset ?? .fast) <= recommended }.reversed()
        for model in candidates where library.state(of: model) == .installed {
            let why =
                model.preset == recommended
                ? "the \(recommended.rawValue) preset suits this machine (\(ByteFormat.string(machine.availableMemory)) free, \(machine.cores) cores)"
                : "the \(recommended.rawValue) preset suits this machine but is not installed (parley models pull \(catalog.languageModel(recommended)?.id ?? "")); using the best one installed"
            return LanguageModelChoice(path: library.path(of: model), model: model, reason: why)
        }
        let model = catalog.languageModel(recommended) ?? catalog.languageModels[0]
        return LanguageModelChoice(
            path: library.path(of: model), model: model,
            reason: "no language model is installed; run parley models pull \(model.id)")
    }

    /// The catalog model to install: the one `PARLEY_LLM_MODEL` names, else the preset the
    /// machine affords, whatever is installed already (``resolve(setting:folder:catalog:machine:)``
    /// falls back to an installed smaller one; this is what would take its place). `nil` when
    /// the setting names a file rather than a catalog model.
    public static func wanted(
        setting: String?, catalog: ModelCatalog = .standard,
        machine: MachineProfile = .current()
    ) -> CatalogModel? {
        if let setting, !setting.isEmpty {
            guard let model = catalog.model(setting), model.capability == .llm else { return nil }
            return model
        }
        return catalog.languageModel(machine.recommendedPreset(in: catalog)) ?? catalog.languageModels.first
    }
}
