import Foundation
import ParleyStore
import PostgresNIO

/// Searching study materials with PostgreSQL's full text search, over the `search` column
/// (see ``PostgresSchema``): the query's words become a `tsquery` of words joined with `|`,
/// hits are ranked by `ts_rank_cd` (a word in the title counts more than one in the text), and
/// `ts_headline` cuts the snippets.
extension PostgresConversationStore {
    /// How `ts_headline` cuts a snippet: no highlight marks, 20 to 60 words.
    static let headlineOptions = #"StartSel="", StopSel="", MaxWords=60, MinWords=20"#

    /// Searches `owner`'s materials for `query` and returns the best passages, best first, one
    /// per material, at most `limit`; empty when nothing matches, when the query has no
    /// searchable words or when `limit` is not positive. The query's words are stemmed as English (`trips` finds
    /// `trip`) and any one of them is enough; nothing in it is read as `tsquery` syntax.
    public func searchMaterials(_ query: String, limit: Int, owner: Owner) async throws(StoreError) -> [MaterialSearch.Hit] {
        // Each word is letters and digits only, so `to_tsquery` reads it as one operand.
        let words = MaterialSearch.queryWords(query)
        guard limit > 0, !words.isEmpty else { return [] }
        let expression = words.joined(separator: " | ")
        // The headlines, the costly part, are cut for the best rows only.
        let rows = try await rows(
            """
            SELECT id, title, ts_headline('english', text, query, \(Self.headlineOptions)) AS snippet, score
            FROM (
                SELECT id, title, text, query, ts_rank_cd(search, query)::float8 AS score
                FROM material, to_tsquery('english', \(expression)) AS query
                WHERE owner = \(owner.column) AND search @@ query
                ORDER BY score DESC, id DESC
                LIMIT \(limit)
            ) AS best
            ORDER BY score DESC, id DESC
            """)
        return try Self.decoding {
            try rows.map { row in
                let row = row.makeRandomAccess()
                return MaterialSearch.Hit(
                    material: try row["id"].decode(Int64.self), title: try row["title"].decode(String.self),
                    snippet: MaterialSearch.fitted(snippet: try row["snippet"].decode(String.self)),
                    score: try row["score"].decode(Double.self))
            }
        }
    }
}
