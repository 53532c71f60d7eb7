import Foundation
import ParleyCore
import ParleyLocal
import ParleyModels

/// A switch of the on-device language model.
public struct LanguageModelSwitch: Sendable, Equatable {
    /// The model switched away from.
    public var from: ProviderIdentity
    /// The model now serving.
    public var to: ProviderIdentity
    /// Its file.
    public var path: String
    /// Its catalog id, when it has one.
    public var catalogID: String?
}

extension Runtime {
    /// The on-device language model serving now: its identity, file and catalog id.
    public nonisolated var currentLanguageModel: (identity: ProviderIdentity, path: String, catalogID: String?) {
        let configuration = engines.llm.configuration
        let id = ModelCatalog.standard.languageModels.first { $0.files.first?.name == URL(fileURLWithPath: configuration.modelPath).lastPathComponent }?.id
        return (engines.llm.identity, configuration.modelPath, id)
    }

    /// The file of the on-device language model serving now (cheaper than
    /// ``currentLanguageModel``, which also finds its catalog id).
    public nonisolated var currentLanguageModelPath: String {
        engines.llm.configuration.modelPath
    }

    /// Switches the on-device language model to `model` (a catalog id such as
    /// `smollm2-135m`, or a GGUF file's path) in this running runtime: requests that start
    /// from now on use it; a reply in progress finishes on the old one, which is then unloaded
    /// before the new one loads (on its first request), so the two never share memory.
    ///
    /// - Returns: the switch, and a task that ends once the old model is unloaded.
    /// - Throws: ``RuntimeError/unusableModel(_:)`` when the model is not installed or the file
    ///   is not a GGUF model; nothing changes then.
    @discardableResult
    public nonisolated func switchLanguageModel(to model: String) throws(RuntimeError) -> (LanguageModelSwitch, unloaded: Task<Void, Never>) {
        let trimmed = model.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .unusableModel("Name the model to switch to: a catalog id (parley models list) or a .gguf file.") }
        let catalog = ModelCatalog.standard
        guard catalog.model(trimmed)?.capability == .llm || trimmed.contains("/") || trimmed.hasSuffix(".gguf") else {
            let known = catalog.languageModels.map(\.id).joined(separator: ", ")
            throw .unusableModel("No language model called \(trimmed) in the catalog; use one of \(known), or the path of a .gguf file.")
        }
        let choice = LanguageModelChoice.resolve(setting: trimmed, folder: paths.models, catalog: catalog)
        let path = choice.path.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .unusableModel(
                choice.model.map { "The model \($0.id) is not installed: run parley models pull \($0.id) first." }
                    ?? "There is no model file at \(path); give a catalog id (parley models list) or the path of a .gguf file.")
        }
        guard let handle = FileHandle(forReadingAtPath: path), let magic = try? handle.read(upToCount: 4), magic == Data("GGUF".utf8) else {
            throw .unusableModel("\(path) is not a GGUF model file.")
        }
        try? handle.close()
        var configuration = engines.llm.configuration
        configuration.modelPath = path
        configuration.defaultSystemPrompt = choice.model?.quirks.defaultSystemPrompt
        configuration.endOfTurnThreshold = choice.model?.quirks.endOfTurnThreshold
        let from = engines.llm.identity
        let (_, unloaded) = engines.llm.switchTo(configuration)
        return (LanguageModelSwitch(from: from, to: engines.llm.identity, path: path, catalogID: choice.model?.id), unloaded)
    }
}
