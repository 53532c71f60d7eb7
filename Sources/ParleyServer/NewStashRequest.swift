import Foundation
import ParleyData

/// The body of `POST /v1/stash`: `{"text": "…", "kind": "note", "thread_id": 1, "message_id": 2}`.
/// `text` is required; `kind` defaults to `note`; the thread and message it came from are
/// optional (the thread is taken from the message when only the message is given) and must be
/// the caller's own.
struct NewStashRequest: Decodable, Sendable {
    var kind: String?
    var text: String
    var threadID: Int64?
    var messageID: Int64?

    enum CodingKeys: String, CodingKey {
        case kind, text
        case threadID = "thread_id"
        case messageID = "message_id"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        text = try container.decode(String.self, forKey: .text)
        threadID = try container.decodeIfPresent(Int64.self, forKey: .threadID)
        messageID = try container.decodeIfPresent(Int64.self, forKey: .messageID)
    }

    /// The item to stash.
    func item() throws(OpenAIError) -> NewStashItem {
        let kind = kind ?? "note"
        guard !kind.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidRequest("'kind' must not be empty: use e.g. note, reply or transcript.", param: "kind")
        }
        return NewStashItem(kind: kind, text: text, threadID: threadID, messageID: messageID)
    }
}
