import Foundation
import ParleyStore
import ParleyTestServers
import Testing

/// `parley google` and `parley assignments` as a user runs them, against a local server that
/// speaks Google's OAuth, Drive, Calendar and Gmail wire formats.
@Suite("Google sync from the command line", .serialized)
struct GoogleCLITests {
    @Test("without an OAuth client, one sentence says what to set")
    func notConfigured() async throws {
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let result = try await CLI.run(
            ["google", "sync", "--drive", "folder"],
            environment: ["PARLEY_DATABASE": database.path, "GOOGLE_CLIENT_ID": "", "GOOGLE_CLIENT_SECRET": ""])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: No Google OAuth client is set: create one (type Desktop app) in a Google Cloud project and set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.\n"
        )
    }

    @Test("sign in with a device code, sync, list offline; no token is ever printed")
    func deviceSignInAndSync() async throws {
        let server = try await GoogleServer.start()
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let secret = "cli-client-secret-3141"
        await server.setClient(id: "cli.apps.googleusercontent.com", secret: secret)
        await server.setDeviceInterval(1)
        await server.setDeviceFlow(pendingPolls: 1, outcome: .approve)
        let env = [
            "PARLEY_DATABASE": database.path, "GOOGLE_CLIENT_ID": "cli.apps.googleusercontent.com", "GOOGLE_CLIENT_SECRET": secret,
            "GOOGLE_API_BASE_URL": server.baseURL, "GOOGLE_OAUTH_BASE_URL": server.baseURL,
        ]
        var outputs: [String] = []

        let notYet = try await CLI.run(["google", "sync", "--calendar", "primary"], environment: env)
        outputs += [notYet.stdout, notYet.stderr]
        #expect(notYet.status == 1)
        #expect(notYet.stderr == "error: Not signed in to Google: run parley google auth first.\n")

        let auth = try await CLI.run(["google", "auth", "--device"], environment: env)
        outputs += [auth.stdout, auth.stderr]
        #expect(auth.status == 0, "\(auth.stderr)")
        #expect(auth.stdout.contains("enter the code"))
        #expect(auth.stdout.contains("Signed in to Google (drive.readonly, calendar.readonly, gmail.readonly)"))
        // The database holding the sign-in is readable by its owner only.
        let mode = try FileManager.default.attributesOfItem(atPath: database.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        await server.addDriveFile(
            .init(
                id: "doc1", name: "Volcanoes", mimeType: "application/vnd.google-apps.document",
                parents: ["f1"], content: Data("Magma rises through the crust.".utf8)))
        await server.addEvent(calendar: "primary", .init(id: "e1", summary: "Volcano poster", start: .date("2099-03-02"), end: .date("2099-03-03")))
        await server.addMessage(
            .init(
                id: "m1", from: "Ms Rossi <rossi@school.example>", subject: "Lab report",
                date: "Tue, 17 Nov 2099 09:15:00 +0100", plainText: "The lab report is due 2099-03-05 at 17:00.", html: nil))
        let sync = try await CLI.run(
            ["google", "sync", "--drive", "f1", "--calendar", "primary", "--gmail", "from:school.example", "--no-model", "--verbose"],
            environment: env)
        outputs += [sync.stdout, sync.stderr]
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Drive (f1): full sync, 1 fetched, 1 material(s) added"))
        #expect(sync.stdout.contains("Calendar (primary): full sync, 1 fetched, 1 assignment(s) added"))
        #expect(sync.stdout.contains("Gmail (from:school.example): full sync, 1 fetched, 1 assignment(s) added"))
        #expect(sync.stderr.contains("drive [1/1] Volcanoes"))

        let again = try await CLI.run(
            ["google", "sync", "--drive", "f1", "--calendar", "primary", "--gmail", "from:school.example", "--no-model"], environment: env)
        outputs += [again.stdout, again.stderr]
        #expect(again.stdout.contains("Drive (f1): incremental, 0 fetched"))
        #expect(again.stdout.contains("Gmail (from:school.example): incremental, 0 fetched"))

        // Offline: Google is gone (nothing listens at its address), what was synced is still listed.
        await server.stop()
        let gone = RefusingPort.baseURL()
        let offlineEnv = env.merging(["GOOGLE_API_BASE_URL": gone, "GOOGLE_OAUTH_BASE_URL": gone]) { $1 }
        let list = try await CLI.run(["assignments", "list", "--json"], environment: offlineEnv)
        outputs += [list.stdout, list.stderr]
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: [[String: Any]]])
        let assignments = try #require(listed["assignments"])
        #expect(assignments.map { $0["due_day"] as? String } == ["2099-03-02", "2099-03-05"])
        #expect(assignments.map { $0["title"] as? String } == ["Volcano poster", "Lab report"])
        let materials = try await CLI.run(["materials", "list"], environment: offlineEnv)
        #expect(materials.stdout.contains("Volcanoes"))
        let failed = try await CLI.run(["google", "sync", "--drive", "f1"], environment: offlineEnv)
        outputs += [failed.stdout, failed.stderr]
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("Drive (f1): failed: Google Drive could not be reached"))

        // No token or secret in anything printed, logs included.
        let store = try ConversationStore(path: database)
        let token = try #require(try store.syncState("google.token", owner: .local))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(token.utf8)) as? [String: Any])
        let secrets = [object["access_token"] as? String, object["refresh_token"] as? String, secret].compactMap { $0 }
        #expect(secrets.count == 3)
        for output in outputs {
            for value in secrets { #expect(!output.contains(value), "printed a secret: \(output)") }
        }
    }
}
