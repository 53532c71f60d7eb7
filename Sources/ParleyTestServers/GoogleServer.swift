import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A real HTTP server on 127.0.0.1 (an OS-assigned port) that speaks Google's documented wire
/// formats: the OAuth 2.0 endpoints (device flow, authorization code with PKCE, refresh,
/// revoke, and a stand-in consent page), Drive v3, Calendar v3 and Gmail v1, over in-memory
/// state a test controls. `baseURL` serves both the API paths (`/drive/v3/…`,
/// `/calendar/v3/…`, `/gmail/v1/…`) and the OAuth paths (`/token`, `/device/code`,
/// `/revoke`, `/o/oauth2/v2/auth`). Every request is recorded.
public final class GoogleServer: Sendable {
    // MARK: Values a test hands in

    /// A Drive file. Google Docs editor files (`application/vnd.google-apps.*`) keep their text
    /// as `content`: `files.export` serves it, `alt=media` refuses them.
    public struct DriveFile: Sendable, Equatable {
        public var id: String
        public var name: String
        public var mimeType: String
        /// The folders it is in (folder ids, or `root`).
        public var parents: [String]
        public var content: Data
        public var modifiedTime: Date
        public var trashed: Bool

        public init(
            id: String, name: String, mimeType: String = "text/plain", parents: [String] = [], content: Data = Data(),
            modifiedTime: Date = Date(), trashed: Bool = false
        ) {
            self.id = id
            self.name = name
            self.mimeType = mimeType
            self.parents = parents
            self.content = content
            self.modifiedTime = modifiedTime
            self.trashed = trashed
        }

        /// Whether Drive treats it as a Google Docs editor file (or a folder).
        public var isGoogleApps: Bool { mimeType.hasPrefix("application/vnd.google-apps.") }
    }

    /// How a device-flow sign-in ends once its pending polls are over.
    public enum DeviceOutcome: Sendable, Equatable {
        /// The person approved: the poll gets tokens.
        case approve
        /// The person refused: `access_denied`.
        case deny
        /// The code ran out: `expired_token`.
        case expire
    }

    /// When a Calendar event starts or ends.
    public enum EventTime: Sendable, Equatable {
        /// A whole day, `YYYY-MM-DD`.
        case date(String)
        /// An RFC 3339 time, with the time zone it was written in.
        case dateTime(String, timeZone: String?)
    }

    /// A Calendar event.
    public struct CalendarEvent: Sendable, Equatable {
        public var id: String
        public var summary: String
        public var description: String?
        public var start: EventTime
        public var end: EventTime
        /// Its page in Google Calendar (a made-up one when `nil`).
        public var htmlLink: String?

        public init(id: String, summary: String, description: String? = nil, start: EventTime, end: EventTime, htmlLink: String? = nil) {
            self.id = id
            self.summary = summary
            self.description = description
            self.start = start
            self.end = end
            self.htmlLink = htmlLink
        }
    }

    /// A file attached to a Gmail message.
    public struct GmailAttachment: Sendable, Equatable {
        public var filename: String
        public var mimeType: String
        public var data: Data

        public init(filename: String, mimeType: String, data: Data) {
            self.filename = filename
            self.mimeType = mimeType
            self.data = data
        }
    }

    /// A Gmail message. The server builds its MIME `payload`: `multipart/alternative` with a
    /// `text/plain` and a `text/html` part when both are given, one part when only one is,
    /// inside `multipart/mixed` with the attachments when there are any.
    public struct GmailMessage: Sendable, Equatable {
        public var id: String
        public var threadId: String
        public var from: String
        public var to: String
        public var subject: String
        /// The `Date` header (RFC 2822); it also sets `internalDate` when it parses.
        public var date: String
        public var plainText: String?
        public var html: String?
        public var labelIds: [String]
        public var attachments: [GmailAttachment]

        /// `threadId` defaults to `id`; `date` to now.
        public init(
            id: String, threadId: String? = nil, from: String, to: String = "me@example.com", subject: String,
            date: String? = nil, plainText: String? = nil, html: String? = nil, labelIds: [String] = ["INBOX"],
            attachments: [GmailAttachment] = []
        ) {
            self.id = id
            self.threadId = threadId ?? id
            self.from = from
            self.to = to
            self.subject = subject
            self.date = date ?? GoogleWire.mailDate(Date())
            self.plainText = plainText
            self.html = html
            self.labelIds = labelIds
            self.attachments = attachments
        }
    }

    // MARK: The server

    /// The port the server listens on.
    public let port: Int
    private let task: Task<Void, any Error>
    private let log: RequestLog
    private let state: GoogleState

    /// `http://127.0.0.1:PORT`: the API base and the OAuth base at once.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server; returns once it accepts connections.
    public static func start() async throws -> GoogleServer {
        let log = RequestLog()
        let state = GoogleState()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let recorded = try await Loopback.record(request)
            await log.record(recorded)
            return response(await state.handle(recorded))
        }
        let (task, port) = try await Loopback.run { onServerRunning in
            Application(
                responder: responder, configuration: Loopback.configuration, onServerRunning: onServerRunning,
                logger: Loopback.quietLogger("parley.google-server"))
        }
        await state.setBaseURL("http://127.0.0.1:\(port)")
        return GoogleServer(port: port, task: task, log: log, state: state)
    }

    private init(port: Int, task: Task<Void, any Error>, log: RequestLog, state: GoogleState) {
        self.port = port
        self.task = task
        self.log = log
        self.state = state
    }

    /// Stops the server.
    public func stop() async {
        task.cancel()
    }

    /// Every request received, in order of arrival.
    public func requests() async -> [WireServer.Recorded] {
        await log.requests
    }

    private static func response(_ reply: GoogleReply) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = reply.contentType
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return Response(status: .init(code: reply.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    // MARK: OAuth

    /// Accepts only this client (others get 401 `invalid_client`). Until it is called, any
    /// client id and secret are accepted.
    public func setClient(id: String, secret: String) async {
        await state.setClient(id: id, secret: secret)
    }

    /// How device-flow polls go for codes issued from now on: `pendingPolls` polls answer
    /// `authorization_pending` (428), then the `outcome`. Poll number `slowDownAtPoll`
    /// (1-based) answers `slow_down` (403) instead, on top of the pending ones.
    public func setDeviceFlow(pendingPolls: Int, slowDownAtPoll: Int? = nil, outcome: DeviceOutcome) async {
        await state.setDeviceFlow(pendingPolls: pendingPolls, slowDownAtPoll: slowDownAtPoll, outcome: outcome)
    }

    /// The `interval` `/device/code` sends (Google sends 5; default 1, for speed).
    public func setDeviceInterval(_ seconds: Int) async {
        await state.setDeviceInterval(seconds)
    }

    /// `expires_in` of access tokens issued from now on (default 3600); they stop working
    /// after it.
    public func setAccessTokenLifetime(_ seconds: Int) async {
        await state.setAccessTokenLifetime(seconds)
    }

    /// Every access token issued so far answers 401 from now on (refresh tokens still work).
    public func expireAccessTokens() async {
        await state.expireAccessTokens()
    }

    /// The tokens `/revoke` accepted, in order.
    public func revokedTokens() async -> [String] {
        await state.revokedTokens
    }

    /// Makes `code` valid once for `grant_type=authorization_code`. With `verifierChallenge`
    /// (the S256 challenge), the exchange must send the matching `code_verifier`.
    /// `scope` is what the tokens grant (the three read-only scopes when `nil`).
    public func acceptAuthorizationCode(_ code: String, verifierChallenge: String? = nil, scope: String? = nil) async {
        await state.acceptAuthorizationCode(code, challenge: verifierChallenge, scope: scope)
    }

    /// Whether the stand-in consent page (`GET /o/oauth2/v2/auth`) approves (redirects with a
    /// fresh `code`, the default) or refuses (redirects with `error=access_denied`).
    public func setConsent(approve: Bool) async {
        await state.setConsent(approve: approve)
    }

    /// Signs in without a flow: a fresh grant's access and refresh tokens (for API tests).
    public func issueTokens(scope: String? = nil) async -> (accessToken: String, refreshToken: String) {
        await state.issueTokens(scope: scope)
    }

    // MARK: Drive

    /// Adds a file, or replaces the one with its id; records a change.
    public func addDriveFile(_ file: DriveFile) async {
        await state.addDriveFile(file)
    }

    /// New content (and a new `md5Checksum`) for a file; records a change.
    public func updateDriveFile(id: String, content: Data, modifiedTime: Date? = nil) async {
        await state.updateDriveFile(id: id, content: content, modifiedTime: modifiedTime)
    }

    /// Moves a file to the trash (`trashed: true`); records a change.
    public func trashDriveFile(id: String) async {
        await state.trashDriveFile(id: id)
    }

    /// Removes a file (404 from then on); records a change with `removed: true`.
    public func removeDriveFile(id: String) async {
        await state.removeDriveFile(id: id)
    }

    /// The most files or changes a page holds (default 100); a smaller `pageSize` from the
    /// client wins.
    public func setDrivePageSize(_ size: Int) async {
        await state.setDrivePageSize(size)
    }

    // MARK: Calendar

    /// Adds an event to `calendar`, or updates the one with its id (`updated` moves on; a
    /// cancelled one is confirmed again).
    public func addEvent(calendar: String, _ event: CalendarEvent) async {
        await state.addEvent(calendar: calendar, event)
    }

    /// Marks an event `cancelled`.
    public func cancelEvent(calendar: String, id: String) async {
        await state.cancelEvent(calendar: calendar, id: id)
    }

    /// Every sync token issued for `calendar` so far answers 410 from now on.
    public func invalidateSyncTokens(calendar: String) async {
        await state.invalidateSyncTokens(calendar: calendar)
    }

    /// The most events a page holds (default 250); a smaller `maxResults` wins.
    public func setCalendarPageSize(_ size: Int) async {
        await state.setCalendarPageSize(size)
    }

    // MARK: Gmail

    /// Adds a message (or replaces the one with its id): it gets the next history id, and a
    /// `messageAdded` history record.
    public func addMessage(_ message: GmailMessage) async {
        await state.addMessage(message)
    }

    /// Forgets the history so far: `history.list` from an older `startHistoryId` answers 404.
    public func invalidateHistory() async {
        await state.invalidateHistory()
    }

    /// The most ids a `messages.list` or `history.list` page holds (default 100); a smaller
    /// `maxResults` wins.
    public func setGmailPageSize(_ size: Int) async {
        await state.setGmailPageSize(size)
    }

    /// The mailbox's address (`profile`, and accepted as the `userId` besides `me`).
    public func setEmailAddress(_ address: String) async {
        await state.setEmailAddress(address)
    }

    /// The mailbox's current history id.
    public func currentHistoryId() async -> String {
        await state.currentHistoryIdText
    }

    // MARK: Failures

    /// The next `count` requests whose path starts with `pathPrefix` get `status` with
    /// `reason` in Google's error JSON (the OAuth shape for `/token`, `/device/code` and
    /// `/revoke`), and `Retry-After` when given.
    public func failNext(_ count: Int, pathPrefix: String, status: Int, reason: String, retryAfter: Int? = nil, message: String? = nil) async {
        await state.failNext(count, pathPrefix: pathPrefix, status: status, reason: reason, retryAfter: retryAfter, message: message)
    }
}
