import Foundation
import Logging
import MCP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client side of MCP's Streamable HTTP transport, for request and response: each message
/// is POSTed to the endpoint, and the answer, a JSON body or a short event stream (the form
/// most servers use), is read whole and its messages handed to the client.
///
/// Written here because the SDK's own HTTP client transport does not read event streams on
/// Linux (0.12.1). It keeps the server's `Mcp-Session-Id` and sends the negotiated
/// `MCP-Protocol-Version`; it opens no stream for messages the server starts itself (Parley
/// asks nothing of a server that needs one). `headers` (an API key, say) go with every request
/// and are never logged.
actor StreamableHTTPTransport: Transport {
    nonisolated let logger: Logger
    private let endpoint: URL
    private let headers: [String: String]
    private let session: URLSession
    private var sessionID: String?
    private var protocolVersion: String?
    private let messages: AsyncThrowingStream<Data, any Error>
    private let incoming: AsyncThrowingStream<Data, any Error>.Continuation

    init(endpoint: URL, headers: [String: String], logger: Logger) {
        self.endpoint = endpoint
        self.headers = headers
        self.logger = logger
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        self.session = URLSession(configuration: configuration)
        (messages, incoming) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {}

    func disconnect() async {
        incoming.finish()
        // A server that gave a session is told it is over (it may refuse: that is fine).
        guard let sessionID else { return }
        self.sessionID = nil
        var request = URLRequest(url: endpoint)
        request.httpMethod = "DELETE"
        request.timeoutInterval = 5
        decorate(&request, session: sessionID)
        _ = try? await session.data(for: request)
    }

    func send(_ data: Data) async throws {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.httpBody = data
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        decorate(&request, session: sessionID)
        let (body, response) = try await session.data(for: request)
        guard let response = response as? HTTPURLResponse else {
            throw MCPError.internalError("the server's answer is not HTTP")
        }
        if let id = response.value(forHTTPHeaderField: "Mcp-Session-Id"), !id.isEmpty { sessionID = id }
        switch response.statusCode {
        case 202, 204:
            return  // a notification or a response, accepted
        case 200..<300:
            break
        case 401, 403:
            throw MCPError.internalError(
                "the server refused the request (HTTP \(response.statusCode)): check the \"headers\" of its entry (an API key, a token)")
        case 404 where sessionID != nil:
            throw MCPError.internalError("the server ended its session (HTTP 404): restart Parley to connect again")
        default:
            let words = String(decoding: body.prefix(200), as: UTF8.self)
            throw MCPError.internalError("the server answered HTTP \(response.statusCode)\(words.isEmpty ? "" : ": \(words)")")
        }
        let type = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        let received = type.hasPrefix("text/event-stream") ? Self.events(body) : [body]
        for message in received where !message.isEmpty {
            noteProtocolVersion(message)
            incoming.yield(message)
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> { messages }

    private func decorate(_ request: inout URLRequest, session: String?) {
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let session { request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id") }
        if let protocolVersion { request.setValue(protocolVersion, forHTTPHeaderField: "MCP-Protocol-Version") }
    }

    /// Keeps the version the server chose in its answer to `initialize`.
    private func noteProtocolVersion(_ message: Data) {
        guard protocolVersion == nil,
            let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
            let result = object["result"] as? [String: Any],
            let version = result["protocolVersion"] as? String
        else { return }
        protocolVersion = version
    }

    /// The `data` of each event of a server-sent event stream (its lines joined with newlines).
    static func events(_ body: Data) -> [Data] {
        var events: [Data] = []
        var lines: [Substring] = []
        // Lines end with CRLF, LF or CR ("\r\n" is one Character to Swift).
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                if !lines.isEmpty { events.append(Data(lines.joined(separator: "\n").utf8)) }
                lines = []
            } else if line.hasPrefix("data:") {
                var value = line.dropFirst(5)
                if value.hasPrefix(" ") { value = value.dropFirst() }
                lines.append(value)
            }
        }
        if !lines.isEmpty { events.append(Data(lines.joined(separator: "\n").utf8)) }
        return events
    }
}
