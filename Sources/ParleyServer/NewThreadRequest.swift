import ParleyData

/// The body of `POST /v1/threads`: `{"title": "…", "settings": {…}}`, both optional (an empty
/// object makes an untitled thread with the default settings).
struct NewThreadRequest: Decodable, Sendable {
    var title: String?
    var settings: ThreadSettingsPatch?

    enum CodingKeys: String, CodingKey {
        case title, settings
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        settings = try container.decodeIfPresent(ThreadSettingsPatch.self, forKey: .settings)
    }

    /// The title to save (a blank one is none) and the default settings with the given ones.
    func thread() throws(OpenAIError) -> (title: String?, settings: ThreadSettings) {
        try settings?.validate()
        var chosen = ThreadSettings()
        settings?.apply(to: &chosen)
        return (ThreadPatchRequest.normalized(title), chosen)
    }
}
