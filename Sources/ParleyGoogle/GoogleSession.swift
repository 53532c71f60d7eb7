import Foundation
import Logging
import NIOHTTP1
import ParleyCore

/// A signed-in connection to Google's APIs: it renews the access token before it expires
/// (and once more when a request is refused with 401), and retries rate-limited requests
/// (429, and 403 `rateLimitExceeded` / `userRateLimitExceeded`) with exponential backoff and
/// jitter, honouring `Retry-After`. Anything else is one ``GoogleError``.
public actor GoogleSession {
    /// The OAuth flows that renew the token.
    public nonisolated let oauth: GoogleOAuth
    private let keeper: any GoogleTokenKeeping
    private let retry: RetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger
    private let http = GoogleHTTP()
    private var token: GoogleToken?
    private var loaded = false
    /// Rate-limit retries so far (for progress reports and tests).
    public private(set) var backoffs = 0

    /// Creates a session over the sign-in `keeper` holds.
    public init(
        oauth: GoogleOAuth, keeper: any GoogleTokenKeeping,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 6, initialDelay: .seconds(1), maxDelay: .seconds(32), jitter: 0.5),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        logger: Logger = Logger(label: "parley.google")
    ) {
        self.oauth = oauth
        self.keeper = keeper
        self.retry = retry
        self.sleep = sleep
        self.logger = logger
    }

    /// Keeps a new sign-in (after ``GoogleOAuth``'s device or loopback flow).
    public func signIn(_ token: GoogleToken) async throws {
        try await keeper.save(token)
        self.token = token
        loaded = true
    }

    /// Revokes the sign-in at Google and forgets it here. Forgets it even when Google cannot
    /// be reached, and then says so.
    public func signOut() async throws {
        let current = try await currentToken()
        try await keeper.save(nil)
        token = nil
        if let current { try await oauth.revoke(current) }
    }

    /// Whether a sign-in is kept, and its scopes.
    public func signedInScopes() async throws -> [String]? {
        try await currentToken()?.scopes
    }

    /// GETs `url` from `service` with the access token and returns the body.
    func get(_ url: String, service: String) async throws -> Data {
        try await send(.GET, url, service: service).body
    }

    /// GETs `url` and decodes its JSON body.
    func get<T: Decodable>(_ type: T.Type, _ url: String, service: String) async throws -> T {
        try await send(.GET, url, service: service).decoded(T.self, service: service)
    }

    /// Sends an authorized request, renewing and retrying as described above.
    func send(_ method: HTTPMethod, _ url: String, service: String) async throws -> GoogleResponse {
        var renewedAfterRefusal = false
        var attempt = 1
        while true {
            // Just renewed after a refusal: use that token as it is, however short its life.
            let access = renewedAfterRefusal ? (token?.accessToken ?? "") : try await validAccessToken()
            let response = try await http.send(method, url, headers: [("authorization", "Bearer \(access)")], service: service)
            if (200..<300).contains(response.status) { return response }
            let (reason, message) = response.apiError
            if response.status == 401, !renewedAfterRefusal {
                renewedAfterRefusal = true
                try await renew()
                continue
            }
            let rateLimited =
                response.status == 429
                || (response.status == 403 && ["rateLimitExceeded", "userRateLimitExceeded"].contains(reason ?? ""))
                || response.status == 503 || (response.status == 500 && reason == "backendError")
            if rateLimited {
                guard attempt < retry.maxAttempts else { throw GoogleError.rateLimited(name: service, attempts: attempt) }
                let retryAfter = response.headers.first(name: "retry-after").flatMap(Double.init).map { Duration.seconds($0) }
                let delay = retry.delay(after: attempt, retryAfter: retryAfter, random: Double.random(in: 0..<1))
                logger.warning("\(service) is rate limited (\(response.status) \(reason ?? "")); retrying in \(delay)")
                backoffs += 1
                try await sleep(delay)
                attempt += 1
                continue
            }
            if response.status == 401 { throw GoogleError.signInExpired }
            throw GoogleError.service(name: service, status: response.status, reason: reason, message: message)
        }
    }

    private func currentToken() async throws -> GoogleToken? {
        if !loaded {
            token = try await keeper.load()
            loaded = true
        }
        return token
    }

    private func validAccessToken() async throws -> String {
        guard let current = try await currentToken() else { throw GoogleError.notSignedIn }
        if current.expires(within: 60) { try await renew() }
        guard let token else { throw GoogleError.notSignedIn }
        return token.accessToken
    }

    private func renew() async throws {
        guard let current = try await currentToken() else { throw GoogleError.notSignedIn }
        let renewed = try await oauth.refreshed(current)
        try await keeper.save(renewed)
        token = renewed
    }
}
