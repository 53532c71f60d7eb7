import Foundation
import Logging
import ParleyCore
import ParleyStore

/// Searches study materials by words and, when an embedding model is at hand, by meaning too:
/// a question that shares no word with a passage ("automobile" and a passage about cars) still
/// finds it. Without an embedder it is exactly the store's word search.
///
/// Each material's passages (`MaterialSearch.passages(of:)`) are embedded once and kept in
/// the store (`ConversationStoring.saveMaterialVectors(_:model:owner:)`): when the material is
/// added (``index(_:owner:)``), or, for materials saved before or synced, during a search, as
/// many as ``indexingBudget`` allows (the rest are found by their words until a later search
/// has embedded them). A failing embedder is a warning, and the search goes on by words.
public struct MaterialFinder: Sendable {
    /// The store searched.
    public let store: any ConversationStoring
    /// The embedding model, `nil` for words only.
    public let embedder: (any EmbeddingProvider)?
    /// How long one search may spend embedding materials that have no vectors yet.
    public var indexingBudget: Duration = .milliseconds(1500)
    /// How long one search waits for meaning (the model's first load, the question's vector)
    /// before it answers by words alone; the work goes on for the next search.
    public var meaningBudget: Duration = .seconds(3)
    private let logger = Logger(label: "parley.materials.search")

    /// Creates a finder over `store`; `embedder` (the on-device model, ``Runtime/onDeviceEmbedder(warn:)``)
    /// adds meaning.
    public init(store: any ConversationStoring, embedder: (any EmbeddingProvider)?) {
        self.store = store
        self.embedder = embedder
    }

    /// The model name the vectors are kept under.
    var model: String? { embedder?.identity.model }

    /// The best passages for `query`, best first, one per material, at most `limit`: the
    /// store's word hits blended with closeness in meaning (`MaterialSearch.blend(words:meanings:limit:)`).
    public func search(_ query: String, limit: Int, owner: Owner) async throws(StoreError) -> [MaterialSearch.Hit] {
        guard limit > 0 else { return [] }
        guard let embedder, let model, !query.allSatisfy(\.isWhitespace) else {
            return try await store.searchMaterials(query, limit: limit, owner: owner)
        }
        // More word hits than asked for: meaning may reorder them.
        let words = try await store.searchMaterials(query, limit: max(limit * 4, 12), owner: owner)
        let meaning = Task { () async throws -> [MaterialSearch.Hit] in
            try await indexMissing(owner: owner, model: model, embedder: embedder)
            let vectors = try await store.materialVectors(model: model, owner: owner)
            guard !vectors.isEmpty else { return Array(words.prefix(limit)) }
            guard let question = try await embedder.embed([query], model: nil).vectors.first else { return Array(words.prefix(limit)) }
            return MaterialSearch.blend(words: words, meanings: MaterialSearch.nearest(to: question, in: vectors), limit: limit)
        }
        switch await Self.first(of: meaning, within: meaningBudget) {
        case .success(let hits)?:
            return hits
        case .failure(let error as StoreError)?:
            throw error
        case .failure(let error)?:
            logger.warning("searching materials by meaning failed (\(embedder.identity)), searching by words only: \(error)")
        case nil:
            logger.warning(
                "searching materials by meaning took over \(meaningBudget) (\(embedder.identity)), searching by words only; it goes on for the next search")
        }
        return Array(words.prefix(limit))
    }

    /// `task`'s result, or `nil` when `budget` passes first (or the caller is cancelled); the
    /// task is left to finish on its own.
    private static func first<T: Sendable>(of task: Task<T, any Error>, within budget: Duration) async -> Result<T, any Error>? {
        let (results, continuation) = AsyncStream.makeStream(of: Result<T, any Error>?.self)
        let waiter = Task {
            continuation.yield(await task.result)
            continuation.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: budget)
            continuation.yield(nil)
            continuation.finish()
        }
        defer {
            timer.cancel()
            waiter.cancel()
        }
        for await result in results { return result }
        return nil
    }

    /// Embeds `material`'s passages and keeps the vectors; a no-op without an embedder. A
    /// failure is logged as a warning (the material is embedded again at a later search).
    public func index(_ material: Material, owner: Owner) async {
        guard let embedder, let model else { return }
        do {
            try await store.saveMaterialVectors(try await vectors(of: material, embedder: embedder), model: model, owner: owner)
        } catch {
            logger.warning("could not embed material \(material.id) (\(embedder.identity)); it will be embedded at a later search: \(error)")
        }
    }

    /// Embeds the materials of `owner` that have no vectors from `model`, newest first: at least
    /// one, and more until ``indexingBudget`` has passed.
    private func indexMissing(owner: Owner, model: String, embedder: any EmbeddingProvider) async throws {
        let indexed = Set(try await store.materialVectors(model: model, owner: owner).map(\.material))
        let missing = try await store.materials(owner: owner).filter { !indexed.contains($0.id) }
        guard !missing.isEmpty else { return }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: indexingBudget)
        var done = 0
        for material in missing {
            guard done == 0 || clock.now < deadline else { break }
            try Task.checkCancellation()
            try await store.saveMaterialVectors(try await vectors(of: material, embedder: embedder), model: model, owner: owner)
            done += 1
        }
        if done < missing.count {
            logger.notice("embedded \(done) of \(missing.count) materials for meaning search; the rest are searched by words until a later search")
        }
    }

    /// `material`'s passages with their vectors (each embedded with the material's title).
    private func vectors(of material: Material, embedder: any EmbeddingProvider) async throws -> MaterialVectors {
        let passages = MaterialSearch.passages(of: material.text)
        guard !passages.isEmpty else { return MaterialVectors(material: material.id, title: material.title, passages: []) }
        let embedded = try await embedder.embed(passages.map { "\(material.title): \($0)" }, model: nil)
        guard embedded.vectors.count == passages.count else {
            throw ProviderError.engineFailure(
                provider: embedder.identity.description,
                detail: "\(embedded.vectors.count) vectors for \(passages.count) passages")
        }
        return MaterialVectors(
            material: material.id, title: material.title,
            passages: zip(passages, embedded.vectors).map { MaterialVectors.Passage(text: $0, vector: $1) })
    }
}
