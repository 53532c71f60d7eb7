import Hummingbird
import HummingbirdWebSocket

/// The context of each request the server answers: Hummingbird's core context, and which of
/// the server's keys the caller presented (when authentication is on).
public struct ServerRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The position in ``ServerConfiguration/apiKeys`` of the key the caller presented; `nil`
    /// when authentication is off or for open endpoints. The key itself is never kept.
    public var keyIndex: Int?
    /// Where a WebSocket route leaves its handler for the upgrade (`/v1/realtime`).
    public let webSocket: WebSocketHandlerReference<ServerRequestContext>

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.keyIndex = nil
        self.webSocket = WebSocketHandlerReference()
    }
}
