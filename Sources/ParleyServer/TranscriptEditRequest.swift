/// The body of `PATCH /v1/threads/{id}/messages/{mid}`: `{"edited_text": "…"}`, the person's
/// correction of what speech-to-text heard. The raw transcript is kept beside it.
struct TranscriptEditRequest: Decodable, Sendable {
    var editedText: String

    enum CodingKeys: String, CodingKey {
        case editedText = "edited_text"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        editedText = try container.decode(String.self, forKey: .editedText)
    }
}
