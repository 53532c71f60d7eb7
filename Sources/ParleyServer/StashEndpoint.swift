import Foundation
import Hummingbird
import ParleyData

/// The caller's stash: things kept for later (a reply, a transcript, a note).
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/stash` | the caller's items, newest first |
/// | `POST /v1/stash` | `{"text", "kind", "thread_id", "message_id"}` → 201; the thread and message must be the caller's |
/// | `DELETE /v1/stash/{id}` | removes an item |
struct StashEndpoint: Sendable {
    let environment: ServerEnvironment

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/stash") { _, context in
            let store = try await environment.store()
            let items = try await OpenAIError.translating { () async throws(StoreError) in try await store.stashItems(owner: context.owner) }
            return try StoreJSON.response(ListDocument(data: items))
        }
        router.post("/v1/stash") { request, context in try await stash(request, context) }
        router.delete("/v1/stash/{id}") { _, context in
            let id = try context.id("id") { .stashItemNotFound($0) }
            let store = try await environment.store()
            try await OpenAIError.translating(stashItem: id) { () async throws(StoreError) in try await store.deleteStashItem(id, owner: context.owner) }
            return try StoreJSON.response(DeletedDocument(id: id, object: "stash_item.deleted"))
        }
    }

    func stash(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(NewStashRequest.self, limit: environment.configuration.maxJSONBytes)
        let item = try body.item()
        let store = try await environment.store()
        let saved = try await OpenAIError.translating(thread: item.threadID, message: item.messageID, fromBody: true) { () async throws(StoreError) in
            try await store.stash(item, owner: context.owner)
        }
        return try StoreJSON.response(saved, status: .created)
    }
}
