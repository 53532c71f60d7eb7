import Foundation

/// Google's OAuth 2.0 endpoints: `POST /device/code`, `POST /token` (device code, refresh
/// token, authorization code with PKCE), `POST /revoke`, and a stand-in for the consent page
/// (`GET /o/oauth2/v2/auth`) that redirects straight back.
extension GoogleState {
    // MARK: Test controls

    func expireAccessTokens() {
        for token in accessTokens.keys { accessTokens[token]?.forcedExpired = true }
    }

    func acceptAuthorizationCode(_ code: String, challenge: String?, scope: String?) {
        authorizationCodes[code] = AuthorizationCode(
            challenge: challenge, challengeMethod: "S256", redirectURI: nil,
            scope: scope ?? Self.readOnlyScopes, clientId: nil)
    }

    func issueTokens(scope: String?) -> (accessToken: String, refreshToken: String) {
        issueGrant(scope: scope ?? Self.readOnlyScopes, clientId: nil)
    }

    // MARK: Endpoints

    /// `POST /device/code` (form `client_id`, `scope`).
    func deviceCode(_ request: WireServer.Recorded) throws(GoogleRejection) -> GoogleReply {
        let form = Self.form(request)
        guard let clientId = form.nonEmpty("client_id") else {
            return GoogleWire.oauthError(400, "invalid_request", "Missing required parameter: client_id")
        }
        if let client, client.id != clientId {
            return GoogleWire.oauthError(401, "invalid_client", "The OAuth client was not found.")
        }
        guard let scope = form.nonEmpty("scope") else {
            return GoogleWire.oauthError(400, "invalid_request", "Missing required parameter: scope")
        }
        let number = nextNumber()
        let deviceCode = "AH-1Ng\(number)" + Self.randomText(40)
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        let userCode = String((0..<4).map { _ in letters.randomElement()! }) + "-" + String((0..<4).map { _ in letters.randomElement()! })
        devices[deviceCode] = DeviceSession(
            clientId: clientId, scope: scope, pendingPolls: devicePlan.pendingPolls,
            slowDownAtPoll: devicePlan.slowDownAtPoll, outcome: devicePlan.outcome)
        return GoogleWire.json(
            200,
            [
                "device_code": deviceCode, "user_code": userCode, "verification_url": "https://www.google.com/device",
                "expires_in": 1800, "interval": deviceInterval,
            ])
    }

    /// `POST /token`.
    func token(_ request: WireServer.Recorded) throws(GoogleRejection) -> GoogleReply {
        let form = Self.form(request)
        let credentials = Self.clientCredentials(request, form: form)
        guard let clientId = credentials.id else {
            return GoogleWire.oauthError(400, "invalid_request", "Could not determine client ID from request.")
        }
        if let client {
            guard client.id == clientId else { return GoogleWire.oauthError(401, "invalid_client", "The OAuth client was not found.") }
            guard client.secret == credentials.secret else { return GoogleWire.oauthError(401, "invalid_client", "Unauthorized") }
        }
        switch form["grant_type"] ?? "" {
        case "urn:ietf:params:oauth:grant-type:device_code": return pollDevice(form, clientId: clientId)
        case "refresh_token": return refresh(form, clientId: clientId)
        case "authorization_code": return exchangeCode(form, clientId: clientId)
        case let other: return GoogleWire.oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(other)")
        }
    }

    private func pollDevice(_ form: GoogleParameters, clientId: String) -> GoogleReply {
        guard let code = form.nonEmpty("device_code"), var session = devices[code], session.clientId == clientId else {
            return GoogleWire.oauthError(400, "invalid_grant", "Malformed auth code.")
        }
        guard !session.finished else { return GoogleWire.oauthError(400, "invalid_grant", "Bad Request") }
        session.polls += 1
        defer { devices[code] = session }
        let poll = session.polls
        if let slowDown = session.slowDownAtPoll {
            if poll == slowDown { return GoogleWire.oauthError(403, "slow_down", "Forbidden") }
        }
        let counted = poll - ((session.slowDownAtPoll.map { $0 < poll } ?? false) ? 1 : 0)
        if counted <= session.pendingPolls {
            return GoogleWire.oauthError(428, "authorization_pending", "Precondition Required")
        }
        switch session.outcome {
        case .approve:
            session.finished = true
            let tokens = issueGrant(scope: session.scope, clientId: clientId)
            return tokenReply(access: tokens.accessToken, refresh: tokens.refreshToken, scope: session.scope)
        case .deny:
            return GoogleWire.oauthError(403, "access_denied", "Forbidden")
        case .expire:
            return GoogleWire.oauthError(400, "expired_token", "Expired")
        }
    }

    private func refresh(_ form: GoogleParameters, clientId: String) -> GoogleReply {
        guard let refreshToken = form.nonEmpty("refresh_token"), let grant = refreshIndex[refreshToken], !grants[grant].revoked else {
            return GoogleWire.oauthError(400, "invalid_grant", "Token has been expired or revoked.")
        }
        if let owner = grants[grant].clientId, owner != clientId {
            return GoogleWire.oauthError(401, "unauthorized_client", "Unauthorized")
        }
        let access = issueAccessToken(grant: grant)
        return tokenReply(access: access, refresh: nil, scope: grants[grant].scope)
    }

    private func exchangeCode(_ form: GoogleParameters, clientId: String) -> GoogleReply {
        guard let code = form.nonEmpty("code"), var entry = authorizationCodes[code], !entry.used else {
            return GoogleWire.oauthError(400, "invalid_grant", "Malformed auth code.")
        }
        if let owner = entry.clientId, owner != clientId {
            return GoogleWire.oauthError(400, "invalid_grant", "Bad Request")
        }
        if let bound = entry.redirectURI, form["redirect_uri"] != bound {
            return GoogleWire.oauthError(400, "redirect_uri_mismatch", "Bad Request")
        }
        if let challenge = entry.challenge {
            guard let verifier = form.nonEmpty("code_verifier") else {
                return GoogleWire.oauthError(400, "invalid_grant", "Missing code verifier.")
            }
            let derived = entry.challengeMethod == "plain" ? verifier : GoogleWire.base64URL(Data(GoogleDigest.sha256(Data(verifier.utf8))))
            guard derived == challenge else { return GoogleWire.oauthError(400, "invalid_grant", "Invalid code verifier.") }
        }
        entry.used = true
        authorizationCodes[code] = entry
        let tokens = issueGrant(scope: entry.scope, clientId: clientId)
        return tokenReply(access: tokens.accessToken, refresh: tokens.refreshToken, scope: entry.scope)
    }

    /// `POST /revoke` (`token` in the form or the query): an access token or a refresh token;
    /// either ends the whole grant.
    func revoke(_ request: WireServer.Recorded, query: GoogleParameters) -> GoogleReply {
        guard let token = Self.form(request).nonEmpty("token") ?? query.nonEmpty("token") else {
            return GoogleWire.oauthError(400, "invalid_request", "Missing required parameter: token")
        }
        let grant: Int?
        if let index = refreshIndex[token] {
            grant = index
        } else if let access = accessTokens[token], !access.forcedExpired, access.expiresAt > Date() {
            grant = access.grant
        } else {
            grant = nil
        }
        guard let grant, !grants[grant].revoked else {
            return GoogleWire.oauthError(400, "invalid_token", "Token expired or revoked")
        }
        grants[grant].revoked = true
        noteRevoked(token)
        return GoogleWire.json(200, [String: Any]())
    }

    /// `GET /o/oauth2/v2/auth`: the consent page's stand-in. Approves (or refuses, as the test
    /// set) at once and redirects to `redirect_uri` with `code` (or `error`) and `state`.
    func consent(_ query: GoogleParameters) -> GoogleReply {
        if let client, query["client_id"] != client.id {
            return Self.page(401, "Error 401: invalid_client. The OAuth client was not found.")
        }
        guard let redirect = query.nonEmpty("redirect_uri") else {
            return Self.page(400, "Error 400: invalid_request. Missing required parameter: redirect_uri")
        }
        var parameters: [(String, String)] = []
        if let state = query["state"] { parameters.append(("state", state)) }
        if query["response_type"] != "code" {
            parameters.append(("error", "unsupported_response_type"))
        } else if !consentApproves {
            parameters.append(("error", "access_denied"))
        } else {
            let code = "4/0Atest\(nextNumber())" + Self.randomText(24)
            let scope = query.nonEmpty("scope") ?? Self.readOnlyScopes
            let challenge = query.nonEmpty("code_challenge")
            authorizationCodes[code] = AuthorizationCode(
                challenge: challenge, challengeMethod: query.nonEmpty("code_challenge_method") ?? "plain",
                redirectURI: redirect, scope: scope, clientId: query["client_id"])
            parameters += [("code", code), ("scope", scope)]
        }
        let location =
            redirect + (redirect.contains("?") ? "&" : "?")
            + parameters.map { "\($0.0)=\(GoogleWire.escape($0.1))" }.joined(separator: "&")
        return GoogleReply(
            status: 302, contentType: "text/html; charset=UTF-8",
            body: Data("<a href=\"\(location)\">Continue</a>".utf8), headers: ["Location": location])
    }

    // MARK: Tokens

    private func issueGrant(scope: String, clientId: String?) -> (accessToken: String, refreshToken: String) {
        let refreshToken = "1//test-refresh-\(nextNumber())-" + Self.randomText(32)
        grants.append(Grant(refreshToken: refreshToken, scope: scope, clientId: clientId))
        refreshIndex[refreshToken] = grants.count - 1
        return (issueAccessToken(grant: grants.count - 1), refreshToken)
    }

    private func issueAccessToken(grant: Int) -> String {
        let token = "ya29.test-\(nextNumber())-" + Self.randomText(40)
        accessTokens[token] = AccessToken(grant: grant, expiresAt: Date().addingTimeInterval(TimeInterval(tokenLifetime)))
        return token
    }

    private func tokenReply(access: String, refresh: String?, scope: String) -> GoogleReply {
        var body: [String: Any] = ["access_token": access, "expires_in": tokenLifetime, "scope": scope, "token_type": "Bearer"]
        if let refresh { body["refresh_token"] = refresh }
        return GoogleWire.json(200, body, headers: ["Cache-Control": "no-store"])
    }

    // MARK: Helpers

    static func form(_ request: WireServer.Recorded) -> GoogleParameters {
        GoogleParameters(String(decoding: request.body, as: UTF8.self))
    }

    /// The client id and secret from the form, or from HTTP Basic authentication.
    private static func clientCredentials(_ request: WireServer.Recorded, form: GoogleParameters) -> (id: String?, secret: String?) {
        if let id = form.nonEmpty("client_id") { return (id, form["client_secret"]) }
        let header = request.headers["authorization"] ?? ""
        let parts = header.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        {
            let id = String(text[..<colon]).removingPercentEncoding
            let secret = String(text[text.index(after: colon)...]).removingPercentEncoding
            return (id, secret)
        }
        return (nil, nil)
    }

    private static func page(_ status: Int, _ text: String) -> GoogleReply {
        GoogleReply(status: status, contentType: "text/html; charset=UTF-8", body: Data("<html><body>\(text)</body></html>".utf8))
    }

    static func randomText(_ length: Int) -> String {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<length).map { _ in characters.randomElement()! })
    }
}
