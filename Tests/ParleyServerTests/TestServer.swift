import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyRuntime
import ParleyServer
import ParleyTesting
import ParleyTestLanes
import ServiceLifecycle
import Testing

/// A Parley server started in-process on 127.0.0.1, at a port the system picks.
struct TestServer: Sendable {
    let server: ParleyServer
    let runtime: Runtime<ContinuousClock>
    let port: Int
    let task: Task<Void, any Error>
    let database: URL
    /// The service group the server runs in, when it was started to be shut down gracefully.
    let group: ServiceGroup?

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on a runtime whose settings are `settings` on top of the environment
    /// (less any provider setting of the machine's, so the developer's keys never leak in).
    ///
    /// With `gracefulShutdown`, the server runs in a service group, and
    /// ``shutDownGracefully()`` shuts it down as a signal would.
    static func start(
        settings: [String: String] = [:], catalog: ProviderCatalog = .standard, logger: Logger? = nil,
        gracefulShutdown: Bool = false, tools: [Tool] = [],
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("parley-server-\(UUID())/parley.sqlite")
        let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) }
        // The suite's language model is the fast preset (SmolLM2), whatever the machine would pick.
        let model = ["PARLEY_LLM_MODEL": ProcessInfo.processInfo.environment["PARLEY_LLM_MODEL"] ?? "smollm2-135m"]
        let values = environment.merging(model) { $1 }.merging(settings) { $1 }.merging(["PARLEY_DATABASE": database.path]) { $1 }
        let runtime = Runtime(settings: RuntimeSettings(values: values), options: RuntimeOptions(tools: tools), catalog: catalog)
        var configuration = ServerConfiguration(port: 0, apiKeys: ServerConfiguration.apiKeys(from: runtime.settings), probeInterval: nil)
        configure(&configuration)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        var quiet = Logger(label: "parley.test-server")
        quiet.logLevel = .critical
        let logger = logger ?? quiet
        let server = try ParleyServer(runtime: runtime, configuration: configuration, logger: logger) { port in
            portSink.yield(port)
            portSink.finish()
        }
        let group = gracefulShutdown ? ServiceGroup(configuration: .init(services: [server], logger: logger)) : nil
        let task = Task {
            // A server that fails before it listens (a database it cannot reach) ends the wait.
            defer { portSink.finish() }
            if let group { try await group.run() } else { try await server.run() }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        return TestServer(server: server, runtime: runtime, port: port, task: task, database: database, group: group)
    }

    /// A server on the standard catalog (the on-device engines, as nothing else is
    /// configured), shared by the tests that only read from it: the model loads once.
    static let onDevice = Task { try await TestServer.start() }

    /// A server whose providers are test doubles: for the tests of the HTTP layer.
    static func scripted(
        model: ScriptedLanguageModel = ScriptedLanguageModel(replies: [["Paris", " is the capital."]]),
        transcripts: [String]? = nil, settings: [String: String] = [:], logger: Logger? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        try await start(settings: settings, catalog: scriptedCatalog(model: model, transcripts: transcripts), logger: logger, configure: configure)
    }

    /// The test doubles' catalog: a scripted model, "hello there" for any speech (or
    /// `transcripts` in turn, from one transcriber), tones for speech.
    static func scriptedCatalog(
        model: ScriptedLanguageModel = ScriptedLanguageModel(replies: [["Paris", " is the capital."]]),
        transcripts: [String]? = nil
    ) -> ProviderCatalog {
        let shared = transcripts.map { ScriptedSpeechToText(transcripts: $0) }
        return ProviderCatalog(entries: [
            ProviderEntry(
                capability: .languageModel, name: "local", placement: .onDevice, remedy: "none",
                factory: .languageModel { _ in model }),
            ProviderEntry(
                capability: .speechToText, name: "local", placement: .onDevice, remedy: "none",
                factory: .speechToText { _ in shared ?? ScriptedSpeechToText(transcripts: ["hello there"]) }),
            ProviderEntry(
                capability: .textToSpeech, name: "local", placement: .onDevice, remedy: "none",
                factory: .textToSpeech { _ in ToneTextToSpeech() }),
        ])
    }

    /// Shuts the server down as SIGTERM would (it must have been started with
    /// `gracefulShutdown`), and waits until it has stopped.
    func shutDownGracefully() async throws {
        await group?.triggerGracefulShutdown()
        try await task.value
    }

    func stop() {
        task.cancel()
        try? FileManager.default.removeItem(at: database.deletingLastPathComponent())
    }

    // MARK: - HTTP

    /// An answer as a client sees it.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object.
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

        /// The `error` object of an OpenAI-shaped error body.
        var error: [String: Any]? { json?["error"] as? [String: Any] }
    }

    /// Sends a request and reads the whole answer.
    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: Data? = nil,
        chunked: Bool = false
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if chunked {
                // No Content-Length: the server finds the size by reading.
                let pieces = stride(from: 0, to: body.count, by: 4_096).map { ByteBuffer(bytes: body[$0..<min(body.count, $0 + 4_096)]) }
                let stream = AsyncStream<ByteBuffer> { continuation in
                    for piece in pieces { continuation.yield(piece) }
                    continuation.finish()
                }
                request.body = .stream(stream, length: .unknown)
            } else {
                request.body = .bytes(ByteBuffer(bytes: body))
            }
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: fields, body: Data(collected.readableBytesView))
    }

    /// POSTs a JSON document.
    func post(_ path: String, json: Any, headers: [(String, String)] = []) async throws -> Reply {
        try await send(
            .POST, path, headers: [("content-type", "application/json")] + headers,
            body: try JSONSerialization.data(withJSONObject: json))
    }

    /// PUTs a JSON document.
    func put(_ path: String, json: Any, headers: [(String, String)] = []) async throws -> Reply {
        try await send(
            .PUT, path, headers: [("content-type", "application/json")] + headers,
            body: try JSONSerialization.data(withJSONObject: json))
    }
}

/// A `multipart/form-data` body, as an HTTP client would build it.
struct FormBody {
    let boundary = "----parley-test-\(UUID().uuidString)"
    private(set) var data = Data()

    mutating func add(_ name: String, _ value: String) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func add(file name: String, filename: String, contentType: String = "audio/wav", _ content: Data) {
        data.append(
            Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        data.append(content)
        data.append(Data("\r\n".utf8))
    }

    /// The body with its closing boundary.
    var finished: Data { data + Data("--\(boundary)--\r\n".utf8) }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }
}

/// The data directory's files that scripts/setup installs.
enum Samples {
    static let paths = ParleyPaths.current()

    /// The spoken question "What is the capital of France?".
    static func question() throws -> Data {
        guard FileManager.default.fileExists(atPath: paths.sampleQuestion.path) else {
            Issue.record("Missing \(paths.sampleQuestion.path): run scripts/setup first.")
            throw CancellationError()
        }
        return try Data(contentsOf: paths.sampleQuestion)
    }
}

/// Expects `reply` to be an error in OpenAI's shape with `status`.
func expectOpenAIError(
    _ reply: TestServer.Reply, status: Int, type: String = "invalid_request_error", code: String? = nil,
    param: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == status, "status \(reply.status): \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
    guard let error = reply.error else {
        Issue.record("not an OpenAI error body: \(reply.text)", sourceLocation: sourceLocation)
        return
    }
    #expect((error["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(error["type"] as? String == type, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(error.keys.contains("param") && error.keys.contains("code"), "\(reply.text)", sourceLocation: sourceLocation)
    if let code { #expect(error["code"] as? String == code, "\(reply.text)", sourceLocation: sourceLocation) }
    if let param { #expect(error["param"] as? String == param, "\(reply.text)", sourceLocation: sourceLocation) }
}

/// The `data:` payloads of a server-sent event stream.
func events(in text: String) -> [String] {
    text.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
}

/// The tests that run the on-device engines (through an in-process server or a `parley serve`
/// child), one at a time: on two cores, engines running side by side only slow each other
/// past the chains' timeouts.
@Suite("the server on the on-device engines", .serialized, .onDeviceEngines)
struct OnDeviceServerTests {}
