import HTTPTypes
import ParleyData

extension OpenAIError {
    /// 404: the caller has no thread with this id (another key's thread is not found either).
    static func threadNotFound(_ id: String, param: String? = nil) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "No thread found with id '\(id)'; GET /v1/threads lists yours.",
            type: "invalid_request_error", param: param, code: "thread_not_found")
    }

    /// 404: none of the caller's threads (or not thread `thread`) holds a message with this id.
    static func messageNotFound(_ id: String, thread: Int64? = nil, param: String? = nil) -> OpenAIError {
        let list = thread.map { "GET /v1/threads/\($0) lists its messages" } ?? "GET /v1/threads/{id} lists a thread's messages"
        let place = thread.map { " in thread \($0)" } ?? ""
        return OpenAIError(
            status: .notFound, message: "No message found with id '\(id)'\(place); \(list).",
            type: "invalid_request_error", param: param, code: "message_not_found")
    }

    /// 404: the caller's stash has no item with this id.
    static func stashItemNotFound(_ id: String) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "No stash item found with id '\(id)'; GET /v1/stash lists yours.",
            type: "invalid_request_error", code: "stash_item_not_found")
    }

    /// 404: the message has no kept recording.
    static func audioNotFound(message: Int64) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "Message \(message) has no kept recording.",
            type: "invalid_request_error", code: "audio_not_found")
    }

    /// The error a client sees for a store failure: not-found errors as 404s worded for the
    /// API (naming the body field at fault when the id came from the body), anything else as a
    /// server error.
    static func from(
        _ error: StoreError, thread: Int64? = nil, message: Int64? = nil, stashItem: Int64? = nil,
        fromBody: Bool = false
    ) -> OpenAIError {
        if let thread, error == .threadNotFound(thread) {
            return .threadNotFound(String(thread), param: fromBody ? "thread_id" : nil)
        }
        if let message, error == .messageNotFound(message) {
            return fromBody ? .messageNotFound(String(message), param: "message_id") : .messageNotFound(String(message), thread: thread)
        }
        if let stashItem, error == .stashItemNotFound(stashItem) { return .stashItemNotFound(String(stashItem)) }
        if error.isNotFound {
            return OpenAIError(status: .notFound, message: "\(error)", type: "invalid_request_error")
        }
        return OpenAIError(status: .internalServerError, message: "The conversation store failed: \(error)", type: "server_error")
    }

    /// Runs a store call, turning its errors into the client's
    /// (see ``from(_:thread:message:stashItem:fromBody:)``).
    static func translating<T>(
        thread: Int64? = nil, message: Int64? = nil, stashItem: Int64? = nil, fromBody: Bool = false,
        _ body: () throws(StoreError) -> T
    ) throws(OpenAIError) -> T {
        do {
            return try body()
        } catch {
            throw from(error, thread: thread, message: message, stashItem: stashItem, fromBody: fromBody)
        }
    }

    /// Runs an asynchronous store call, turning its errors into the client's
    /// (see ``from(_:thread:message:stashItem:fromBody:)``).
    static func translating<T>(
        thread: Int64? = nil, message: Int64? = nil, stashItem: Int64? = nil, fromBody: Bool = false,
        _ body: () async throws(StoreError) -> T
    ) async throws(OpenAIError) -> T {
        do {
            return try await body()
        } catch {
            throw from(error, thread: thread, message: message, stashItem: stashItem, fromBody: fromBody)
        }
    }
}
