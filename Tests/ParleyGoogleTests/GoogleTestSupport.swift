import Foundation
import Logging
import ParleyGoogle
import ParleyStore
import ParleyTestServers
import Synchronization

/// A local Google stand-in, a fresh SQLite store and a signed-in session over them.
struct GoogleFixture {
    let server: GoogleServer
    let store: ConversationStore
    let directory: URL
    let endpoints: GoogleEndpoints
    let client = GoogleClient(id: "parley-test.apps.googleusercontent.com", secret: "test-client-secret-XYZ")
    let sleeps = Recorder<Duration>()
    let logs = Recorder<String>()

    static func start() async throws -> GoogleFixture {
        let server = try await GoogleServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-google-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try ConversationStore(path: directory.appendingPathComponent("parley.sqlite"))
        let fixture = GoogleFixture(
            server: server, store: store, directory: directory,
            endpoints: .overriding(api: server.baseURL, oauth: server.baseURL))
        await server.setClient(id: fixture.client.id, secret: fixture.client.secret)
        return fixture
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Flows whose waits are recorded, not slept.
    var oauth: GoogleOAuth {
        let sleeps = self.sleeps
        return GoogleOAuth(client: client, endpoints: endpoints, sleep: { sleeps.append($0) })
    }

    /// A logger whose every line (with its metadata) is kept.
    var logger: Logger {
        let logs = self.logs
        var logger = Logger(label: "test.google") { _ in RecordingLogHandler(lines: logs) }
        logger.logLevel = .trace
        return logger
    }

    /// A session over the store, its backoff waits recorded rather than slept.
    func session(owner: Owner = .local) -> GoogleSession {
        let sleeps = self.sleeps
        return GoogleSession(
            oauth: oauth, keeper: StoreTokenKeeper(store: store, owner: owner),
            sleep: { sleeps.append($0) }, logger: logger)
    }

    /// A session signed in with tokens the stand-in issued.
    func signedInSession(owner: Owner = .local) async throws -> (GoogleSession, GoogleToken) {
        let issued = await server.issueTokens()
        let token = GoogleToken(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: Date().addingTimeInterval(3600), scopes: GoogleScope.all)
        let session = session(owner: owner)
        try await session.signIn(token)
        return (session, token)
    }

    func sync(
        _ session: GoogleSession, extractor: AssignmentExtractor = AssignmentExtractor(namer: nil),
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> GoogleSync {
        GoogleSync(session: session, endpoints: endpoints, store: store, extractor: extractor, logger: logger, now: now)
    }

    /// Requests whose path starts with `prefix`.
    func requests(_ prefix: String) async -> [WireServer.Recorded] {
        await server.requests().filter { $0.path.hasPrefix(prefix) }
    }
}

/// Values appended from any task.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Keeps log lines, metadata included, to check that no secret is ever logged.
struct RecordingLogHandler: LogHandler {
    let lines: Recorder<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let all = self.metadata.merging(metadata ?? [:]) { $1 }
        lines.append("\(level) \(message) \(all)")
    }
}
