import AsyncHTTPClient
import Foundation
import NIOCore
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
    public func relay(_ body: [UInt8], streams: Bool) async throws -> RelayedCompletion {
        if configuration.requiresKey && configuration.apiKey == nil {
            throw ProviderError.unavailable(provider: configuration.name, .missingKey(variable: "OPENAI_API_KEY"))
        }
        guard let rewritten = JSONMembers.setting("model", to: JSONMembers.quoted(configuration.model), in: body) else {
            throw HTTPProviderError(provider: configuration.name, kind: .badRequest(status: 400), message: "the request body is not a JSON object")
        }
        var request = HTTPClientRequest(url: join(configuration.baseURL, "/chat/completions"))
        request.method = .POST
        for (name, value) in authHeaders { request.headers.add(name: name, value: value) }
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "accept", value: streams ? "text/event-stream" : "application/json")
        request.body = .bytes(ByteBuffer(bytes: rewritten))
        return RelayedCompletion(response: try await call.send(request), call: call)
    }
}

/// A Chat Completions answer as the server sent it (its status was 2xx).
public struct RelayedCompletion: Sendable {
    let response: HTTPClientResponse
    let call: HTTPCall

    /// Whether the server answered with server-sent events; otherwise it sent one JSON
    /// completion (some servers ignore `stream`, either way).
    public var isEventStream: Bool {
        response.headers.first(name: "content-type")?.lowercased().hasPrefix("text/event-stream") == true
    }

    /// The body's bytes as they arrive, with transport failures as ``HTTPProviderError``.
    public var body: Body { Body(base: response.body, call: call) }

    /// The whole body; a body larger than `limit` bytes is an error.
    public func collect(upTo limit: Int) async throws -> ByteBuffer {
        do {
            return try await response.body.collect(upTo: limit)
        } catch {
            throw call.map(error)
        }
    }

    /// The answer read as events, whichever form it came in: for a client that asked for the
    /// other form than the server sent.
    public func events() -> AsyncThrowingStream<ChatEvent, any Error> {
        let response = self.response
        let call = self.call
        return .producing { output in try await OpenAILanguageModel.read(response, call: call, into: output) }
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
        return Usage(inputTokens: count("prompt_tokens", in: object) ?? 0, cachedInputTokens: details.flatMap { count("cached_tokens", in: $0) } ?? 0,
                     outputTokens: count("completion_tokens", in: object) ?? 0)
    }

    /// The body's bytes as they arrive.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = ByteBuffer
        let base: HTTPClientResponse.Body
        let call: HTTPCall

        public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), call: call) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: HTTPClientResponse.Body.AsyncIterator
            let call: HTTPCall

            public mutating func next() async throws -> ByteBuffer? {
                do {
                    return try await base.next()
                } catch {
                    throw call.map(error)
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
