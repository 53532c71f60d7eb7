import Hummingbird
import HummingbirdWebSocket
import ParleyData

/// The context of each request the server answers: Hummingbird's core context, the WebSocket
/// upgrade's handler, which of the server's keys the caller presented (when authentication is
/// on), and whose threads, messages, audio and stash the request may see.
public struct ServerRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The position in ``ServerConfiguration/apiKeys`` of the key the caller presented; `nil`
    /// when authentication is off or for open endpoints. The key itself is never kept.
    public var keyIndex: Int?
    /// Whose saved conversations the request works on: with keys on, the presented key's
    /// owner (`Owner.apiKey(_:)`); without keys, `Owner.local`. Endpoints pass it to every
    /// store call, and the store shows no other owner's rows. Open endpoints (`/health`) are
    /// reached without a key and must not touch the store.
    public var owner: Owner
    /// What the caller's key may do (set by the admission; every caller is an admin on a
    /// server without keys).
    var role: Admission.Role
    /// Where a WebSocket route leaves its handler for the upgrade (`/v1/realtime`).
    public let webSocket: WebSocketHandlerReference<ServerRequestContext>

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.keyIndex = nil
        self.owner = .local
        self.role = .user
        self.webSocket = WebSocketHandlerReference()
    }
}
