/// Why a Google sign-in or sync step failed, in one sentence that says what to do. No token,
/// code or secret ever appears in one.
public enum GoogleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No OAuth client is configured.
    case notConfigured
    /// No one has signed in yet (or the sign-in was removed).
    case notSignedIn
    /// Google refuses the saved sign-in: it was revoked, or it expired.
    case signInExpired
    /// The person refused access on the consent screen.
    case accessDenied
    /// The code shown to the person expired before they approved it.
    case codeExpired
    /// Google does not know the OAuth client, or its secret is wrong.
    case invalidClient(String)
    /// The loopback sign-in got an answer that is not the one it waited for.
    case signInFailed(String)
    /// A service answered with an error.
    case service(name: String, status: Int, reason: String?, message: String)
    /// A service kept answering that the rate limit was reached.
    case rateLimited(name: String, attempts: Int)
    /// The service could not be reached, or the connection failed.
    case unreachable(name: String, reason: String)
    /// The service answered with something that is not its documented format.
    case malformed(name: String, reason: String)
    /// A file is larger than Parley reads.
    case tooLarge(name: String, limit: Int)

    public var description: String {
        switch self {
        case .notConfigured:
            return "No Google OAuth client is set: create one (type Desktop app) in a Google Cloud project and set "
                + "GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET."
        case .notSignedIn:
            return "Not signed in to Google: run parley google auth first."
        case .signInExpired:
            return "Google no longer accepts the saved sign-in (it was revoked or has expired): run parley google auth again."
        case .accessDenied:
            return "Access was refused on Google's consent screen; run parley google auth again and allow read-only access."
        case .codeExpired:
            return "The sign-in code expired before it was approved; run parley google auth again and approve it sooner."
        case .invalidClient(let reason):
            return "Google refused the OAuth client (\(reason)); check GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET."
        case .signInFailed(let reason):
            return "The Google sign-in did not complete (\(reason)); run parley google auth again."
        case .service(let name, let status, let reason, let message):
            let why = reason.map { "\(status) \($0)" } ?? "\(status)"
            var advice = ""
            if status == 403, reason == "insufficientPermissions" || reason == "ACCESS_TOKEN_SCOPE_INSUFFICIENT" {
                advice = "; run parley google auth again to grant read-only access"
            } else if status == 404 {
                advice = "; check the id"
            }
            return "\(name) refused the request (\(why)): \(message)\(advice)."
        case .rateLimited(let name, let attempts):
            return "\(name) kept answering that its rate limit was reached (\(attempts) attempts); try again in a few minutes."
        case .unreachable(let name, let reason):
            return "\(name) could not be reached (\(reason)); check the network connection."
        case .malformed(let name, let reason):
            return "\(name) answered in an unexpected format (\(reason))."
        case .tooLarge(let name, let limit):
            return "\(name) is larger than \(limit / 1_000_000) MB, the most Parley reads; it was skipped."
        }
    }
}
