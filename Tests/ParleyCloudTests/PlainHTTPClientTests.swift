import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
@testable import ParleyCloud
import ParleyTestServers
import Synchronization
import Testing

/// The relay's HTTP/1.1 client against real servers on 127.0.0.1: a raw one whose connections
/// the test controls byte for byte, and the scripted HTTP server for streamed bodies.
@Suite("PlainHTTPClient: kept-alive connections, closes and timeouts")
struct PlainHTTPClientTests {
    /// For answers that come: long limits, so that a starved or suspended machine does not
    /// trip them. Tests of a timeout set a short limit against a far longer silence.
    static let patient = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(30), idle: .seconds(30))

    static func head(_ path: String = "/v1/chat/completions", port: Int, length: Int) -> HTTPRequestHead {
        HTTPRequestHead(
            version: .http1_1, method: .POST, uri: path,
            headers: ["host": "127.0.0.1:\(port)", "content-type": "application/json", "content-length": String(length)])
    }

    static func send(
        _ client: PlainHTTPClient, to server: RawServer, _ text: String = #"{"n": 1}"#,
        timeouts: HTTPTimeouts = patient, limit: Int = 1 << 20
    ) async throws -> (status: Int, body: String) {
        let body = ByteBuffer(string: text)
        let response = try await client.whole(
            .init(host: "127.0.0.1", port: server.port), head: head(port: server.port, length: body.readableBytes),
            body: body, timeouts: timeouts, limit: limit)
        return (Int(response.head.status.code), String(buffer: response.body))
    }

    /// Sends from `loop` with the event-loop form, as a server's connection does; also says
    /// whether the answer came on that loop.
    static func send(
        _ client: PlainHTTPClient, to server: RawServer, _ text: String = #"{"n": 1}"#, on loop: any EventLoop,
        timeouts: HTTPTimeouts = patient
    ) async throws -> (status: Int, body: String, onLoop: Bool) {
        let body = ByteBuffer(string: text)
        let promise = loop.makePromise(of: (status: Int, body: String, onLoop: Bool).self)
        loop.execute {
            client.whole(
                .init(host: "127.0.0.1", port: server.port), head: head(port: server.port, length: body.readableBytes),
                body: body, timeouts: timeouts, limit: 1 << 20, on: loop
            ) { result in
                promise.completeWith(result.map { (Int($0.status.code), String(buffer: $1), loop.inEventLoop) })
            }
        }
        return try await promise.futureResult.get()
    }

    static func answer(_ body: String, close: Bool = false) -> String {
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n" + (close ? "connection: close\r\n" : "") + "\r\n" + body
    }

    @Test("requests one after another share one kept-alive connection, and each gets its own answer")
    func keptAlive() async throws {
        let server = try await RawServer.start { request, _ in .init(bytes: Self.answer("{\"echo\": \(request.body)}")) }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        for index in 1...3 {
            let reply = try await Self.send(client, to: server, "{\"n\": \(index)}")
            #expect(reply.status == 200 && reply.body == "{\"echo\": {\"n\": \(index)}}")
        }
        #expect(server.connections == 1)
    }

    @Test("a connection the server closes after answering is not used again", arguments: [true, false])
    func closedAfterAnswer(announced: Bool) async throws {
        // Announced: `Connection: close`. Not announced: the server just drops the connection,
        // and the client finds out before reuse or when the next request fails unanswered.
        let server = try await RawServer.start { _, _ in .init(bytes: Self.answer("{}", close: announced), thenClose: true) }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        for _ in 1...3 {
            let reply = try await Self.send(client, to: server)
            #expect(reply.status == 200 && reply.body == "{}")
        }
        #expect(server.connections == 3)
    }

    @Test("a server that takes the request and never answers fails at the first-byte timeout")
    func firstByteTimeout() async throws {
        let server = try await RawServer.start { _, _ in .init(bytes: "") }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let timeouts = HTTPTimeouts(connect: .seconds(10), firstByte: .milliseconds(200), idle: .seconds(30))
        await #expect(throws: PlainHTTPClient.Failure.firstByteTimeout) { try await Self.send(client, to: server, timeouts: timeouts) }
    }

    @Test("on an event loop: requests share a kept-alive connection and are answered there; one the server drops is sent again on a new one")
    func onLoop() async throws {
        let server = try await RawServer.start { request, _ in
            .init(bytes: Self.answer("{\"echo\": \(request.body)}"), thenClose: request.body.contains("3"))
        }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        for index in 1...5 {
            let reply = try await Self.send(client, to: server, "{\"n\": \(index)}", on: loop)
            #expect(reply.status == 200 && reply.body == "{\"echo\": {\"n\": \(index)}}" && reply.onLoop)
        }
        // The third answer closed the first connection (unannounced): the fourth request found
        // it closed, or failed on it unanswered, and went on a second one.
        #expect(server.connections == 2)
    }

    @Test("a kept-alive connection the server resets as the next request arrives: that request is sent again on a new one", arguments: [false, true])
    func resetBeforeAnswer(onLoop: Bool) async throws {
        // The first connection answers its first request, then resets on the second without
        // answering; every later connection answers.
        let server = try await RawServer.start { request, connection in
            connection == 1 && request.body.contains("2") ? .init(bytes: "", thenReset: true) : .init(bytes: Self.answer("{\"echo\": \(request.body)}"))
        }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        for index in 1...3 {
            let text = "{\"n\": \(index)}"
            let body = onLoop ? try await Self.send(client, to: server, text, on: loop).body : try await Self.send(client, to: server, text).body
            #expect(body == "{\"echo\": \(text)}")
        }
        #expect(server.connections == 2)
    }

    @Test("on an event loop, a request the server never answers after one it did fails at its own first-byte limit")
    func onLoopFirstByteTimeout() async throws {
        let server = try await RawServer.start { request, _ in .init(bytes: request.body.contains("1") ? Self.answer("{}") : "") }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let limit = Duration.milliseconds(400)
        let timeouts = HTTPTimeouts(connect: .seconds(10), firstByte: limit, idle: .seconds(30))
        let first = try await Self.send(client, to: server, #"{"n": 1}"#, on: loop, timeouts: timeouts)
        #expect(first.status == 200)
        // Within the first request's limit: the connection's timer, scheduled for it, fires
        // early for the second, which waits on to its own limit.
        try await Task.sleep(for: .milliseconds(150))
        let started = ContinuousClock.now
        await #expect(throws: PlainHTTPClient.Failure.firstByteTimeout) {
            try await Self.send(client, to: server, #"{"n": 2}"#, on: loop, timeouts: timeouts)
        }
        #expect(started.duration(to: .now) >= limit)
        #expect(server.connections == 1)
    }

    @Test("the client sends header fields unchecked, so a key that could not be a header's value is not relayed with it")
    func uncheckedFields() {
        let plain = OpenAILanguageModel(configuration: .init(baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-ok"))
        let broken = OpenAILanguageModel(configuration: .init(baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-a\r\nx-injected: 1"))
        #expect(plain.relaysOnEventLoop && !broken.relaysOnEventLoop)
    }

    @Test("an answer larger than the limit fails, and the connection is not reused")
    func tooLarge() async throws {
        let server = try await RawServer.start { _, _ in .init(bytes: Self.answer(String(repeating: "x", count: 5000))) }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        await #expect(throws: PlainHTTPClient.Failure.tooLarge(limit: 1000)) { try await Self.send(client, to: server, limit: 1000) }
        #expect(try await Self.send(client, to: server).body.count == 5000)
        #expect(server.connections == 2)
    }

    @Test("a refused connection is an error at once")
    func refused() async throws {
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let port = RefusingPort.find()
        await #expect(throws: (any Error).self) {
            _ = try await client.whole(
                .init(host: "127.0.0.1", port: port), head: Self.head(port: port, length: 0), body: ByteBuffer(),
                timeouts: Self.patient, limit: 1000)
        }
    }

    @Test("a relay given a shorter first-byte limit (a chain's) gives up on a silent server at that limit")
    func relayFirstByte() async throws {
        let server = try await ScriptedServer.start { _ in
            ScriptedReply(contentType: "application/json", headDelay: .seconds(60), steps: [.write(Data("{}".utf8))])
        }
        defer { server.stop() }
        let model = OpenAILanguageModel(
            configuration: .init(
                baseURL: server.baseURL + "/v1", model: "m",
                timeouts: HTTPTimeouts(firstByte: .seconds(30))))
        do {
            _ = try await model.relay(Array(#"{"messages": []}"#.utf8), streams: false, firstByte: .milliseconds(300))
            Issue.record("the relay waited for the answer")
        } catch let error as HTTPProviderError {
            // The limit that ended the wait is named: the chain's, not the provider's 30 s.
            #expect(error.kind == .timeout(.firstByte) && error.message.contains("0.3 seconds"), "\(error)")
        }
        _ = await server.observer.wait(for: .requests)
    }

    @Test("a streamed body comes in its parts; a gap longer than the idle timeout ends it with an error")
    func streamed() async throws {
        let parts = ["data: one\n\n", "data: two\n\n", "data: [DONE]\n\n"].map { Data($0.utf8) }
        let server = try await ScriptedServer.start { request in
            request.path == "/slow"
                ? ScriptedReply(contentType: "text/event-stream", steps: [.write(parts[0]), .pause(.seconds(10)), .write(parts[1])])
                : .chunks(parts, contentType: "text/event-stream")
        }
        defer { server.stop() }
        let client = PlainHTTPClient(group: MultiThreadedEventLoopGroup.singleton)
        let endpoint = PlainHTTPClient.Endpoint(host: "127.0.0.1", port: server.port)
        let response = try await client.streamed(endpoint, head: Self.head(port: server.port, length: 0), body: ByteBuffer(), timeouts: Self.patient)
        var text = ""
        for try await part in response.body { text += String(buffer: part) }
        #expect(response.head.status == .ok && text == "data: one\n\ndata: two\n\ndata: [DONE]\n\n")

        let short = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(30), idle: .milliseconds(200))
        let slow = try await client.streamed(endpoint, head: Self.head("/slow", port: server.port, length: 0), body: ByteBuffer(), timeouts: short)
        var received = ""
        await #expect(throws: PlainHTTPClient.Failure.idleTimeout) {
            for try await part in slow.body { received += String(buffer: part) }
        }
        #expect(received == "data: one\n\n")
        _ = await server.observer.wait(for: .requests)
    }
}

/// A raw HTTP/1.1 server on 127.0.0.1: it reads each request (head and Content-Length body)
/// and writes exactly the bytes the test gives, then closes the connection if told to.
final class RawServer: Sendable {
    struct Request: Sendable {
        var head: String
        var body: String
    }

    struct Answer: Sendable {
        var bytes: String
        var thenClose = false
        /// Closes with a reset (SO_LINGER 0) instead of an orderly close.
        var thenReset = false
    }

    let port: Int
    private let channel: any Channel
    private let counter: Counter

    /// Connections accepted so far.
    var connections: Int { counter.count }

    private init(port: Int, channel: any Channel, counter: Counter) {
        self.port = port
        self.channel = channel
        self.counter = counter
    }

    static func start(_ answer: @escaping @Sendable (Request, Int) -> Answer) async throws -> RawServer {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let index = counter.next()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawHandler(connection: index, answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RawServer(port: channel.localAddress?.port ?? 0, channel: channel, counter: counter)
    }

    func stop() { channel.close(promise: nil) }

    private final class Counter: Sendable {
        private let value = Mutex(0)

        var count: Int { value.withLock { $0 } }

        func next() -> Int {
            value.withLock { count in
                count += 1
                return count
            }
        }
    }
}

private final class RawHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let connection: Int
    let answer: @Sendable (RawServer.Request, Int) -> RawServer.Answer
    private var pending = ""

    init(connection: Int, answer: @escaping @Sendable (RawServer.Request, Int) -> RawServer.Answer) {
        self.connection = connection
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += String(buffer: unwrapInboundIn(data))
        while let end = pending.range(of: "\r\n\r\n") {
            let head = String(pending[..<end.lowerBound])
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            let rest = pending[end.upperBound...]
            guard rest.utf8.count >= length else { return }
            let body = String(rest.utf8.prefix(length)) ?? ""
            pending = String(rest.utf8.dropFirst(length)) ?? ""
            let reply = answer(RawServer.Request(head: head, body: body), connection)
            if !reply.bytes.isEmpty { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply.bytes)), promise: nil) }
            if reply.thenReset, let options = context.channel as? any SocketOptionProvider {
                _ = options.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            }
            if reply.thenClose || reply.thenReset {
                context.close(promise: nil)
                return
            }
        }
    }
}
