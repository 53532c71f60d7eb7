import AsyncHTTPClient
import Foundation
import ParleyGoogle
import ParleyStore
import ParleyTestServers
import Testing

/// Sign-in against a local server that speaks Google's OAuth 2.0 endpoints: the device flow
/// (pending, slow_down, success, denied, expired), the loopback flow with PKCE, refresh and
/// revoke.
@Suite struct GoogleOAuthTests {
    @Test func deviceFlowWaitsThroughPendingAndSlowsDownWhenAsked() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.setDeviceInterval(1)
        await google.server.setDeviceFlow(pendingPolls: 3, slowDownAtPoll: 2, outcome: .approve)
        let authorization = try await google.oauth.startDeviceAuthorization(scopes: GoogleScope.all)
        #expect(!authorization.userCode.isEmpty)
        #expect(authorization.verificationURL.hasPrefix("http"))
        #expect(authorization.interval == .seconds(1))

        let token = try await google.oauth.waitForApproval(of: authorization, scopes: GoogleScope.all)
        #expect(token.refreshToken != nil)
        #expect(token.expiresAt > Date())
        let polls = await google.requests("/token")
        // Pending, slow_down, pending, pending, then the token: five polls, each after a wait;
        // from the slow_down on, the wait is five seconds longer (RFC 8628 §3.5).
        #expect(polls.count == 5)
        #expect(google.sleeps.all == [.seconds(1), .seconds(1), .seconds(6), .seconds(6), .seconds(6)])
        for poll in polls {
            let form = String(decoding: poll.body, as: UTF8.self)
            #expect(form.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"))
            #expect(form.contains("client_secret="))
        }
    }

    @Test func deviceFlowRefusedOrExpiredSaysSoInOneSentence() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.setDeviceFlow(pendingPolls: 1, outcome: .deny)
        let denied = try await google.oauth.startDeviceAuthorization(scopes: GoogleScope.all)
        await #expect(throws: GoogleError.accessDenied) { try await google.oauth.waitForApproval(of: denied, scopes: GoogleScope.all) }

        await google.server.setDeviceFlow(pendingPolls: 0, outcome: .expire)
        let expired = try await google.oauth.startDeviceAuthorization(scopes: GoogleScope.all)
        await #expect(throws: GoogleError.codeExpired) { try await google.oauth.waitForApproval(of: expired, scopes: GoogleScope.all) }
        #expect(GoogleError.codeExpired.description.contains("parley google auth"))
    }

    @Test func aWrongClientSecretIsNamed() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        let wrong = GoogleOAuth(
            client: GoogleClient(id: google.client.id, secret: "not-the-secret"), endpoints: google.endpoints,
            sleep: { _ in })
        let authorization = try await wrong.startDeviceAuthorization(scopes: GoogleScope.all)
        let error = await #expect(throws: GoogleError.self) {
            try await wrong.waitForApproval(of: authorization, scopes: GoogleScope.all)
        }
        guard case .invalidClient? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(error?.description.contains("not-the-secret") == false)
        #expect(error?.description.contains("GOOGLE_CLIENT_SECRET") == true)
    }

    @Test func loopbackFlowBringsTheCodeBackWithPKCE() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        let redirect = try await LoopbackRedirect.start()
        let verifier = PKCEVerifier()
        let url = google.oauth.authorizationURL(scopes: GoogleScope.all, redirectURI: redirect.redirectURI, state: "state-123", verifier: verifier)
        #expect(url.contains("code_challenge=\(verifier.challenge)"))
        #expect(url.contains("code_challenge_method=S256"))
        #expect(!url.contains(verifier.value))

        // The browser: the consent page redirects to the loopback address.
        let code = Task { try await redirect.code(expecting: "state-123", timeout: .seconds(20)) }
        let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(20))
        _ = try await page.body.collect(upTo: 1 << 20)
        let received = try await code.value
        await redirect.close()
        let token = try await google.oauth.exchange(code: received, verifier: verifier, redirectURI: redirect.redirectURI, scopes: GoogleScope.all)
        #expect(token.refreshToken != nil)
        #expect(Set(token.scopes) == Set(GoogleScope.all))

        // The same code, or the right code with another verifier, is refused.
        await #expect(throws: GoogleError.self) {
            try await google.oauth.exchange(code: received, verifier: verifier, redirectURI: redirect.redirectURI, scopes: GoogleScope.all)
        }
    }

    @Test func loopbackFlowRefusedOrForgedIsAnError() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.setConsent(approve: false)
        let redirect = try await LoopbackRedirect.start()
        let url = google.oauth.authorizationURL(scopes: GoogleScope.all, redirectURI: redirect.redirectURI, state: "s1", verifier: PKCEVerifier())
        let code = Task { try await redirect.code(expecting: "s1", timeout: .seconds(20)) }
        _ = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(20)).body.collect(upTo: 1 << 20)
        await #expect(throws: GoogleError.accessDenied) { try await code.value }
        await redirect.close()

        let forged = try await LoopbackRedirect.start()
        let other = Task { try await forged.code(expecting: "expected-state", timeout: .seconds(20)) }
        _ = try await HTTPClient.shared.execute(HTTPClientRequest(url: forged.redirectURI + "/?code=abc&state=another"), timeout: .seconds(20))
            .body.collect(upTo: 1 << 20)
        await #expect(throws: GoogleError.self) { try await other.value }
        await forged.close()
    }

    @Test func anExpiredAccessTokenIsRenewedOnceAndKept() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        let (session, token) = try await google.signedInSession()
        await google.server.addDriveFile(.init(id: "f1", name: "notes.txt", mimeType: "text/plain", parents: ["folder"], content: Data("Notes".utf8)))
        await google.server.expireAccessTokens()

        let files = try await DriveAPI(session: session, endpoints: google.endpoints).files(inFolder: "folder")
        #expect(files.map(\.id) == ["f1"])
        let kept = try #require(try await StoreTokenKeeper(store: google.store).load())
        #expect(kept.accessToken != token.accessToken)
        #expect(kept.refreshToken == token.refreshToken)
        #expect(await google.requests("/token").count == 1)

        // A token that expires within a minute is renewed before the request is sent.
        let issued = await google.server.issueTokens()
        let soon = GoogleToken(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: Date().addingTimeInterval(30), scopes: GoogleScope.all)
        let other = google.session(owner: .key("second"))
        try await other.signIn(soon)
        let before = await google.server.requests().count
        _ = try await DriveAPI(session: other, endpoints: google.endpoints).files(inFolder: "folder")
        let sent = await google.server.requests().dropFirst(before)
        #expect(sent.map(\.path) == ["/token", "/drive/v3/files"])
        #expect(sent.last?.headers["authorization"] != "Bearer \(issued.accessToken)")
        #expect(try await StoreTokenKeeper(store: google.store, owner: .key("second")).load()?.expiresAt ?? .distantPast > Date().addingTimeInterval(600))
    }

    @Test func aRevokedSignInAsksToSignInAgainAndShowsNoToken() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        let (session, token) = try await google.signedInSession()
        try await session.signOut()
        #expect(await google.server.revokedTokens() == [try #require(token.refreshToken)])
        #expect(try await StoreTokenKeeper(store: google.store).load() == nil)
        await #expect(throws: GoogleError.notSignedIn) {
            try await DriveAPI(session: session, endpoints: google.endpoints).files(inFolder: "folder")
        }

        // Signed in again with a refresh token the server then forgets: 401, renewal refused.
        let (second, secondToken) = try await google.signedInSession()
        try await google.oauth.revoke(secondToken)
        let error = await #expect(throws: GoogleError.self) {
            try await DriveAPI(session: second, endpoints: google.endpoints).files(inFolder: "folder")
        }
        #expect(error == .signInExpired)
        #expect(error?.description.contains("parley google auth") == true)
        for secret in [secondToken.accessToken, secondToken.refreshToken ?? "", google.client.secret] {
            #expect(error?.description.contains(secret) == false)
        }
        for line in google.logs.all {
            for secret in [token.accessToken, token.refreshToken ?? "", secondToken.accessToken, secondToken.refreshToken ?? "", google.client.secret] {
                #expect(!line.contains(secret), "a log line shows a secret: \(line)")
            }
        }
    }
}
