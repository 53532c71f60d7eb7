/// Where Google's services are reached. Tests point these at a local server that speaks
/// Google's documented wire formats (`GOOGLE_API_BASE_URL`, `GOOGLE_OAUTH_BASE_URL`).
public struct GoogleEndpoints: Sendable, Equatable {
    /// The REST APIs: Drive at `/drive/v3`, Calendar at `/calendar/v3`, Gmail at `/gmail/v1`.
    public var api: String
    /// The OAuth 2.0 token endpoints: `/token`, `/device/code`, `/revoke`.
    public var oauth: String
    /// The consent page a browser opens for the loopback sign-in.
    public var consent: String

    /// Google's own addresses.
    public static let google = GoogleEndpoints(
        api: "https://www.googleapis.com", oauth: "https://oauth2.googleapis.com",
        consent: "https://accounts.google.com/o/oauth2/v2/auth")

    /// Creates endpoints; trailing slashes are dropped.
    public init(api: String, oauth: String, consent: String) {
        self.api = Self.trimmed(api)
        self.oauth = Self.trimmed(oauth)
        self.consent = consent
    }

    /// Google's addresses, with the API and OAuth bases replaced where `api` or `oauth` is
    /// given (the settings `GOOGLE_API_BASE_URL` and `GOOGLE_OAUTH_BASE_URL`).
    public static func overriding(api: String?, oauth: String?) -> GoogleEndpoints {
        var endpoints = google
        if let api, !api.isEmpty { endpoints.api = trimmed(api) }
        if let oauth, !oauth.isEmpty {
            endpoints.oauth = trimmed(oauth)
            // A local OAuth server stands in for the consent page too.
            endpoints.consent = trimmed(oauth) + "/o/oauth2/v2/auth"
        }
        return endpoints
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

/// The read-only scopes Parley asks for.
public enum GoogleScope {
    /// Read Drive files.
    public static let driveReadOnly = "https://www.googleapis.com/auth/drive.readonly"
    /// Read calendars.
    public static let calendarReadOnly = "https://www.googleapis.com/auth/calendar.readonly"
    /// Read mail.
    public static let gmailReadOnly = "https://www.googleapis.com/auth/gmail.readonly"
    /// All three.
    public static let all = [driveReadOnly, calendarReadOnly, gmailReadOnly]
}

/// An OAuth client of a Google Cloud project (`GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET`).
/// Its description never shows the secret.
public struct GoogleClient: Sendable, Equatable, CustomStringConvertible {
    /// The client id (public).
    public var id: String
    /// The client secret. Google documents it as not confidential for installed apps, but it
    /// is still kept out of logs.
    public var secret: String

    /// Creates a client.
    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }

    public var description: String { "Google OAuth client \(id)" }
}
