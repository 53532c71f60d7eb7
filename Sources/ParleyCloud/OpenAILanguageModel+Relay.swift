import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore

extension OpenAILanguageModel {
    /// Sends a client's Chat Completions body to this server as the client wrote it, with only
    /// `model` set to this provider's model, and returns the answer unread: what a proxy
    /// passes on byte for byte (the fields Parley does not model, such as `logprobs` or
    /// `system_fingerprint`, included), without decoding and re-encoding every event.
    ///
    /// Throws what ``complete(_:)`` throws before its first event: a missing key, a
    /// transport failure or timeout, or the server's error status, as ``HTTPProviderError``.
    ///
    /// - Parameters:
    ///   - body: A JSON object in OpenAI's Chat Completions shape (already checked by the caller).
    ///   - streams: Whether the client asked for server-sent events.
    ///   - firstByte: A shorter wait for the answer's head than the configured one (a chain's
    ///     first-output limit, so that a silent server is passed over as soon as the chain would).
    public func relay(_ body: [UInt8], streams: Bool, firstByte: Duration? = nil) async throws -> RelayedCompletion {
        if configuration.requiresKey && configuration.apiKey == nil {
            throw ProviderError.unavailable(provider: configuration.name, .missingKey(variable: "OPENAI_API_KEY"))
        }
        guard let rewritten = JSONMembers.setting("model", to: JSONValue.string(configuration.model).text, in: body) else {
            throw HTTPProviderError(provider: configuration.name, kind: .badRequest(status: 400), message: "the request body is not a JSON object")
        }
        let accept = streams ? "text/event-stream" : "application/json"
        let call = relayCall(firstByte: firstByte)
        if let plainTarget {
            return try await relay(ByteBuffer(bytes: rewritten), to: plainTarget, accept: accept, streams: streams, call: call)
        }
        var request = HTTPClientRequest(url: join(configuration.baseURL, "/chat/completions"))
        request.method = .POST
        for (name, value) in authHeaders { request.headers.add(name: name, value: value) }
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "accept", value: accept)
        request.body = .bytes(ByteBuffer(bytes: rewritten))
        let response = try await call.send(request)
        return RelayedCompletion(contentType: response.headers.first(name: "content-type"), source: .client(response), call: call)
    }

    /// Relays a whole (not streamed) answer as ``relay(_:streams:firstByte:)`` does, for a
    /// caller on an event loop (a server's connection; it must call from `loop`): the exchange
    /// runs on `loop` and hands `answer` the answer there, as it came, whatever its status, or
    /// the failure. `false`, with `answer` never called, when this provider is not a plain
    /// `http://` server, lacks its key, or `body` is not a JSON object: the caller takes the
    /// usual way.
    public func relayWhole(
        _ body: [UInt8], firstByte: Duration? = nil, on loop: any EventLoop,
        then answer: @escaping (Result<RelayedWhole, any Error>) -> Void
    ) -> Bool {
        guard let plainTarget, !(configuration.requiresKey && configuration.apiKey == nil),
            let rewritten = JSONMembers.setting("model", to: JSONValue.string(configuration.model).text, in: body)
        else { return false }
        let call = relayCall(firstByte: firstByte)
        let payload = ByteBuffer(bytes: rewritten)
        let head = plainHead(plainTarget, accept: "application/json", length: payload.readableBytes)
        PlainHTTPClient.shared.whole(
            plainTarget.endpoint, head: head, body: payload, timeouts: call.timeouts,
            limit: RelayedCompletion.largest, on: loop
        ) { result in
            switch result {
            case .success(let (head, body)):
                answer(.success(RelayedWhole(status: Int(head.status.code), contentType: head.headers.first(name: "content-type"), body: body)))
            case .failure(let error):
                answer(.failure(call.mapPlain(error)))
            }
        }
        return true
    }

    /// A relay's call: the configured timeouts, the first byte's shortened to `firstByte`.
    private func relayCall(firstByte: Duration?) -> HTTPCall {
        var timeouts = configuration.timeouts
        if let firstByte { timeouts.firstByte = min(timeouts.firstByte, firstByte) }
        return HTTPCall(provider: configuration.name, timeouts: timeouts)
    }

    private func plainHead(_ target: PlainTarget, accept: String, length: Int) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "host", value: target.hostHeader)
        for (name, value) in authHeaders { headers.add(name: name, value: value) }
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "accept", value: accept)
        headers.add(name: "content-length", value: String(length))
        return HTTPRequestHead(version: .http1_1, method: .POST, uri: target.path, headers: headers)
    }

    /// The relay to a plain `http://` server, on ``PlainHTTPClient``.
    private func relay(_ body: ByteBuffer, to target: PlainTarget, accept: String, streams: Bool, call: HTTPCall) async throws -> RelayedCompletion {
        let head = plainHead(target, accept: accept, length: body.readableBytes)
        let timeouts = call.timeouts
        do {
            if streams {
                let response = try await PlainHTTPClient.shared.streamed(target.endpoint, head: head, body: body, timeouts: timeouts)
                guard (200..<300).contains(Int(response.head.status.code)) else {
                    var error = ByteBuffer()
                    for try await var part in response.body where error.readableBytes < 64 * 1024 { error.writeBuffer(&part) }
                    throw status(response.head, body: error)
                }
                return RelayedCompletion(contentType: response.head.headers.first(name: "content-type"), source: .stream(response.body), call: call)
            }
            let response = try await PlainHTTPClient.shared.whole(
                target.endpoint, head: head, body: body, timeouts: timeouts,
                limit: RelayedCompletion.largest)
            guard (200..<300).contains(Int(response.head.status.code)) else { throw status(response.head, body: response.body) }
            return RelayedCompletion(contentType: response.head.headers.first(name: "content-type"), source: .whole(response.body), call: call)
        } catch {
            throw call.mapPlain(error)
        }
    }

    private func status(_ head: HTTPResponseHead, body: ByteBuffer) -> HTTPProviderError {
        HTTPProviderError.from(
            status: Int(head.status.code), body: Data(body.readableBytesView),
            retryAfter: head.headers.first(name: "retry-after"), provider: configuration.name)
    }
}

/// A plain `http://` server's chat completions address, read once from the base URL; `nil`
/// for `https://` (AsyncHTTPClient serves those).
struct PlainTarget: Sendable {
    var endpoint: PlainHTTPClient.Endpoint
    /// The `Host` header.
    var hostHeader: String
    /// The request target, e.g. `/v1/chat/completions`.
    var path: String

    init?(_ url: String) {
        guard url.lowercased().hasPrefix("http://"), let parsed = URL(string: url), let host = parsed.host, !host.isEmpty,
            parsed.user == nil, parsed.query == nil
        else { return nil }
        let port = parsed.port ?? 80
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        endpoint = PlainHTTPClient.Endpoint(host: bare, port: port)
        hostHeader = (bare.contains(":") ? "[\(bare)]" : bare) + (parsed.port.map { ":\($0)" } ?? "")
        path = parsed.path.isEmpty ? "/" : parsed.path
    }
}

extension HTTPCall {
    /// Maps ``PlainHTTPClient`` and NIO errors to typed provider errors.
    func mapPlain(_ error: any Error) -> any Error {
        guard let failure = error as? PlainHTTPClient.Failure else { return map(error) }
        switch failure {
        case .closed:
            return HTTPProviderError(provider: provider, kind: .transport, message: "the server closed the connection")
        case .firstByteTimeout:
            return HTTPProviderError(provider: provider, kind: .timeout(.firstByte), message: "no answer within \(timeouts.firstByte)")
        case .idleTimeout:
            return HTTPProviderError(provider: provider, kind: .timeout(.idle), message: "no data for \(timeouts.idle)")
        case .tooLarge(let limit):
            return HTTPProviderError(provider: provider, kind: .malformedResponse, message: "the answer is larger than \(limit) bytes")
        }
    }
}

/// A whole Chat Completions answer as the server sent it, whatever its status.
public struct RelayedWhole: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The `Content-Type` header, if the server sent one.
    public var contentType: String?
    /// The body.
    public var body: ByteBuffer

    /// Whether the server answered as asked: a 2xx JSON completion.
    public var isCompletion: Bool {
        (200..<300).contains(status) && contentType?.lowercased().hasPrefix("application/json") == true
    }
}

/// A Chat Completions answer as the server sent it (its status was 2xx).
public struct RelayedCompletion: Sendable {
    enum Source: Sendable {
        /// Read whole already.
        case whole(ByteBuffer)
        /// Coming in, from ``PlainHTTPClient``.
        case stream(AsyncThrowingStream<ByteBuffer, any Error>)
        /// Coming in, from AsyncHTTPClient.
        case client(HTTPClientResponse)
    }

    let contentType: String?
    let source: Source
    let call: HTTPCall

    /// The largest whole answer read.
    static let largest = 64 * 1024 * 1024

    /// Whether the server answered with server-sent events; otherwise it sent one JSON
    /// completion (some servers ignore `stream`, either way).
    public var isEventStream: Bool {
        contentType?.lowercased().hasPrefix("text/event-stream") == true
    }

    /// The body's bytes as they arrive, with transport failures as ``HTTPProviderError``.
    public var body: Body { Body(source: source, call: call) }

    /// The whole body; a body larger than `limit` bytes is an error.
    public func collect(upTo limit: Int) async throws -> ByteBuffer {
        if case .whole(let buffer) = source, buffer.readableBytes <= limit { return buffer }
        var whole = ByteBuffer()
        for try await var part in body {
            guard whole.readableBytes + part.readableBytes <= limit else {
                throw HTTPProviderError(provider: call.provider, kind: .malformedResponse, message: "the answer is larger than \(limit) bytes")
            }
            whole.writeBuffer(&part)
        }
        return whole
    }

    /// The answer read as events, whichever form it came in: for a client that asked for the
    /// other form than the server sent.
    public func events() -> AsyncThrowingStream<ChatEvent, any Error> {
        let completion = self
        return .producing { output in
            let chunks = AsyncThrowingStream<ByteBuffer, any Error>.producing { sink in
                for try await part in completion.body { sink.yield(part) }
            }
            try await OpenAILanguageModel.read(contentType: completion.contentType, body: chunks, provider: completion.call.provider, into: output)
        }
    }

    /// The usage a whole completion reports at its top level, if it reports one.
    public static func usage(ofCompletion bytes: [UInt8]) -> Usage? {
        JSONMembers.valueRange(of: "usage", in: bytes).flatMap { usage(in: bytes[$0]) }
    }

    /// The usage object `slice` holds (OpenAI's `prompt_tokens`, `completion_tokens` and
    /// `prompt_tokens_details.cached_tokens`), read without a decoder: this runs for every
    /// relayed answer.
    static func usage(in slice: ArraySlice<UInt8>) -> Usage? {
        let object = Array(slice)
        func count(_ key: String, in bytes: [UInt8]) -> Int? {
            JSONMembers.valueRange(of: key, in: bytes).flatMap { Int(String(decoding: bytes[$0], as: UTF8.self)) }
        }
        guard JSONMembers.valueRange(of: "prompt_tokens", in: object) != nil || JSONMembers.valueRange(of: "completion_tokens", in: object) != nil
        else { return nil }
        let details = JSONMembers.valueRange(of: "prompt_tokens_details", in: object).map { Array(object[$0]) }
        return Usage(
            inputTokens: count("prompt_tokens", in: object) ?? 0, cachedInputTokens: details.flatMap { count("cached_tokens", in: $0) } ?? 0,
            outputTokens: count("completion_tokens", in: object) ?? 0)
    }

    /// The body's bytes as they arrive.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = ByteBuffer
        let source: Source
        let call: HTTPCall

        public func makeAsyncIterator() -> Iterator {
            switch source {
            case .whole(let buffer): Iterator(state: .whole(buffer), call: call)
            case .stream(let stream): Iterator(state: .stream(stream.makeAsyncIterator()), call: call)
            case .client(let response): Iterator(state: .client(response.body.makeAsyncIterator()), call: call)
            }
        }

        public struct Iterator: AsyncIteratorProtocol {
            enum State {
                case whole(ByteBuffer?)
                case stream(AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator)
                case client(HTTPClientResponse.Body.AsyncIterator)
            }
            var state: State
            let call: HTTPCall

            public mutating func next() async throws -> ByteBuffer? {
                switch state {
                case .whole(let buffer):
                    state = .whole(nil)
                    return buffer
                case .stream(var iterator):
                    defer { state = .stream(iterator) }
                    do { return try await iterator.next() } catch { throw call.mapPlain(error) }
                case .client(var iterator):
                    defer { state = .client(iterator) }
                    do { return try await iterator.next() } catch { throw call.map(error) }
                }
            }
        }
    }
}

/// Finds the usage a relayed stream of Chat Completions events reports (in its last chunk,
/// when the client asked for `stream_options.include_usage`), from the bytes as they pass,
/// without decoding the other events.
public struct RelayedUsageWatcher: Sendable {
    /// The stream's last bytes: the usage chunk is at the end, a few hundred bytes long.
    private var tail: [UInt8] = []
    private static let kept = 8192
    private static let marker = Array("\"usage\"".utf8)

    /// Creates a watcher that has seen nothing.
    public init() {}

    /// Takes the next bytes of the stream.
    public mutating func see(_ buffer: ByteBuffer) {
        tail.append(contentsOf: buffer.readableBytesView)
        if tail.count > 2 * Self.kept { tail.removeFirst(tail.count - Self.kept) }
    }

    /// The usage in the last event that reports one (not `null`) among the bytes seen.
    public var usage: Usage? {
        var end = tail.count
        while let found = lastMarker(before: end) {
            end = found
            var index = found + Self.marker.count
            while index < tail.count, tail[index] == UInt8(ascii: " ") { index += 1 }
            guard index < tail.count, tail[index] == UInt8(ascii: ":") else { continue }
            guard let range = JSONMembers.valueRange(startingAt: index + 1, in: tail), tail[range.lowerBound] == UInt8(ascii: "{") else { continue }
            if let usage = RelayedCompletion.usage(in: tail[range]) { return usage }
        }
        return nil
    }

    private func lastMarker(before end: Int) -> Int? {
        let count = Self.marker.count
        guard end >= count else { return nil }
        var start = end - count
        while start >= 0 {
            if tail[start] == Self.marker[0], tail[start..<(start + count)].elementsEqual(Self.marker) { return start }
            start -= 1
        }
        return nil
    }
}
