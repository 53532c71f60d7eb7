import Foundation
import GRDB

/// Searching study materials with SQLite's FTS5 index (see ``StoreSchema``): the query's words
/// become a MATCH expression of quoted terms joined with `OR`, hits are ranked by BM25 with the
/// title weighing more than the text, and FTS5 cuts the snippets. A database without the index
/// (a SQLite built without FTS5) is searched with ``MaterialSearch`` instead.
extension ConversationStore {
    /// How much more a word in a material's title counts than one in its text.
    static let titleWeight = 4.0
    /// The most tokens in a snippet FTS5 cuts.
    static let snippetTokens = 48

    /// Searches `owner`'s materials for `query` and returns the best passages, best first, one
    /// per material, at most `limit`; empty when nothing matches, when the query has no
    /// searchable words or when `limit` is not positive. The query's words are stemmed (`trips` finds `trip`) and
    /// any one of them is enough; nothing in it is read as FTS5 syntax.
    public func searchMaterials(_ query: String, limit: Int, owner: Owner = .local) throws(StoreError) -> [MaterialSearch.Hit] {
        guard limit > 0, let expression = Self.matchExpression(query) else { return [] }
        return try read { db in
            guard try db.tableExists(StoreSchema.materialSearchTable, in: "main") else {
                let materials =
                    try MaterialRecord
                    .filter(Column(MaterialRecord.CodingKeys.owner) == owner.id)
                    .order(Column(MaterialRecord.CodingKeys.id).desc)
                    .fetchAll(db)
                    .map { try $0.stored() }
                return MaterialSearch(materials).search(query, limit: limit)
            }
            // CROSS JOIN keeps the index as the outer loop, where its MATCH, bm25() and
            // snippet() apply; the owner is matched as the other material queries match it.
            // bm25() is lower for better hits: the score is its negation.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT material.id, material.title,
                           snippet(material_search, 1, '', '', '…', ?) AS snippet,
                           bm25(material_search, ?, 1.0) AS ranking
                    FROM material_search CROSS JOIN material ON material.id = material_search.rowid
                    WHERE material_search MATCH ? AND material.owner IS ?
                    ORDER BY ranking, material.id DESC
                    LIMIT ?
                    """, arguments: [Self.snippetTokens, Self.titleWeight, expression, owner.id, limit])
            return try rows.map { row in
                MaterialSearch.Hit(
                    material: try row.decode(forColumn: "id"), title: try row.decode(forColumn: "title"),
                    snippet: MaterialSearch.fitted(snippet: try row.decode(forColumn: "snippet")),
                    score: -(try row.decode(Double.self, forColumn: "ranking")))
            }
        }
    }

    /// An FTS5 MATCH expression for `query`: its searchable words, each quoted as a string
    /// (so none is read as an operator, a column filter or a prefix), joined with `OR`; `nil`
    /// when it has none.
    static func matchExpression(_ query: String) -> String? {
        let words = MaterialSearch.queryWords(query)
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " OR ")
    }
}
