import Crypto
import Foundation

/// What the person is shown to approve a device sign-in (RFC 8628 §3.2).
public struct DeviceAuthorization: Sendable, Equatable {
    /// The code the person types on the verification page.
    public var userCode: String
    /// The page where they type it.
    public var verificationURL: String
    /// How long the code is valid.
    public var expiresIn: Duration
    /// The wait between two polls of the token endpoint.
    public var interval: Duration
    /// The code the app polls with; not shown.
    var deviceCode: String
}

/// Google's OAuth 2.0 for installed apps: the device flow (a code typed on another device),
/// the loopback flow (a browser on this machine, with PKCE), refresh and revoke.
///
/// Google's device flow grants only a few scopes (Drive's per-file ones among them, but not
/// `drive.readonly`, `calendar.readonly` or `gmail.readonly`); the loopback flow grants them all.
public struct GoogleOAuth: Sendable {
    /// The OAuth client.
    public let client: GoogleClient
    /// Where Google is.
    public let endpoints: GoogleEndpoints
    /// Waits between polls; tests record the waits instead.
    let sleep: @Sendable (Duration) async throws -> Void
    /// What RFC 8628 §3.5 adds to the interval on each `slow_down`.
    let slowDownStep: Duration
    let http = GoogleHTTP(timeout: .seconds(30), limit: 1024 * 1024)

    private static let service = "Google sign-in"

    /// Creates the flows for `client`.
    public init(
        client: GoogleClient, endpoints: GoogleEndpoints = .google, slowDownStep: Duration = .seconds(5),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.endpoints = endpoints
        self.slowDownStep = slowDownStep
        self.sleep = sleep
    }

    // MARK: Device flow

    /// Asks for a user code for `scopes` (`POST /device/code`).
    public func startDeviceAuthorization(scopes: [String]) async throws(GoogleError) -> DeviceAuthorization {
        struct Body: Decodable {
            var deviceCode: String
            var userCode: String
            var verificationURL: String?
            var verificationURI: String?
            var expiresIn: Double
            var interval: Double?
            enum CodingKeys: String, CodingKey {
                case deviceCode = "device_code", userCode = "user_code", verificationURL = "verification_url"
                case verificationURI = "verification_uri", expiresIn = "expires_in", interval
            }
        }
        let response = try await http.postForm(
            endpoints.oauth + "/device/code",
            [("client_id", client.id), ("scope", scopes.joined(separator: " "))],
            service: Self.service)
        guard response.status == 200 else { throw tokenError(response) }
        let body = try response.decoded(Body.self, service: Self.service)
        guard let url = body.verificationURL ?? body.verificationURI else {
            throw .malformed(name: Self.service, reason: "no verification_url")
        }
        return DeviceAuthorization(
            userCode: body.userCode, verificationURL: url, expiresIn: .seconds(body.expiresIn),
            interval: .seconds(body.interval ?? 5), deviceCode: body.deviceCode)
    }

    /// Polls the token endpoint until the person approves (the token), refuses
    /// (``GoogleError/accessDenied``) or the code expires (``GoogleError/codeExpired``).
    /// `authorization_pending` waits the interval; `slow_down` lengthens it by five seconds
    /// for every later poll.
    public func waitForApproval(
        of authorization: DeviceAuthorization, scopes: [String],
        now: @Sendable () -> Date = { Date() }
    ) async throws(GoogleError) -> GoogleToken {
        var interval = authorization.interval
        let started = ContinuousClock.now
        while true {
            do { try await sleep(interval) } catch { throw .signInFailed("cancelled") }
            let response = try await http.postForm(
                endpoints.oauth + "/token",
                [
                    ("client_id", client.id), ("client_secret", client.secret), ("device_code", authorization.deviceCode),
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ], service: Self.service)
            if response.status == 200 {
                return try response.decoded(TokenResponse.self, service: Self.service).token(at: now(), requested: scopes)
            }
            switch (try? JSONDecoder().decode(TokenErrorResponse.self, from: response.body))?.error {
            case "authorization_pending":
                if ContinuousClock.now - started > authorization.expiresIn + .seconds(30) { throw .codeExpired }
            case "slow_down":
                interval += slowDownStep
            case "access_denied":
                throw .accessDenied
            case "expired_token":
                throw .codeExpired
            default:
                throw tokenError(response)
            }
        }
    }

    // MARK: Loopback flow

    /// The consent page's address for a loopback sign-in: the browser comes back to
    /// `redirectURI` with `code` and `state` (PKCE S256, RFC 7636).
    public func authorizationURL(scopes: [String], redirectURI: String, state: String, verifier: PKCEVerifier) -> String {
        FormEncoding.url(
            endpoints.consent,
            [
                ("client_id", client.id), ("redirect_uri", redirectURI), ("response_type", "code"),
                ("scope", scopes.joined(separator: " ")), ("code_challenge", verifier.challenge),
                ("code_challenge_method", "S256"), ("state", state), ("access_type", "offline"), ("prompt", "consent"),
            ])
    }

    /// Exchanges the code the browser brought back for a token.
    public func exchange(
        code: String, verifier: PKCEVerifier, redirectURI: String, scopes: [String],
        now: Date = Date()
    ) async throws(GoogleError) -> GoogleToken {
        let response = try await http.postForm(
            endpoints.oauth + "/token",
            [
                ("client_id", client.id), ("client_secret", client.secret), ("code", code),
                ("code_verifier", verifier.value), ("grant_type", "authorization_code"), ("redirect_uri", redirectURI),
            ], service: Self.service)
        guard response.status == 200 else { throw tokenError(response) }
        return try response.decoded(TokenResponse.self, service: Self.service).token(at: now, requested: scopes)
    }

    // MARK: Refresh and revoke

    /// A new access token for `token` (`grant_type=refresh_token`); the refresh token is kept.
    /// A revoked or expired sign-in is ``GoogleError/signInExpired``.
    public func refreshed(_ token: GoogleToken, now: Date = Date()) async throws(GoogleError) -> GoogleToken {
        guard let refresh = token.refreshToken else { throw .signInExpired }
        let response = try await http.postForm(
            endpoints.oauth + "/token",
            [
                ("client_id", client.id), ("client_secret", client.secret), ("refresh_token", refresh),
                ("grant_type", "refresh_token"),
            ], service: Self.service)
        guard response.status == 200 else { throw tokenError(response) }
        return try response.decoded(TokenResponse.self, service: Self.service).token(at: now, previous: token, requested: token.scopes)
    }

    /// Revokes the sign-in at Google (the refresh token, which ends its access tokens too).
    /// A token Google no longer knows counts as revoked.
    public func revoke(_ token: GoogleToken) async throws(GoogleError) {
        let response = try await http.postForm(
            endpoints.oauth + "/revoke", [("token", token.refreshToken ?? token.accessToken)],
            service: Self.service)
        guard response.status == 200 || response.status == 400 else { throw tokenError(response) }
    }

    /// The token endpoint's error as a ``GoogleError``; its body never holds our tokens.
    private func tokenError(_ response: GoogleResponse) -> GoogleError {
        let body = try? JSONDecoder().decode(TokenErrorResponse.self, from: response.body)
        switch body?.error {
        case "invalid_grant": return .signInExpired
        case "invalid_client", "unauthorized_client": return .invalidClient(body?.errorDescription ?? body?.error ?? "")
        case "access_denied": return .accessDenied
        case let error?: return .signInFailed([error, body?.errorDescription].compactMap { $0 }.joined(separator: ": "))
        case nil: return .service(name: Self.service, status: response.status, reason: nil, message: response.apiError.message)
        }
    }
}

/// A PKCE code verifier (RFC 7636): 43–128 unreserved characters, and its S256 challenge.
public struct PKCEVerifier: Sendable, Equatable {
    /// The verifier, sent with the code exchange.
    public let value: String

    /// A random verifier of 64 characters.
    public init() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var generator = SystemRandomNumberGenerator()
        value = String((0..<64).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// A given verifier (tests).
    public init(value: String) {
        self.value = value
    }

    /// `BASE64URL(SHA256(verifier))`, unpadded.
    public var challenge: String {
        Base64URL.encode(Data(SHA256.hash(data: Data(value.utf8))))
    }
}

/// Base64url (RFC 4648 §5) without padding, as Google's APIs use it.
public enum Base64URL {
    /// Encodes without padding.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes, padded or not; `nil` when it is not base64url.
    public static func decode(_ text: String) -> Data? {
        var standard = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.replacingOccurrences(of: "=", with: "")
        let remainder = standard.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: standard)
    }
}
