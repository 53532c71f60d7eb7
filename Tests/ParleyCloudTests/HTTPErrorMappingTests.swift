import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// Each provider's documented error bodies and statuses, beyond the cases of the provider
/// suites: every status class for every wire format, Retry-After forms, bodies that are not
/// JSON, error events in the middle of a stream, and that no error shows the API key.
@Suite("HTTP errors mapped to typed errors", .timeLimit(.minutes(1)))
struct HTTPErrorMappingTests {
    /// The error body each provider documents.
    static func body(_ format: WireFormat, type: String, message: String) -> String {
        switch format {
        case .openAI: #"{"error":{"message":"\#(message)","type":"\#(type)","param":null,"code":null}}"#
        case .anthropic: #"{"type":"error","error":{"type":"\#(type)","message":"\#(message)"}}"#
        case .ollama: #"{"error":"\#(message)"}"#
        }
    }

    static let statuses: [(Int, HTTPProviderError.Kind, FailureKind)] = [
        (400, .badRequest(status: 400), .invalidRequest),
        (401, .authentication(status: 401), .configuration),
        (403, .authentication(status: 403), .configuration),
        (404, .badRequest(status: 404), .invalidRequest),
        (413, .badRequest(status: 413), .invalidRequest),
        (429, .rateLimited(retryAfter: .seconds(7)), .transient(retryAfter: .seconds(7))),
        (500, .server(status: 500), .transient(retryAfter: nil)),
        (502, .server(status: 502), .transient(retryAfter: nil)),
        (503, .server(status: 503), .transient(retryAfter: nil)),
        (529, .server(status: 529), .transient(retryAfter: nil)),
    ]

    @Test("every status class, for every wire format", arguments: WireFormat.allCases, statuses.indices)
    func statusClasses(format: WireFormat, index: Int) async throws {
        let (status, kind, failure) = Self.statuses[index]
        let server = try await ScriptedServer.start { _ in
            .json(
                status, Self.body(format, type: "some_error", message: "told by the server \(status)"),
                headers: status == 429 ? ["retry-after": "7"] : [:])
        }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        let error = try #require(transcript.error as? HTTPProviderError)
        #expect(error.kind == kind)
        #expect(error.failureKind == failure)
        #expect(error.message == "told by the server \(status)")
        #expect(transcript.text.isEmpty)
        #expect(await server.requests.count == 1, "an error status is not retried inside the provider")
    }

    @Test("429: Retry-After absent, or as an HTTP date", arguments: WireFormat.allCases)
    func retryAfterForms(format: WireFormat) async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: Date().addingTimeInterval(120))
        let body = Self.body(format, type: "rate_limit_error", message: "slow down")
        let bare = try await ScriptedServer.start { _ in .json(429, body) }
        defer { bare.stop() }
        let dated = try await ScriptedServer.start { _ in .json(429, body, headers: ["retry-after": date]) }
        defer { dated.stop() }

        #expect(await ChatTranscript.collect(format.provider(bare.baseURL), plainRequest).kind == .rateLimited(retryAfter: nil))
        let kind = await ChatTranscript.collect(format.provider(dated.baseURL), plainRequest).kind
        guard case .rateLimited(let wait?) = kind else {
            Issue.record("expected a rate limit with a wait, got \(String(describing: kind))")
            return
        }
        #expect(wait > .seconds(60) && wait <= .seconds(121))
    }

    @Test("a gateway's HTML error page still yields a typed error with a readable message", arguments: WireFormat.allCases)
    func nonJSONBody(format: WireFormat) async throws {
        let server = try await ScriptedServer.start { _ in
            ScriptedReply(status: 502, contentType: "text/html", steps: [.write(Data("<html><body>502 Bad Gateway</body></html>".utf8))])
        }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        let error = try #require(transcript.error as? HTTPProviderError)
        #expect(error.kind == .server(status: 502))
        #expect(error.message.contains("502 Bad Gateway"))
    }

    @Test("an error event in the middle of the stream is a typed error after the text", arguments: WireFormat.allCases)
    func midStreamError(format: WireFormat) async throws {
        let (opening, _) = format.reply("Partial", "never")
        let error: String =
            switch format {
            case .openAI: "data: " + #"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"# + "\n\n"
            case .anthropic:
                "event: error\ndata: " + #"{"type":"error","error":{"type":"api_error","message":"The server had an error while processing your request."}}"#
                    + "\n\n"
            case .ollama: #"{"error":"The server had an error while processing your request."}"# + "\n"
            }
        let server = try await ScriptedServer.start { _ in .chunks(chunked(opening + error, size: 9), contentType: format.contentType) }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        #expect(transcript.text == "Partial")
        #expect(transcript.kind == .server(status: 500))
        #expect((transcript.error as? HTTPProviderError)?.message == "The server had an error while processing your request.")
    }

    @Test(
        "Anthropic's error event types map to the matching kinds",
        arguments: [
            ("rate_limit_error", HTTPProviderError.Kind.rateLimited(retryAfter: nil)),
            ("authentication_error", .authentication(status: 401)),
            ("permission_error", .authentication(status: 403)),
            ("invalid_request_error", .badRequest(status: 400)),
            ("overloaded_error", .server(status: 529)),
            ("api_error", .server(status: 500)),
        ])
    func anthropicErrorEvents(type: String, kind: HTTPProviderError.Kind) async throws {
        let (opening, _) = WireFormat.anthropic.reply("Hi", "never")
        let event = "event: error\ndata: " + #"{"type":"error","error":{"type":"\#(type)","message":"m"}}"# + "\n\n"
        let server = try await ScriptedServer.start { _ in .chunks([Data((opening + event).utf8)], contentType: "text/event-stream") }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(WireFormat.anthropic.provider(server.baseURL), plainRequest)
        #expect(transcript.kind == kind)
    }

    @Test("no error, whatever its cause, shows the API key", arguments: WireFormat.allCases)
    func keyNeverShown(format: WireFormat) async throws {
        let server = try await ScriptedServer.start { _ in
            .json(401, Self.body(format, type: "authentication_error", message: "invalid x-api-key"))
        }
        let timeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(10), idle: .seconds(10))
        var errors: [any Error] = []
        for baseURL in [server.baseURL, RefusingPort.baseURL()] {
            if let error = await ChatTranscript.collect(format.provider(baseURL, timeouts: timeouts), plainRequest).error { errors.append(error) }
        }
        server.stop()
        #expect(errors.count == 2)
        for error in errors {
            for text in [String(describing: error), String(reflecting: error), error.localizedDescription] {
                #expect(!text.contains(WireFormat.key), "\(text)")
                #expect(!text.contains("0123456789abcdef"))
            }
        }
        if format != .ollama {
            let description = (errors.first as? HTTPProviderError)?.description ?? "no typed error"
            #expect(description.contains("check the API key"), "\(description)")
        }
    }

    @Test("a refused connection is a transport error", arguments: WireFormat.allCases)
    func refused(format: WireFormat) async throws {
        // AsyncHTTPClient retries a refused connection until the connect timeout runs out and
        // then reports the refusal — or, if an attempt is still under way, the timeout. Keep
        // that timeout short here. (With connectionPool.retryConnectionEstablishment = false
        // the refusal is reported at once, and only as .transport.)
        let timeouts = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(10), idle: .seconds(10))
        let transcript = await ChatTranscript.collect(format.provider(RefusingPort.baseURL(), timeouts: timeouts), plainRequest)
        #expect(transcript.kind == .transport || transcript.kind == .timeout(.connect))
        #expect((transcript.error as? HTTPProviderError)?.failureKind == .transient(retryAfter: nil))
    }
}
