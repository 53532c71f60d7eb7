import Hummingbird
import ParleyStore

/// The context of each request the server answers: Hummingbird's core context, which of the
/// server's keys the caller presented (when authentication is on), and whose threads, messages,
/// audio and stash the request may see.
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The position in ``ServerConfiguration/apiKeys`` of the key the caller presented; `nil`
    /// when authentication is off or for open endpoints. The key itself is never kept.
    public var keyIndex: Int?
    /// Whose saved conversations the request works on: with keys on, the presented key's
    /// owner (`Owner.apiKey(_:)`); without keys, `Owner.local`. Endpoints pass it to every
    /// store call, and the store shows no other owner's rows. Open endpoints (`/health`) are
    /// reached without a key and must not touch the store.
    public var owner: Owner

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.keyIndex = nil
        self.owner = .local
    }
}
