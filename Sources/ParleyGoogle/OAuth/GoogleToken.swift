import Foundation

/// A Google sign-in: the access token the APIs take, and the refresh token that renews it.
/// Its description shows neither.
public struct GoogleToken: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The bearer token for API requests.
    public var accessToken: String
    /// The token that gets new access tokens; Google sends it once, with the first one.
    public var refreshToken: String?
    /// When the access token stops working.
    public var expiresAt: Date
    /// The scopes granted.
    public var scopes: [String]

    /// Creates a token value.
    public init(accessToken: String, refreshToken: String?, expiresAt: Date, scopes: [String]) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scopes = scopes
    }

    /// Whether the access token expires within `margin` of `now`, so it should be renewed first.
    public func expires(within margin: TimeInterval = 60, of now: Date = Date()) -> Bool {
        expiresAt.timeIntervalSince(now) <= margin
    }

    public var description: String {
        "Google sign-in (\(scopes.count) scope\(scopes.count == 1 ? "" : "s"), access until \(expiresAt))"
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case scopes
    }
}

/// The token endpoint's answer (RFC 6749 §5.1).
struct TokenResponse: Decodable {
    var accessToken: String
    var expiresIn: Double?
    var refreshToken: String?
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
    }

    /// The token it grants at `now`; a refresh keeps `previous`'s refresh token when Google
    /// sends none.
    func token(at now: Date, previous: GoogleToken? = nil, requested: [String]) -> GoogleToken {
        let scopes = scope.map { $0.split(separator: " ").map(String.init) } ?? previous?.scopes ?? requested
        return GoogleToken(
            accessToken: accessToken, refreshToken: refreshToken ?? previous?.refreshToken,
            expiresAt: now.addingTimeInterval(expiresIn ?? 3600), scopes: scopes)
    }
}

/// The token endpoint's error (RFC 6749 §5.2, RFC 8628 §3.5).
struct TokenErrorResponse: Decodable {
    var error: String
    var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
