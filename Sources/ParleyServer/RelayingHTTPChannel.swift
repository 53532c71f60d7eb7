import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// HTTP/1 with the WebSocket upgrade (Hummingbird's channel), with ``ProtocolErrorHandler``
/// (431, 426 and 400 where the decoder or the upgrade would drop a request unanswered) and
/// then ``ChatRelayHandler`` put right behind HTTP/1's decoder on every connection: it relays plain chat completions there
/// and keeps the connection's idle timeout and graceful shutdown for everything behind it.
struct RelayingHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    /// Hummingbird's channel, set up with no idle timeout of its own.
    let upgrading: HTTP1WebSocketUpgradeChannel
    let lane: ChatRelayLane
    let idleTimeout: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgrading.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(ChatRelayHandler(lane: lane, idleTimeout: idleTimeout), position: .after(decoder))
            try pipeline.addHandler(ProtocolErrorHandler(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await upgrading.handle(value: value, logger: logger)
    }
}
