import Foundation
import ParleyCore

extension MachineProfile {
    /// How long `model`'s final transcript of a 5 s utterance takes on this machine: the
    /// reference machine's time on two cores (``SpeechFacts/finalTranscriptMilliseconds``),
    /// scaled by the cores here (whisper.cpp and ONNX Runtime spread the encoder over its
    /// threads; beyond eight the gain is taken as none). `nil` for a model without speech facts.
    public func finalTranscriptMilliseconds(of model: CatalogModel) -> Double? {
        guard let speech = model.speech else { return nil }
        return speech.finalTranscriptMilliseconds * 2 / Double(min(max(cores, 1), 8))
    }

    /// Why `model` does not suit this machine as its ears, or `nil` when it does: its memory must
    /// fit in a quarter of the free memory (the language model, the voice and the app need the
    /// rest) and its final transcript of a 5 s utterance must come within
    /// ``SpeechModelChoice/budgetMilliseconds``.
    public func speechMisfit(_ model: CatalogModel) -> String? {
        guard let time = finalTranscriptMilliseconds(of: model) else { return "not a speech model with known speed" }
        if model.memory * 4 > availableMemory {
            return "needs \(ByteFormat.string(model.memory)), a quarter of the free \(ByteFormat.string(availableMemory)) is less"
        }
        if time > SpeechModelChoice.budgetMilliseconds {
            return String(format: "its final transcript would take about %.0f ms here, over the %.0f ms budget", time, SpeechModelChoice.budgetMilliseconds)
        }
        return nil
    }

    /// The English speech models of `catalog` that suit this machine, best heard first (lowest
    /// published word error rate), among those `available` admits (by default, those that can
    /// be had at all: downloadable, or made by setup).
    public func suitableSpeechModels(
        in catalog: ModelCatalog = .standard,
        available: (CatalogModel) -> Bool = { $0.isObtainable }
    ) -> [CatalogModel] {
        SpeechModelChoice.candidates(in: catalog).filter { available($0) && speechMisfit($0) == nil }
    }

    /// The speech model this machine affords: the best heard of ``suitableSpeechModels(in:available:)``,
    /// else (nothing fits) the quickest one.
    public func recommendedSpeechModel(in catalog: ModelCatalog = .standard) -> CatalogModel? {
        suitableSpeechModels(in: catalog).first ?? SpeechModelChoice.quickest(in: catalog)
    }
}

/// Which on-device speech model hears English, and why: the ears' counterpart of
/// ``LanguageModelChoice``.
public struct SpeechModelChoice: Sendable, Equatable {
    /// The time a final transcript of a 5 s utterance may take, in milliseconds: past about half
    /// a second the wait after the speaker stops is felt before the answer even starts.
    public static let budgetMilliseconds = 500.0

    /// The model's main file (a whisper.cpp model, or Moonshine's encoder).
    public var path: URL
    /// Its catalog entry, when it has one.
    public var model: CatalogModel?
    /// Why this one, for `parley doctor`.
    public var reason: String

    /// Creates a choice.
    public init(path: URL, model: CatalogModel?, reason: String) {
        self.path = path
        self.model = model
        self.reason = reason
    }

    /// Whether the choice is Moonshine (heard by sherpa-onnx, not whisper.cpp).
    public var isMoonshine: Bool { model?.speech?.engine == .moonshine }

    /// The catalog's English speech models, best heard first.
    static func candidates(in catalog: ModelCatalog) -> [CatalogModel] {
        catalog.models.filter { $0.capability == .stt && $0.speech != nil }
            .sorted { ($0.speech?.publishedWER ?? .infinity) < ($1.speech?.publishedWER ?? .infinity) }
    }

    /// The model with the quickest final transcript (the floor when nothing fits).
    static func quickest(in catalog: ModelCatalog) -> CatalogModel? {
        candidates(in: catalog).min { ($0.speech?.finalTranscriptMilliseconds ?? .infinity) < ($1.speech?.finalTranscriptMilliseconds ?? .infinity) }
    }

    /// Chooses the model that hears English:
    /// 1. `PARLEY_STT_MODEL` (a catalog id, or the path of a whisper.cpp model file);
    /// 2. otherwise the best heard model this machine affords
    ///    (``MachineProfile/recommendedSpeechModel(in:)``) if installed, else the best heard
    ///    installed one that suits the machine, else the quickest installed one;
    /// 3. otherwise the quickest model, missing: using it says which command fetches it.
    public static func resolve(
        setting: String?, folder: URL, catalog: ModelCatalog = .standard,
        machine: MachineProfile = .current()
    ) -> SpeechModelChoice {
        let library = ModelLibrary(folder: folder, catalog: catalog)
        if let setting, !setting.isEmpty {
            if let model = catalog.model(setting), model.capability == .stt {
                return SpeechModelChoice(path: library.path(of: model), model: model, reason: "chosen in the settings (PARLEY_STT_MODEL)")
            }
            let path = URL(fileURLWithPath: (setting as NSString).expandingTildeInPath)
            return SpeechModelChoice(
                path: path, model: catalog.models.first { $0.capability == .stt && path.lastPathComponent == $0.files.first?.name },
                reason: "the file the settings name (PARLEY_STT_MODEL)")
        }
        let installed: (CatalogModel) -> Bool = { library.state(of: $0) == .installed }
        let machineText = "\(ByteFormat.string(machine.availableMemory)) free, \(machine.cores) cores"
        guard let recommended = machine.recommendedSpeechModel(in: catalog) else {
            return SpeechModelChoice(
                path: folder.appendingPathComponent(Tunable.defaultSpeechToTextModelFile), model: nil, reason: "the catalog has no speech model")
        }
        let budget = String(format: "%.0f ms", budgetMilliseconds)
        func time(_ model: CatalogModel) -> String {
            String(format: "~%.0f ms", machine.finalTranscriptMilliseconds(of: model) ?? 0)
        }
        func wer(_ model: CatalogModel) -> String {
            String(format: "%.1f%%", model.speech?.publishedWER ?? 0)
        }
        if installed(recommended) {
            let why =
                machine.speechMisfit(recommended) == nil
                ? "the best heard model that suits this machine (\(machineText)): published WER \(wer(recommended)), final transcript of 5 s of speech \(time(recommended)) within \(budget)"
                : "nothing suits this machine (\(machineText)) within \(budget); the quickest model hears"
            return SpeechModelChoice(path: library.path(of: recommended), model: recommended, reason: why)
        }
        let fallback =
            machine.suitableSpeechModels(in: catalog, available: installed).first
            ?? candidates(in: catalog).filter(installed).min {
                (machine.finalTranscriptMilliseconds(of: $0) ?? 0) < (machine.finalTranscriptMilliseconds(of: $1) ?? 0)
            }
        guard let used = fallback else {
            let model = quickest(in: catalog) ?? recommended
            return SpeechModelChoice(
                path: library.path(of: model), model: model,
                reason: "no speech model is installed; run parley models pull \(model.id)")
        }
        return SpeechModelChoice(
            path: library.path(of: used), model: used,
            reason: "\(recommended.id) suits this machine (\(machineText): published WER \(wer(recommended)), \(time(recommended)) within \(budget)) "
                + "but is not installed (parley models pull \(recommended.id)); using \(used.id), the best installed")
    }
}
