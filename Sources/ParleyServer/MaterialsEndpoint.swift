import Foundation
import Hummingbird
import ParleyData

/// The caller's study materials and assignments (added with `parley materials add`, or
/// synced from Google Drive, Calendar and Gmail).
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/materials` | the caller's materials, newest first, without their text |
/// | `GET /v1/materials/{id}` | one material with its text |
/// | `DELETE /v1/materials/{id}` | removes a material |
/// | `GET /v1/assignments` | the caller's assignments, soonest due first (`?from=YYYY-MM-DD` leaves out earlier ones) |
struct MaterialsEndpoint: Sendable {
    let environment: ServerEnvironment

    /// A material in a list: everything but the text, and the text's length.
    struct Summary: Encodable, Sendable {
        var id: Int64
        var createdAt: Date
        var title: String
        var kind: String
        var source: String
        var origin: String?
        var pageCount: Int
        var readBy: String
        var characters: Int

        init(_ material: Material) {
            id = material.id
            createdAt = material.createdAt
            title = material.title
            kind = material.kind
            source = material.source
            origin = material.origin
            pageCount = material.pageCount
            readBy = material.readBy
            characters = material.text.count
        }

        enum CodingKeys: String, CodingKey {
            case id, title, kind, source, origin, characters
            case createdAt = "created_at"
            case pageCount = "page_count"
            case readBy = "read_by"
        }
    }

    static func materialNotFound(_ id: String) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "No material found with id '\(id)'; GET /v1/materials lists yours.",
            type: "invalid_request_error", code: "material_not_found")
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/materials") { _, context in
            let store = try await environment.store()
            let materials = try await OpenAIError.translating { () async throws(StoreError) in try await store.materials(owner: context.owner) }
            return try StoreJSON.response(ListDocument(data: materials.map(Summary.init)))
        }
        router.get("/v1/materials/{id}") { _, context in
            let id = try context.id("id", notFound: Self.materialNotFound)
            let store = try await environment.store()
            let material = try await OpenAIError.translating { () async throws(StoreError) in try await store.material(id, owner: context.owner) }
            guard let material else { throw Self.materialNotFound(String(id)) }
            return try StoreJSON.response(material)
        }
        router.delete("/v1/materials/{id}") { _, context in
            let id = try context.id("id", notFound: Self.materialNotFound)
            let store = try await environment.store()
            do throws(StoreError) {
                try await store.deleteMaterial(id, owner: context.owner)
            } catch {
                throw error == .materialNotFound(id) ? Self.materialNotFound(String(id)) : OpenAIError.from(error)
            }
            return try StoreJSON.response(DeletedDocument(id: id, object: "material.deleted"))
        }
        router.get("/v1/assignments") { request, context in
            let from = request.uri.queryParameters.get("from")
            if let from, from.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) == nil {
                throw OpenAIError(
                    status: .badRequest, message: "from must be a day written YYYY-MM-DD, e.g. 2026-12-04.",
                    type: "invalid_request_error", param: "from")
            }
            let store = try await environment.store()
            var assignments = try await OpenAIError.translating { () async throws(StoreError) in try await store.assignments(owner: context.owner) }
            if let from { assignments = assignments.filter { $0.dueDay >= from } }
            return try StoreJSON.response(ListDocument(data: assignments))
        }
    }
}
