import Foundation
import Hummingbird
import ParleyData

/// The saved conversations of the caller (Recall's backend), as JSON:
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/threads` | the caller's threads, most recently active first, each with its message count and a preview |
/// | `POST /v1/threads` | a new thread: `{"title", "settings": {"system_prompt", "max_tokens", "model_preset", "backend"}}` → 201 |
/// | `GET /v1/threads/{id}` | the thread with its settings and every message |
/// | `PATCH /v1/threads/{id}` | changes the title or settings (absent fields are kept) |
/// | `DELETE /v1/threads/{id}` | deletes the thread with its messages and kept audio |
///
/// Every store call carries the request's owner: with keys on, a key sees only what it saved,
/// and another key's thread id is a 404 like an unknown one.
struct ThreadsEndpoint: Sendable {
    let environment: ServerEnvironment

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/threads") { _, context in try await list(context) }
        router.post("/v1/threads") { request, context in try await create(request, context) }
        router.get("/v1/threads/{id}") { _, context in try await show(context) }
        router.patch("/v1/threads/{id}") { request, context in try await update(request, context) }
        router.delete("/v1/threads/{id}") { _, context in try await delete(context) }
    }

    func list(_ context: ServerRequestContext) async throws -> Response {
        let store = try await environment.store()
        let threads = try await OpenAIError.translating { () async throws(StoreError) in try await store.threads(owner: context.owner) }
        return try StoreJSON.response(ListDocument(data: threads))
    }

    func create(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(NewThreadRequest.self, limit: environment.configuration.maxJSONBytes)
        let (title, settings) = try body.thread()
        let store = try await environment.store()
        let thread = try await OpenAIError.translating { () async throws(StoreError) in
            try await store.createThread(title: title, settings: settings, owner: context.owner)
        }
        return try StoreJSON.response(thread, status: .created)
    }

    func show(_ context: ServerRequestContext) async throws -> Response {
        let id = try context.id("id") { .threadNotFound($0) }
        let store = try await environment.store()
        let export = try await OpenAIError.translating(thread: id) { () async throws(StoreError) in try await store.exported(thread: id, owner: context.owner) }
        guard let thread = export.threads.first else { throw OpenAIError.threadNotFound(String(id)) }
        return try StoreJSON.response(ThreadDocument(thread: thread))
    }

    func update(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let id = try context.id("id") { .threadNotFound($0) }
        let patch = try await request.decodeJSON(ThreadPatchRequest.self, limit: environment.configuration.maxJSONBytes)
        try patch.validate()
        let store = try await environment.store()
        let thread = try await OpenAIError.translating(thread: id) { () async throws(StoreError) in
            try await store.updateThread(id, owner: context.owner) { patch.apply(to: &$0) }
        }
        return try StoreJSON.response(thread)
    }

    func delete(_ context: ServerRequestContext) async throws -> Response {
        let id = try context.id("id") { .threadNotFound($0) }
        let store = try await environment.store()
        try await OpenAIError.translating(thread: id) { () async throws(StoreError) in try await store.deleteThread(id, owner: context.owner) }
        return try StoreJSON.response(DeletedDocument(id: id, object: "thread.deleted"))
    }
}
