import Foundation

/// Everything the Google server knows, and the routing of requests to it. The OAuth, Drive,
/// Calendar and Gmail handlers are extensions in their own files.
actor GoogleState {
    // MARK: Shared

    var baseURL = ""
    private var counter = 0

    struct FailureRule {
        var prefix: String
        var remaining: Int
        var status: Int
        var reason: String
        var retryAfter: Int?
        var message: String?
    }
    private var failures: [FailureRule] = []

    /// A fresh number for ids and tokens.
    func nextNumber() -> Int {
        counter += 1
        return counter
    }

    // MARK: OAuth state

    struct Grant {
        var refreshToken: String
        var scope: String
        var clientId: String?
        var revoked = false
    }
    struct AccessToken {
        var grant: Int
        var expiresAt: Date
        var forcedExpired = false
    }
    struct DeviceSession {
        var clientId: String
        var scope: String
        var polls = 0
        var pendingPolls: Int
        var slowDownAtPoll: Int?
        var outcome: GoogleServer.DeviceOutcome
        var finished = false
    }
    struct AuthorizationCode {
        var challenge: String?
        var challengeMethod: String
        var redirectURI: String?
        var scope: String
        var clientId: String?
        var used = false
    }

    static let readOnlyScopes = [
        "https://www.googleapis.com/auth/drive.readonly",
        "https://www.googleapis.com/auth/calendar.readonly",
        "https://www.googleapis.com/auth/gmail.readonly",
    ].joined(separator: " ")

    var client: (id: String, secret: String)?
    var grants: [Grant] = []
    var refreshIndex: [String: Int] = [:]
    var accessTokens: [String: AccessToken] = [:]
    var tokenLifetime = 3600
    var devicePlan: (pendingPolls: Int, slowDownAtPoll: Int?, outcome: GoogleServer.DeviceOutcome) = (0, nil, .approve)
    var deviceInterval = 1
    var devices: [String: DeviceSession] = [:]
    var authorizationCodes: [String: AuthorizationCode] = [:]
    var consentApproves = true
    private(set) var revokedTokens: [String] = []

    // MARK: Drive state

    struct DriveEntry {
        var file: GoogleServer.DriveFile
        var removed = false
        var order: Int
    }
    struct DriveChangeRecord {
        var number: Int
        var fileId: String
        var time: Date
    }
    var driveFiles: [String: DriveEntry] = [:]
    var driveChanges: [DriveChangeRecord] = []
    var driveNextChange = 1
    var drivePageSize = 100

    // MARK: Calendar state

    struct EventEntry {
        var event: GoogleServer.CalendarEvent
        var cancelled = false
        var sequence: Int
        var created: Date
        var updated: Date
    }
    struct CalendarBook {
        var events: [String: EventEntry] = [:]
        var sequence = 0
        var generation = 0
    }
    var calendars: [String: CalendarBook] = ["primary": CalendarBook()]
    var calendarPageSize = 250
    var lastCalendarUpdate = Date.distantPast

    // MARK: Gmail state

    struct MailEntry {
        var message: GoogleServer.GmailMessage
        var historyId: Int
        var internalDate: Int64
        var order: Int
    }
    struct HistoryRecord {
        var id: Int
        var messageId: String
    }
    var mail: [String: MailEntry] = [:]
    var history: [HistoryRecord] = []
    var currentHistoryId = 1000
    var oldestHistoryId = 1000
    var gmailPageSize = 100
    var emailAddress = "me@example.com"

    var currentHistoryIdText: String { String(currentHistoryId) }

    // MARK: Settings

    func setBaseURL(_ url: String) { baseURL = url }
    func setClient(id: String, secret: String) { client = (id, secret) }
    func setDeviceFlow(pendingPolls: Int, slowDownAtPoll: Int?, outcome: GoogleServer.DeviceOutcome) {
        devicePlan = (max(0, pendingPolls), slowDownAtPoll, outcome)
    }
    func setDeviceInterval(_ seconds: Int) { deviceInterval = max(0, seconds) }
    func setAccessTokenLifetime(_ seconds: Int) { tokenLifetime = seconds }
    func setConsent(approve: Bool) { consentApproves = approve }
    func setDrivePageSize(_ size: Int) { drivePageSize = max(1, size) }
    func setCalendarPageSize(_ size: Int) { calendarPageSize = max(1, size) }
    func setGmailPageSize(_ size: Int) { gmailPageSize = max(1, size) }
    func setEmailAddress(_ address: String) { emailAddress = address }
    func noteRevoked(_ token: String) { revokedTokens.append(token) }

    func failNext(_ count: Int, pathPrefix: String, status: Int, reason: String, retryAfter: Int?, message: String?) {
        guard count > 0 else { return }
        failures.append(FailureRule(prefix: pathPrefix, remaining: count, status: status, reason: reason, retryAfter: retryAfter, message: message))
    }

    // MARK: Routing

    static let oauthPaths: Set<String> = ["/token", "/device/code", "/revoke", "/o/oauth2/v2/auth"]

    /// Answers one request.
    func handle(_ request: WireServer.Recorded) -> GoogleReply {
        if let failure = scriptedFailure(for: request.path) { return failure }
        let query = GoogleParameters(request.query)
        do throws(GoogleRejection) {
            switch (request.method, request.path) {
            case ("POST", "/device/code"): return try deviceCode(request)
            case ("POST", "/token"): return try token(request)
            case ("POST", "/revoke"): return revoke(request, query: query)
            case ("GET", "/o/oauth2/v2/auth"): return consent(query)
            default: break
            }
            if Self.oauthPaths.contains(request.path) {
                return GoogleWire.oauthError(405, "invalid_request", "Method \(request.method) is not allowed here.")
            }
            let segments = GoogleWire.segments(request.path)
            guard segments.count >= 2 else { return notFound(request) }
            let service: Service
            switch (segments[0], segments[1]) {
            case ("drive", "v3"): service = .drive
            case ("calendar", "v3"): service = .calendar
            case ("gmail", "v1"): service = .gmail
            default: return notFound(request)
            }
            try authorize(request, for: service)
            guard request.method == "GET" else {
                return GoogleWire.apiError(405, reason: "httpMethodNotAllowed", message: "This server only reads: \(request.method) is not supported.")
            }
            let rest = Array(segments.dropFirst(2))
            switch service {
            case .drive: return try drive(rest, query: query)
            case .calendar: return try calendar(rest, query: query)
            case .gmail: return try gmail(rest, query: query)
            }
        } catch {
            return error.reply
        }
    }

    private func notFound(_ request: WireServer.Recorded) -> GoogleReply {
        GoogleWire.apiError(404, reason: "notFound", message: "Method not found: \(request.method) \(request.path)")
    }

    /// The scripted failure for `path`, if one is still due.
    private func scriptedFailure(for path: String) -> GoogleReply? {
        guard let index = failures.firstIndex(where: { $0.remaining > 0 && path.hasPrefix($0.prefix) }) else { return nil }
        failures[index].remaining -= 1
        let rule = failures[index]
        if failures[index].remaining == 0 { failures.remove(at: index) }
        var headers: [String: String] = [:]
        if let retryAfter = rule.retryAfter { headers["Retry-After"] = String(retryAfter) }
        let message = rule.message ?? GoogleWire.message(for: rule.reason)
        if Self.oauthPaths.contains(path) {
            var reply = GoogleWire.oauthError(rule.status, rule.reason, message)
            reply.headers.merge(headers) { _, new in new }
            return reply
        }
        return GoogleWire.apiError(rule.status, reason: rule.reason, message: message, headers: headers)
    }

    // MARK: Access tokens on API requests

    enum Service {
        case drive, calendar, gmail

        func granted(by scope: String) -> Bool {
            let scopes = scope.split(separator: " ").map(String.init)
            if scopes.isEmpty { return true }
            return scopes.contains { scope in
                switch self {
                case .drive: return scope.hasPrefix("https://www.googleapis.com/auth/drive")
                case .calendar: return scope.hasPrefix("https://www.googleapis.com/auth/calendar")
                case .gmail: return scope.hasPrefix("https://www.googleapis.com/auth/gmail") || scope == "https://mail.google.com/"
                }
            }
        }
    }

    /// Throws 401 unless the request carries a live access token, 403 when its grant lacks
    /// the service's scope.
    private func authorize(_ request: WireServer.Recorded, for service: Service) throws(GoogleRejection) {
        let header = request.headers["authorization"] ?? ""
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Self.unauthenticated() }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let access = accessTokens[token], !access.forcedExpired, access.expiresAt > Date(),
            !grants[access.grant].revoked
        else { throw Self.unauthenticated() }
        guard service.granted(by: grants[access.grant].scope) else {
            throw GoogleRejection(
                GoogleWire.apiError(
                    403, reason: "insufficientPermissions",
                    message: "Request had insufficient authentication scopes."))
        }
    }

    private static func unauthenticated() -> GoogleRejection {
        GoogleRejection(
            GoogleWire.apiError(
                401, reason: "authError",
                message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
                    + "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                location: ("header", "Authorization"),
                headers: ["WWW-Authenticate": "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""]))
    }

    /// The effective page size: the client's (when given and positive) capped by the server's.
    func pageSize(_ client: Int?, server: Int) -> Int {
        guard let client, client > 0 else { return server }
        return min(client, server)
    }
}
