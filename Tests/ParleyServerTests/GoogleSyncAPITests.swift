import Foundation
import ParleyGoogle
import ParleyServer
import ParleyStore
import ParleyTestServers
import Testing

/// Materials, assignments and Google sync over HTTP, against a local server that speaks
/// Google's wire formats: per-key sign-ins and isolation, errors in OpenAI's shape, and the
/// server's own schedule.
@Suite("Google sync and materials over HTTP")
struct GoogleSyncAPITests {
    static func settings(_ google: GoogleServer, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "GOOGLE_CLIENT_ID": "server.apps.googleusercontent.com", "GOOGLE_CLIENT_SECRET": "server-secret",
            "GOOGLE_API_BASE_URL": google.baseURL, "GOOGLE_OAUTH_BASE_URL": google.baseURL,
            "PARLEY_GOOGLE_SYNC_INTERVAL": "0",
        ].merging(extra) { $1 }
    }

    static func signIn(_ server: TestServer, _ google: GoogleServer, owner: Owner) async throws {
        let issued = await google.issueTokens()
        let token = GoogleToken(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: Date().addingTimeInterval(3600), scopes: GoogleScope.all)
        try await StoreTokenKeeper(store: try await server.runtime.store(), owner: owner).save(token)
    }

    static func seed(_ google: GoogleServer) async {
        await google.addDriveFile(
            .init(
                id: "doc1", name: "Volcanoes", mimeType: "application/vnd.google-apps.document",
                parents: ["f1"], content: Data("Magma rises through the crust.".utf8)))
        await google.addEvent(calendar: "primary", .init(id: "e1", summary: "Volcano poster", start: .date("2099-03-02"), end: .date("2099-03-03")))
        await google.addMessage(
            .init(
                id: "m1", from: "Ms Rossi <rossi@school.example>", subject: "Lab report",
                date: "Tue, 17 Nov 2099 09:15:00 +0100", plainText: "The lab report is due 2099-03-05 at 17:00.", html: nil))
    }

    @Test("each key syncs its own sign-in and sees only its own materials and assignments")
    func perKey() async throws {
        let google = try await GoogleServer.start()
        let server = try await TestServer.scripted(settings: Self.settings(google, ["PARLEY_API_KEYS": "key-one,key-two"]))
        defer { server.stop() }
        let one = [("authorization", "Bearer key-one")], two = [("authorization", "Bearer key-two")]

        let before = try await server.send(.GET, "/v1/google/sync", headers: one)
        #expect(before.status == 200)
        #expect(before.json?["configured"] as? Bool == true && before.json?["signed_in"] as? Bool == false)
        let notSignedIn = try await server.post("/v1/google/sync", json: ["calendar": "primary"], headers: one)
        #expect(notSignedIn.status == 400)
        #expect(notSignedIn.error?["code"] as? String == "google_not_signed_in")

        try await Self.signIn(server, google, owner: .apiKey("key-one"))
        await Self.seed(google)
        let synced = try await server.post(
            "/v1/google/sync", json: ["drive": "f1", "calendar": "primary", "gmail": "from:school.example"],
            headers: one)
        #expect(synced.status == 200, "\(synced.text)")
        let report = try #require(synced.json)
        #expect((report["drive"] as? [String: Any])?["added"] as? Int == 1)
        #expect((report["calendar"] as? [String: Any])?["added"] as? Int == 1)
        #expect((report["gmail"] as? [String: Any])?["added"] as? Int == 1)

        let assignments = try await server.send(.GET, "/v1/assignments", headers: one)
        let listed = try #require(assignments.json?["data"] as? [[String: Any]])
        #expect(listed.map { $0["due_day"] as? String } == ["2099-03-02", "2099-03-05"])
        #expect(listed.map { $0["title"] as? String } == ["Volcano poster", "Lab report"])
        let later = try await server.send(.GET, "/v1/assignments?from=2099-03-03", headers: one)
        #expect((later.json?["data"] as? [[String: Any]])?.count == 1)
        let badDay = try await server.send(.GET, "/v1/assignments?from=March", headers: one)
        #expect(badDay.status == 400 && badDay.error?["param"] as? String == "from")
        #expect((try await server.send(.GET, "/v1/assignments", headers: two).json?["data"] as? [Any])?.isEmpty == true)

        let materials = try await server.send(.GET, "/v1/materials", headers: one)
        let material = try #require((materials.json?["data"] as? [[String: Any]])?.first)
        #expect(material["origin"] as? String == "drive:doc1" && material["text"] == nil && material["characters"] as? Int == 30)
        let id = try #require(material["id"] as? Int)
        let shown = try await server.send(.GET, "/v1/materials/\(id)", headers: one)
        #expect(shown.json?["text"] as? String == "Magma rises through the crust.")
        let hidden = try await server.send(.GET, "/v1/materials/\(id)", headers: two)
        #expect(hidden.status == 404 && hidden.error?["code"] as? String == "material_not_found")
        #expect(try await server.send(.DELETE, "/v1/materials/\(id)", headers: two).status == 404)
        let status = try await server.send(.GET, "/v1/google/sync", headers: one)
        #expect(status.json?["signed_in"] as? Bool == true)
        #expect(((status.json?["last"] as? [String: Any])?["report"] as? [String: Any])?["drive"] != nil)
        #expect(try await server.send(.GET, "/v1/google/sync", headers: two).json?["signed_in"] as? Bool == false)
        #expect(try await server.send(.DELETE, "/v1/materials/\(id)", headers: one).json?["deleted"] as? Bool == true)

        let malformed = try await server.send(.POST, "/v1/google/sync", headers: one + [("content-type", "application/json")], body: Data("{drive".utf8))
        #expect(malformed.status == 400)
        #expect(try await server.send(.POST, "/v1/google/sync", headers: one).status == 400)  // nothing configured, nothing asked
        #expect(try await server.send(.GET, "/v1/assignments").status == 401)
    }

    @Test("the server syncs the machine's own sign-in on its schedule")
    func scheduled() async throws {
        let google = try await GoogleServer.start()
        await Self.seed(google)
        let server = try await TestServer.scripted(
            settings: Self.settings(
                google,
                [
                    "PARLEY_GOOGLE_SYNC_INTERVAL": "1", "PARLEY_GOOGLE_CALENDAR": "primary", "PARLEY_GOOGLE_DRIVE_FOLDER": "f1",
                ]))
        defer { server.stop() }
        try await Self.signIn(server, google, owner: .local)
        var titles: [String] = []
        for _ in 0..<40 where titles.isEmpty {
            try await Task.sleep(for: .milliseconds(250))
            titles = (try await server.send(.GET, "/v1/assignments").json?["data"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
        }
        #expect(titles == ["Volcano poster"])
        let materials = try await server.send(.GET, "/v1/materials").json?["data"] as? [[String: Any]]
        #expect(materials?.count == 1)
    }
}
