import Foundation
import ParleyData

/// The body of `PATCH /v1/threads/{id}`: `{"title": "…", "settings": {…}}`. Absent fields are
/// kept; `"title": null` (or a blank title) removes the title.
struct ThreadPatchRequest: Decodable, Sendable {
    var title: String??
    var settings: ThreadSettingsPatch?

    enum CodingKeys: String, CodingKey {
        case title, settings
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeNullable(String.self, forKey: .title)
        settings = try container.decodeIfPresent(ThreadSettingsPatch.self, forKey: .settings)
    }

    /// Refuses settings no conversation can run with.
    func validate() throws(OpenAIError) {
        try settings?.validate()
    }

    /// Applies the patch to the saved thread.
    func apply(to thread: inout StoredThread) {
        if let title { thread.title = Self.normalized(title) }
        settings?.apply(to: &thread.settings)
    }

    /// A title as saved: `nil` for a missing or blank one.
    static func normalized(_ title: String?) -> String? {
        guard let title, !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return title
    }
}
