import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyData

/// The JSON of the threads and stash endpoints: the store's own encodings (snake_case keys,
/// ISO-8601 dates in UTC with milliseconds, absent values as `null`), compact.
enum StoreJSON {
    /// `value` as a JSON response with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(OpenAIError) -> Response {
        let encoder = ConversationExport.encoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw OpenAIError(status: .internalServerError, message: "The response could not be encoded as JSON: \(error)", type: "server_error")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A list in OpenAI's shape: `{"object": "list", "data": […]}`.
struct ListDocument<Item: Encodable & Sendable>: Encodable, Sendable {
    var object = "list"
    var data: [Item]
}

/// What a `DELETE` answers, in OpenAI's shape: `{"id": 7, "object": "thread.deleted", "deleted": true}`.
struct DeletedDocument: Encodable, Sendable {
    var id: Int64
    var object: String
    var deleted = true
}
