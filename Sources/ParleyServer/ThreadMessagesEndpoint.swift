import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyData

/// The messages of the caller's threads:
///
/// | route | |
/// | --- | --- |
/// | `POST /v1/threads/{id}/messages` | appends a message (`role`, `text`, optional images as data URLs, transcripts, timings, …) → 201 |
/// | `GET /v1/threads/{id}/messages/{mid}` | one message |
/// | `PATCH /v1/threads/{id}/messages/{mid}` | `{"edited_text"}`: the person's correction, kept beside the raw transcript |
/// | `GET /v1/threads/{id}/messages/{mid}/audio` | the kept recording of the turn (WAV) |
/// | `DELETE /v1/threads/{id}/messages/{mid}/audio` | removes the kept recording |
///
/// A message appended here may carry images, so its body may be as large as a chat request's.
/// A message of another key's thread, or of another thread than the URL's, is a 404.
struct ThreadMessagesEndpoint: Sendable {
    let environment: ServerEnvironment

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/threads/{id}/messages") { request, context in try await append(request, context) }
        router.get("/v1/threads/{id}/messages/{mid}") { _, context in
            let (_, message) = try await located(context)
            return try StoreJSON.response(MessageDocument(message: message))
        }
        router.patch("/v1/threads/{id}/messages/{mid}") { request, context in try await edit(request, context) }
        router.get("/v1/threads/{id}/messages/{mid}/audio") { _, context in try await audio(context) }
        router.delete("/v1/threads/{id}/messages/{mid}/audio") { _, context in try await deleteAudio(context) }
    }

    func append(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let id = try context.id("id") { .threadNotFound($0) }
        let body = try await request.decodeJSON(NewMessageRequest.self, limit: environment.configuration.maxChatBytes)
        let message = try body.message()
        let store = try await environment.store()
        let saved = try await OpenAIError.translating(thread: id) { () async throws(StoreError) in
            try await store.append(message, to: id, owner: context.owner)
        }
        return try StoreJSON.response(MessageDocument(message: saved), status: .created)
    }

    func edit(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (store, message) = try await located(context)
        let body = try await request.decodeJSON(TranscriptEditRequest.self, limit: environment.configuration.maxJSONBytes)
        let edited = try await OpenAIError.translating(thread: message.threadID, message: message.id) { () async throws(StoreError) in
            try await store.editTranscript(message: message.id, text: body.editedText, owner: context.owner)
            guard let edited = try await store.message(message.id, owner: context.owner) else { throw .messageNotFound(message.id) }
            return edited
        }
        return try StoreJSON.response(MessageDocument(message: edited))
    }

    func audio(_ context: ServerRequestContext) async throws -> Response {
        let (store, message) = try await located(context)
        // The store reads the bytes: from the file beside the SQLite database, or from the shared
        // database, so that every instance serves a recording whichever one kept it.
        let bytes = try await OpenAIError.translating(thread: message.threadID, message: message.id) { () async throws(StoreError) in
            try await store.audio(message: message.id, owner: context.owner)
        }
        guard message.audioPath != nil, let data = bytes else {
            throw OpenAIError.audioNotFound(message: message.id)
        }
        var headers = HTTPFields()
        headers[.contentType] = "audio/wav"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func deleteAudio(_ context: ServerRequestContext) async throws -> Response {
        let (store, message) = try await located(context)
        guard message.audioPath != nil else { throw OpenAIError.audioNotFound(message: message.id) }
        try await OpenAIError.translating(thread: message.threadID, message: message.id) { () async throws(StoreError) in
            try await store.deleteAudio(message: message.id, owner: context.owner)
        }
        return try StoreJSON.response(DeletedDocument(id: message.id, object: "message.audio.deleted"))
    }

    /// The store and the message the path names: one of the caller's messages, in the thread
    /// the path names (else that thread, or the message, is not found).
    func located(_ context: ServerRequestContext) async throws -> (any ConversationStoring, StoredMessage) {
        let thread = try context.id("id") { .threadNotFound($0) }
        let id = try context.id("mid") { .messageNotFound($0, thread: thread) }
        let store = try await environment.store()
        return try await OpenAIError.translating(thread: thread, message: id) { () async throws(StoreError) in
            if let message = try await store.message(id, owner: context.owner), message.threadID == thread {
                return (store, message)
            }
            guard try await store.thread(thread, owner: context.owner) != nil else { throw .threadNotFound(thread) }
            throw .messageNotFound(id)
        }
    }
}
