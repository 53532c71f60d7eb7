import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers what HTTP/1's decoder and the WebSocket upgrade would otherwise drop without a
/// word, right behind the decoder on every connection, then closes the connection:
/// - a request whose headers are larger than the decoder takes: 431 Request Header Fields
///   Too Large (any other malformed request: 400);
/// - a WebSocket upgrade with a version other than 13 (RFC 6455): 426 Upgrade Required with
///   `Sec-WebSocket-Version: 13`, the version this server speaks.
///
/// Bodies are OpenAI-shaped errors, as every other error of this server.
final class ProtocolErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Set once an answer of this handler is on its way: nothing more is read.
    private var answered = false
    /// Whether the connection's first request has gone on (only it may upgrade).
    private var pastFirst = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let refusal = Self.refusal(of: head) {
            answer(
                context: context, status: .upgradeRequired, message: refusal, code: "unsupported_websocket_version",
                extra: [("Sec-WebSocket-Version", "13")])
            return
        }
        context.fireChannelRead(data)
        if !pastFirst {
            pastFirst = true
            // A WebSocket is no longer HTTP: what comes next is not for this handler.
            if head.headers.contains(name: "upgrade") { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        if case .headerOverflow = parse {
            answer(
                context: context, status: .requestHeaderFieldsTooLarge,
                message: "The request's headers are larger than this server accepts (about 80 KB); send fewer or shorter headers.",
                code: "request_header_fields_too_large")
        } else {
            answer(context: context, status: .badRequest, message: "The request is not well-formed HTTP/1.1 (\(parse)).", code: "malformed_request")
        }
    }

    /// Why `head` is refused here: a WebSocket upgrade of another version than 13.
    static func refusal(of head: HTTPRequestHead) -> String? {
        guard head.headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" }) else { return nil }
        let versions = head.headers["sec-websocket-version"]
        guard versions != ["13"] else { return nil }
        let given = versions.isEmpty ? "none" : versions.joined(separator: ", ")
        return "This server speaks WebSocket version 13 (RFC 6455); the upgrade asked for \(given)."
    }

    private func answer(
        context: ChannelHandlerContext, status: HTTPResponseStatus, message: String, code: String,
        extra: [(String, String)] = []
    ) {
        answered = true
        let body = ByteBuffer(bytes: OpenAIError(status: .init(code: Int(status.code)), message: message, type: "invalid_request_error", code: code).body)
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", String(body.readableBytes)), ("Connection", "close")])
        headers.add(contentsOf: extra)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
