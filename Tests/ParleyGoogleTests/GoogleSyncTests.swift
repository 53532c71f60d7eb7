import Foundation
import ParleyGoogle
import ParleyStore
import ParleyTestServers
import Testing

/// Drive, Calendar and Gmail synced from a local server that speaks their documented wire
/// formats: paging, increments by page token, sync token and history id, full resyncs on
/// 410 and 404, rate limits, and what stays usable offline.
@Suite struct GoogleSyncTests {
    static let folder = "folder-1"

    static func file(_ id: String, _ name: String, _ mime: String, _ text: String) -> GoogleServer.DriveFile {
        GoogleServer.DriveFile(id: id, name: name, mimeType: mime, parents: [folder], content: Data(text.utf8))
    }

    @Test func driveFolderBecomesMaterialsThenOnlyChangesAreFetched() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.setDrivePageSize(2)
        await google.server.addDriveFile(
            Self.file(
                "doc1", "Water cycle", "application/vnd.google-apps.document",
                "Evaporation turns water into vapour.\nCondensation forms clouds."))
        await google.server.addDriveFile(Self.file("txt1", "vocabulary.txt", "text/plain", "precipitation: rain, snow, hail"))
        await google.server.addDriveFile(Self.file("md1", "plan.md", "text/markdown", "# Plan\n\n- read chapter 3"))
        await google.server.addDriveFile(Self.file("sheet1", "Grades", "application/vnd.google-apps.spreadsheet", "a,b"))
        await google.server.addDriveFile(
            GoogleServer.DriveFile(
                id: "elsewhere", name: "other.txt", mimeType: "text/plain",
                parents: ["another-folder"], content: Data("not ours".utf8)))
        let (session, _) = try await google.signedInSession()
        let sync = google.sync(session)

        let first = try await sync.run(GoogleSyncOptions(driveFolder: Self.folder))
        let drive = try #require(first.drive)
        #expect(drive.error == nil)
        #expect(drive.full)
        #expect(drive.added == 3)
        #expect(drive.skipped.count == 1 && drive.skipped[0].contains("spreadsheet"))
        var materials = try google.store.materials()
        #expect(Set(materials.compactMap(\.origin)) == ["drive:doc1", "drive:txt1", "drive:md1"])
        let doc = try #require(materials.first { $0.origin == "drive:doc1" })
        #expect(doc.text == "Evaporation turns water into vapour.\nCondensation forms clouds.")
        #expect(doc.title == "Water cycle")
        #expect(doc.readBy == "drive-export")
        #expect(materials.first { $0.origin == "drive:md1" }?.kind == "markdown")
        let firstTextID = try #require(materials.first { $0.origin == "drive:txt1" }?.id)
        // Three pages of two files at most; the Doc exported as text, the others downloaded.
        #expect(await google.requests("/drive/v3/files").filter { $0.query.contains("q=") }.count == 2)
        #expect(await google.requests("/drive/v3/files/doc1/export").count == 1)

        // Change one file, trash one, add one, and touch a file in another folder.
        await google.server.updateDriveFile(id: "txt1", content: Data("precipitation: rain, snow, hail, sleet".utf8))
        await google.server.trashDriveFile(id: "md1")
        await google.server.addDriveFile(Self.file("txt2", "homework.txt", "text/plain", "Exercise 4 on page 12"))
        await google.server.updateDriveFile(id: "elsewhere", content: Data("still not ours".utf8))
        let before = await google.server.requests().count

        let second = try await sync.run(GoogleSyncOptions(driveFolder: Self.folder))
        let increment = try #require(second.drive)
        #expect(!increment.full)
        #expect(increment.added == 1 && increment.updated == 1 && increment.removed == 1)
        let downloads = await google.server.requests().dropFirst(before).filter { $0.query.contains("alt=media") || $0.path.hasSuffix("/export") }
        #expect(Set(downloads.map(\.path)) == ["/drive/v3/files/txt1", "/drive/v3/files/txt2"])
        materials = try google.store.materials()
        #expect(Set(materials.compactMap(\.origin)) == ["drive:doc1", "drive:txt1", "drive:txt2"])
        #expect(materials.first { $0.origin == "drive:txt1" }?.text.hasSuffix("sleet") == true)
        // The changed file's material was replaced in place: same id.
        #expect(materials.first { $0.origin == "drive:txt1" }?.id == firstTextID)

        // Nothing changed: one request for the changes, no download.
        let quiet = await google.server.requests().count
        let third = try await sync.run(GoogleSyncOptions(driveFolder: Self.folder))
        #expect(third.drive?.fetched == 0)
        #expect(await google.server.requests().count - quiet == 1)
    }

    @Test func calendarEventsBecomeAssignmentsAndA410StartsOver() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        let calendar = "class-7b@school.example"
        await google.server.setCalendarPageSize(2)
        await google.server.addEvent(
            calendar: calendar,
            .init(
                id: "e1", summary: "Essay: the water cycle", description: "Two pages.",
                start: .date("2026-12-04"), end: .date("2026-12-05")))
        await google.server.addEvent(
            calendar: calendar,
            .init(
                id: "e2", summary: "Map quiz",
                start: .dateTime("2026-12-01T10:00:00+01:00", timeZone: "Europe/Rome"),
                end: .dateTime("2026-12-01T11:00:00+01:00", timeZone: "Europe/Rome")))
        await google.server.addEvent(calendar: calendar, .init(id: "e3", summary: "Science fair", start: .date("2026-12-10"), end: .date("2026-12-11")))
        let (session, _) = try await google.signedInSession()
        let sync = google.sync(session, now: { ISO8601DateFormatter().date(from: "2026-11-20T08:00:00Z")! })

        let first = try #require(try await sync.run(GoogleSyncOptions(calendar: calendar)).calendar)
        #expect(first.error == nil && first.full && first.added == 3)
        var assignments = try google.store.assignments()
        #expect(assignments.map(\.title) == ["Map quiz", "Essay: the water cycle", "Science fair"])
        #expect(assignments.map(\.dueDay) == ["2026-12-01", "2026-12-04", "2026-12-10"])
        #expect(assignments[0].dueAt == ISO8601DateFormatter().date(from: "2026-12-01T09:00:00Z"))
        #expect(assignments[1].dueAt == nil)
        #expect(assignments[1].details == "Two pages.")
        let firstRequest = try #require(await google.requests("/calendar/v3/calendars/").first)
        #expect(firstRequest.path.contains("class-7b%40school.example") || firstRequest.path.contains("class-7b@school.example"))
        #expect(firstRequest.query.contains("timeMin="))

        // An increment: one cancelled, one moved.
        await google.server.cancelEvent(calendar: calendar, id: "e3")
        await google.server.addEvent(
            calendar: calendar, .init(id: "e1", summary: "Essay: the water cycle", start: .date("2026-12-07"), end: .date("2026-12-08")))
        let second = try #require(try await sync.run(GoogleSyncOptions(calendar: calendar)).calendar)
        #expect(!second.full && second.fetched == 2 && second.updated == 1 && second.removed == 1)
        let increment = try #require(await google.requests("/calendar/v3/calendars/").last)
        #expect(increment.query.contains("syncToken=") && !increment.query.contains("timeMin="))
        assignments = try google.store.assignments()
        #expect(assignments.map(\.dueDay) == ["2026-12-01", "2026-12-07"])

        // The token expires (410): a full sync, which also drops what is gone.
        await google.server.invalidateSyncTokens(calendar: calendar)
        await google.server.cancelEvent(calendar: calendar, id: "e2")
        let third = try #require(try await sync.run(GoogleSyncOptions(calendar: calendar)).calendar)
        #expect(third.error == nil && third.full)
        #expect(try google.store.assignments().map(\.title) == ["Essay: the water cycle"])
    }

    static func mail(
        _ id: String, from: String, subject: String, body: String, html: Bool = false,
        date: String = "Tue, 17 Nov 2026 09:15:00 +0100"
    ) -> GoogleServer.GmailMessage {
        GoogleServer.GmailMessage(
            id: id, from: from, subject: subject, date: date,
            plainText: html ? nil : body, html: html ? "<p>\(body)</p>" : "<div>\(body)</div>")
    }

    @Test func teachersMailGivesAssignmentsWithTheRightDueDates() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.setGmailPageSize(2)
        await google.server.addMessage(
            Self.mail(
                "m1", from: "Ms Rossi <rossi@school.example>", subject: "Water cycle essay",
                body: "Hello class,\nThe essay on the water cycle is due Friday. Please hand in the map exercise by December 1 at 5 p.m."))
        await google.server.addMessage(Self.mail("m2", from: "Newsletter <news@shop.example>", subject: "Sale due Friday", body: "Everything is due Friday."))
        await google.server.addMessage(
            Self.mail(
                "m3", from: "Mr Bianchi <bianchi@school.example>", subject: "Reading log",
                body: "Your reading log is due tomorrow.", html: true,
                date: "Thu, 19 Nov 2026 16:40:00 +0000"))
        await google.server.addMessage(Self.mail("m4", from: "Ms Rossi <rossi@school.example>", subject: "Trip", body: "We had a great trip."))
        let (session, _) = try await google.signedInSession()
        let namer: AssignmentExtractor.Namer = { subject, sentences in sentences.map { "\(subject) #\($0.count)" } }
        let sync = google.sync(
            session,
            extractor: AssignmentExtractor(namer: { subject, sentences in
                // The orchestration's own rules are tested here; the model's naming is tested on the engine.
                try await namer(subject, sentences)
            }))

        let query = "from:school.example"
        let first = try #require(try await sync.run(GoogleSyncOptions(gmailQuery: query)).gmail)
        #expect(first.error == nil && first.full && first.fetched == 3 && first.added == 3)
        #expect(first.skipped.count == 1)
        let assignments = try google.store.assignments()
        #expect(assignments.map(\.dueDay) == ["2026-11-20", "2026-11-20", "2026-12-01"])
        let map = try #require(assignments.first { $0.dueDay == "2026-12-01" })
        #expect(map.dueAt == ISO8601DateFormatter().date(from: "2026-12-01T16:00:00Z"))
        #expect(map.details.contains("map exercise") && map.details.contains("rossi@school.example"))
        #expect(map.origin == "gmail:m1#1")
        #expect(map.title.hasPrefix("Water cycle essay #"))
        #expect(assignments.contains { $0.origin == "gmail:m3#0" && $0.dueDay == "2026-11-20" })
        #expect(!assignments.contains { $0.origin.hasPrefix("gmail:m2") })

        // A new message from a teacher: the history names it, and only it is read.
        await google.server.addMessage(
            Self.mail(
                "m5", from: "Ms Rossi <rossi@school.example>", subject: "Poster",
                body: "The poster is due 2026-12-09.", date: "Mon, 23 Nov 2026 08:00:00 +0100"))
        await google.server.addMessage(Self.mail("m6", from: "Newsletter <news@shop.example>", subject: "Offer", body: "Due today!"))
        let before = await google.server.requests().count
        let second = try #require(try await sync.run(GoogleSyncOptions(gmailQuery: query)).gmail)
        #expect(!second.full && second.fetched == 1 && second.added == 1)
        let reads = await google.server.requests().dropFirst(before).filter { $0.path.hasPrefix("/gmail/v1/users/me/messages/") }
        #expect(reads.map(\.path) == ["/gmail/v1/users/me/messages/m5"])
        #expect(await google.server.requests().dropFirst(before).contains { $0.path.hasSuffix("/history") && $0.query.contains("startHistoryId=") })

        // History too old (404): a full sync.
        await google.server.addMessage(
            Self.mail(
                "m7", from: "Ms Rossi <rossi@school.example>", subject: "Test",
                body: "Revise for the test due 2026-12-14."))
        await google.server.invalidateHistory()
        let third = try #require(try await sync.run(GoogleSyncOptions(gmailQuery: query)).gmail)
        #expect(third.error == nil && third.full)
        #expect(try google.store.assignments().contains { $0.origin == "gmail:m7#0" && $0.dueDay == "2026-12-14" })
    }

    @Test func rateLimitsAreRetriedWithBackoffAndOtherErrorsAreOneSentence() async throws {
        let google = try await GoogleFixture.start()
        defer { Task { await google.stop() } }
        await google.server.addDriveFile(Self.file("txt1", "notes.txt", "text/plain", "Notes"))
        let (session, token) = try await google.signedInSession()
        await google.server.failNext(2, pathPrefix: "/drive/v3/files", status: 429, reason: "rateLimitExceeded")
        await google.server.failNext(1, pathPrefix: "/drive/v3/changes", status: 403, reason: "userRateLimitExceeded", retryAfter: 7)
        let report = try await google.sync(session).run(GoogleSyncOptions(driveFolder: Self.folder))
        #expect(report.drive?.error == nil)
        #expect(report.drive?.added == 1)
        #expect(report.backoffs == 3)
        let waits = google.sleeps.all
        #expect(waits.count == 3)
        // Exponential with jitter (half of each delay random), and Retry-After honoured.
        #expect(waits.contains { $0 >= .seconds(7) })
        #expect(waits.allSatisfy { $0 >= .milliseconds(500) && $0 <= .seconds(32) })

        // A limit that does not lift ends in one sentence after the policy's attempts.
        await google.server.failNext(6, pathPrefix: "/drive/v3/changes", status: 429, reason: "rateLimitExceeded")
        let limited = try await google.sync(session).run(GoogleSyncOptions(driveFolder: Self.folder))
        #expect(limited.drive?.error?.contains("rate limit") == true)
        #expect(!limited.succeeded)

        // A server error that is not a rate limit: the status and Google's reason, the other sources still run.
        await google.server.failNext(1, pathPrefix: "/drive/v3/changes", status: 400, reason: "invalidParameter")
        await google.server.addEvent(calendar: "primary", .init(id: "e1", summary: "Quiz", start: .date("2026-12-01"), end: .date("2026-12-02")))
        let mixed = try await google.sync(session).run(GoogleSyncOptions(driveFolder: Self.folder, calendar: "primary"))
        #expect(mixed.drive?.error?.contains("400 invalidParameter") == true)
        #expect(mixed.calendar?.added == 1)
        for text in [limited.drive?.error ?? "", mixed.drive?.error ?? ""] + google.logs.all {
            #expect(!text.contains(token.accessToken) && !text.contains(token.refreshToken ?? "-"))
        }
    }

    @Test func whatWasSyncedStaysUsableOffline() async throws {
        let google = try await GoogleFixture.start()
        await google.server.addDriveFile(Self.file("doc1", "Photosynthesis", "application/vnd.google-apps.document", "Plants make sugar from light."))
        await google.server.addEvent(calendar: "primary", .init(id: "e1", summary: "Lab report", start: .date("2026-12-02"), end: .date("2026-12-03")))
        let (session, _) = try await google.signedInSession()
        let report = try await google.sync(session).run(GoogleSyncOptions(driveFolder: Self.folder, calendar: "primary"))
        #expect(report.succeeded)
        await google.server.stop()

        // The network is gone (nothing listens there): a sync fails in one sentence per
        // source, and nothing is lost.
        let gone = GoogleSync(
            session: session, endpoints: .overriding(api: RefusingPort.baseURL(), oauth: RefusingPort.baseURL()),
            store: google.store, logger: google.logger)
        let offline = try await gone.run(GoogleSyncOptions(driveFolder: Self.folder, calendar: "primary"))
        #expect(offline.drive?.error?.contains("could not be reached") == true)
        #expect(offline.calendar?.error?.contains("could not be reached") == true)
        let store = try ConversationStore(path: google.directory.appendingPathComponent("parley.sqlite"))
        #expect(try store.materials().map(\.text) == ["Plants make sugar from light."])
        #expect(try store.assignments().map(\.title) == ["Lab report"])
        try? FileManager.default.removeItem(at: google.directory)
    }
}
