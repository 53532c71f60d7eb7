import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import ParleyRuntime

/// `GET /v1/realtime` upgraded to a WebSocket: a voice conversation in the OpenAI Realtime
/// protocol (see ``RealtimeConnection``). Query items: `model` (the language model, resolved
/// like every `model`) and `thread` (a saved thread to continue; a Parley extension).
/// Authentication is the HTTP endpoints' own: the upgrade request carries the bearer key (or,
/// from a browser, the subprotocol `openai-insecure-api-key.KEY`). A client that offers the
/// subprotocol `realtime` gets it chosen in the answer, as browsers require.
struct RealtimeEndpoint {
    let environment: ServerEnvironment

    /// The OpenAI-Beta header of beta clients.
    static let betaHeader = HTTPField.Name("OpenAI-Beta")!

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        let environment = self.environment
        router.ws("/v1/realtime") { request, _ in
            if let thread = request.uri.queryParameters["thread"], Int64(thread) == nil {
                throw OpenAIError.invalidRequest("'thread' must be the number of a saved thread.", param: "thread")
            }
            var headers = HTTPFields()
            if WebSocketProtocols.names(in: request.headers[values: .secWebSocketProtocol]).contains(WebSocketProtocols.realtime) {
                headers[.secWebSocketProtocol] = WebSocketProtocols.realtime
            }
            return .upgrade(headers)
        } onUpgrade: { inbound, outbound, context in
            let request = context.request
            let query = request.uri.queryParameters
            let model = query["model"].map(String.init) ?? "auto"
            let thread = query["thread"].flatMap { Int64(String($0)) }
            let beta = request.headers[Self.betaHeader]?.contains("realtime=v1") ?? false
            let (frames, sink) = AsyncStream.makeStream(of: String.self)
            // The conversation is saved as the caller's: another key cannot read it or continue it.
            let connection = RealtimeConnection(
                environment: environment, model: model, thread: thread, options: ConversationOptions(owner: context.requestContext.owner), beta: beta,
                transcriptionOnly: query["intent"].map(String.init) == "transcription",
                logger: environment.logger, emit: { sink.yield($0) })
            let writer = Task {
                for await frame in frames {
                    do {
                        try await outbound.write(.text(frame))
                    } catch {
                        return  // the client has gone; the reader ends too
                    }
                }
            }
            environment.metrics.realtimeSessionOpened()
            defer { environment.metrics.realtimeSessionClosed() }
            await connection.start()
            // On a graceful shutdown the server drains every connection first: the reply in
            // progress finishes and is saved, then the client is told the server is going away.
            let registration = await environment.realtime.add(connection) {
                try? await outbound.close(.goingAway, reason: "The server is shutting down.")
            }
            do {
                for try await message in inbound.messages(maxSize: environment.configuration.maxRealtimeMessageBytes) {
                    switch message {
                    case .text(let text): await connection.receive(text)
                    case .binary: await connection.receiveBinary()
                    }
                }
            } catch {
                environment.logger.debug("realtime: the connection ended: \(error)")
            }
            await environment.realtime.remove(registration)
            await connection.close()
            sink.finish()
            await writer.value
        }
    }
}
