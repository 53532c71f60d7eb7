import Foundation

/// The subprotocols a WebSocket client offers in `Sec-WebSocket-Protocol`.
enum WebSocketProtocols {
    /// The subprotocol of the OpenAI Realtime API, which OpenAI's browser clients offer and
    /// expect to see chosen in the upgrade's answer.
    static let realtime = "realtime"

    /// The names in the header's values (each a comma-separated list), in order.
    static func names(in values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }
}
