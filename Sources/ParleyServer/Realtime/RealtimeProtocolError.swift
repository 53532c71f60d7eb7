/// A client event the server cannot act on, sent back as an `error` event; the connection
/// stays open.
struct RealtimeProtocolError: Error, Sendable, Equatable {
    /// OpenAI's category: `invalid_request_error` for the client's mistakes, `server_error`
    /// for the server's.
    var type = "invalid_request_error"
    /// A machine-readable reason: `invalid_json`, `unknown_event`, `invalid_value`, ….
    var code: String
    /// What is wrong and what to do, for a person.
    var message: String
    /// The field at fault, as a dotted path (`session.audio.input.format.rate`).
    var param: String?

    static func invalidValue(_ param: String, _ message: String) -> RealtimeProtocolError {
        RealtimeProtocolError(code: "invalid_value", message: message, param: param)
    }

    static func missing(_ param: String) -> RealtimeProtocolError {
        RealtimeProtocolError(code: "missing_required_parameter", message: "Missing required parameter '\(param)'.", param: param)
    }
}
