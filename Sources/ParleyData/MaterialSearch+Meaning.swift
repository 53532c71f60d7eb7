/// Ranking by meaning as well as by words: a question's embedding is compared with each
/// passage's (``MaterialVectors``), and the closeness joins the word score.
extension MaterialSearch {
    /// How close (cosine similarity) a passage must be to the question to be found by meaning
    /// alone, when it shares no word with it. Measured with all-MiniLM-L6-v2 on study notes:
    /// related question and passage 0.27–0.55 ("automobile" and a passage about cars 0.35),
    /// unrelated ones at most 0.19.
    public static let meaningThreshold: Float = 0.25
    /// The share of the meaning in a blended score (the words have the rest).
    public static let meaningWeight = 0.5

    /// The passage of each material closest in meaning to `query` (its L2-normalized
    /// embedding), with the cosine similarity, closest first.
    public static func nearest(to query: [Float], in materials: [MaterialVectors]) -> [(material: MaterialVectors, passage: String, similarity: Float)] {
        materials.compactMap { material -> (material: MaterialVectors, passage: String, similarity: Float)? in
            var best: (String, Float)?
            for passage in material.passages where passage.vector.count == query.count {
                let similarity = zip(passage.vector, query).reduce(Float(0)) { $0 + $1.0 * $1.1 }
                if best.map({ similarity > $0.1 }) ?? true { best = (passage.text, similarity) }
            }
            return best.map { (material: material, passage: $0.0, similarity: $0.1) }
        }
        .sorted { $0.similarity > $1.similarity }
    }

    /// Blends word hits (a store's ``ConversationStoring/searchMaterials(_:limit:owner:)``, any
    /// scale) with the materials' closeness in meaning (``nearest(to:in:)``): each material's
    /// score is its word score relative to the best word hit, weighted `1 - meaningWeight`,
    /// plus its similarity, weighted ``meaningWeight``. A material with no word hit is found
    /// only when its similarity reaches ``meaningThreshold``; its snippet is then its closest
    /// passage. Best first, at most `limit`.
    public static func blend(words: [Hit], meanings: [(material: MaterialVectors, passage: String, similarity: Float)], limit: Int) -> [Hit] {
        guard limit > 0 else { return [] }
        let best = words.map(\.score).max() ?? 0
        let similarity = Dictionary(meanings.map { ($0.material.material, Double($0.similarity)) }, uniquingKeysWith: max)
        var hits: [Hit] = words.map { hit in
            let wordPart = best > 0 ? hit.score / best : 1
            var blended = hit
            blended.score = (1 - meaningWeight) * wordPart + meaningWeight * max(0, similarity[hit.material] ?? 0)
            return blended
        }
        let found = Set(words.map(\.material))
        for near in meanings where !found.contains(near.material.material) && near.similarity >= meaningThreshold {
            hits.append(
                Hit(
                    material: near.material.material, title: near.material.title, snippet: fitted(snippet: near.passage),
                    score: meaningWeight * Double(near.similarity)))
        }
        return Array(hits.sorted { $0.score != $1.score ? $0.score > $1.score : $0.material > $1.material }.prefix(limit))
    }
}
