import Foundation
import Logging
import ParleyMaterials
import ParleyData

/// What to sync.
public struct GoogleSyncOptions: Sendable, Equatable {
    /// The Drive folder whose files become materials.
    public var driveFolder: String?
    /// The calendar whose events become assignments (`primary`, or a calendar's id).
    public var calendar: String?
    /// The Gmail search whose messages are read for assignments (e.g. `from:teacher@school.org`).
    public var gmailQuery: String?
    /// The most messages a full Gmail sync reads, newest first.
    public var gmailLimit: Int
    /// How far back a full Calendar sync starts.
    public var calendarLookBack: TimeInterval

    /// Creates options.
    public init(
        driveFolder: String? = nil, calendar: String? = nil, gmailQuery: String? = nil,
        gmailLimit: Int = 50, calendarLookBack: TimeInterval = 30 * 86_400
    ) {
        self.driveFolder = driveFolder
        self.calendar = calendar
        self.gmailQuery = gmailQuery
        self.gmailLimit = max(1, gmailLimit)
        self.calendarLookBack = calendarLookBack
    }

    /// Whether anything is asked for.
    public var isEmpty: Bool { driveFolder == nil && calendar == nil && gmailQuery == nil }
}

/// Brings a student's Drive folder, calendar and teachers' mail into the store: new or
/// changed files become materials (Google Docs exported as text; PDFs and images read the
/// way `parley materials add` reads them), events and e-mailed due dates become assignments.
///
/// Each source syncs incrementally after its first run (Drive's changes page token,
/// Calendar's sync token, Gmail's history id, kept in the store per owner); an increment
/// token Google no longer accepts (410, or 404 for Gmail history) starts a full sync that
/// also drops what is gone. The sources sync independently: one failing is reported and the
/// others still run. What was synced stays in the store, usable offline.
public struct GoogleSync: Sendable {
    let session: GoogleSession
    let drive: DriveAPI
    let calendarAPI: CalendarAPI
    let gmail: GmailAPI
    let store: any ConversationStoring
    let owner: Owner
    let reader: MaterialReader
    let extractor: AssignmentExtractor
    let logger: Logger
    let now: @Sendable () -> Date

    /// A sync through `session` into `owner`'s part of `store`.
    public init(
        session: GoogleSession, endpoints: GoogleEndpoints, store: any ConversationStoring, owner: Owner = .local,
        reader: MaterialReader = MaterialReader(), extractor: AssignmentExtractor = AssignmentExtractor(namer: nil),
        logger: Logger = Logger(label: "parley.google"), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.session = session
        drive = DriveAPI(session: session, endpoints: endpoints)
        calendarAPI = CalendarAPI(session: session, endpoints: endpoints)
        gmail = GmailAPI(session: session, endpoints: endpoints)
        self.store = store
        self.owner = owner
        self.reader = reader
        self.extractor = extractor
        self.logger = logger
        self.now = now
    }

    /// Syncs what `options` names. A missing sign-in is thrown at once; a source's other
    /// failures go in its report.
    public func run(
        _ options: GoogleSyncOptions, progress: @escaping @Sendable (GoogleSyncProgress) -> Void = { _ in }
    )
        async throws -> GoogleSyncReport
    {
        guard try await session.signedInScopes() != nil else { throw GoogleError.notSignedIn }
        let before = await session.backoffs
        var report = GoogleSyncReport()
        if let folder = options.driveFolder {
            report.drive = await source("drive", folder, progress) { report in try await syncDrive(folder, &report, progress) }
        }
        if let calendar = options.calendar {
            report.calendar = await source("calendar", calendar, progress) { report in
                try await syncCalendar(calendar, lookBack: options.calendarLookBack, &report, progress)
            }
        }
        if let query = options.gmailQuery {
            report.gmail = await source("gmail", query, progress) { report in
                try await syncGmail(query, limit: options.gmailLimit, &report, progress)
            }
        }
        report.backoffs = await session.backoffs - before
        return report
    }

    private func source(
        _ name: String, _ target: String, _ progress: @Sendable (GoogleSyncProgress) -> Void,
        _ body: (inout SourceSyncReport) async throws -> Void
    ) async -> SourceSyncReport {
        var report = SourceSyncReport(target: target)
        do {
            try await body(&report)
        } catch {
            report.error = "\(error)"
            logger.error("[google] \(name) sync failed: \(error)")
        }
        progress(.finished(report, source: name))
        return report
    }

    // MARK: Drive

    private func syncDrive(
        _ folder: String, _ report: inout SourceSyncReport,
        _ progress: @Sendable (GoogleSyncProgress) -> Void
    ) async throws {
        let key = "google.drive.\(folder).page-token"
        if let token = try await store.syncState(key, owner: owner) {
            progress(.started(source: "drive", target: folder, full: false))
            let (changes, next) = try await drive.changes(since: token)
            var done = 0
            for change in changes {
                guard let id = change.fileId ?? change.file?.id else { continue }
                done += 1
                let origin = "drive:\(id)"
                if change.removed == true || change.file?.trashed == true || !(change.file?.parents ?? []).contains(folder) {
                    if try await store.deleteMaterial(origin: origin, owner: owner) { report.removed += 1 }
                } else if let file = change.file {
                    try await importFile(file, folder: folder, &report)
                }
                progress(.item(source: "drive", done: done, total: changes.count, name: change.file?.name ?? id))
            }
            try await store.setSyncState(key, to: next, owner: owner)
            return
        }
        report.full = true
        progress(.started(source: "drive", target: folder, full: true))
        // The token first, so a file that changes while the folder is read is seen next time.
        let start = try await drive.startPageToken()
        let files = try await drive.files(inFolder: folder)
        for (index, file) in files.enumerated() {
            try await importFile(file, folder: folder, &report)
            progress(.item(source: "drive", done: index + 1, total: files.count, name: file.name))
        }
        let present = Set(files.map { "drive:\($0.id)" })
        for material in try await store.materials(owner: owner) {
            if let origin = material.origin, origin.hasPrefix("drive:"), !present.contains(origin),
                material.source.hasSuffix(Self.folderMark(folder))
            {
                if try await store.deleteMaterial(origin: origin, owner: owner) { report.removed += 1 }
            }
        }
        try await store.setSyncState(key, to: start, owner: owner)
    }

    /// The end of a Drive material's `source`, naming its folder.
    static func folderMark(_ folder: String) -> String { " (Drive folder \(folder))" }

    /// Reads a Drive file into a material: added, or replacing the one from the same file.
    private func importFile(_ file: DriveFile, folder: String, _ report: inout SourceSyncReport) async throws {
        guard file.mimeType != "application/vnd.google-apps.folder" else { return }
        let origin = "drive:\(file.id)"
        let source = "Google Drive: \(file.name)" + Self.folderMark(folder)
        let title = (file.name as NSString).deletingPathExtension.isEmpty ? file.name : (file.name as NSString).deletingPathExtension
        var material: NewMaterial
        do {
            if ["application/vnd.google-apps.document", "application/vnd.google-apps.presentation"].contains(file.mimeType) {
                let text = String(decoding: try await drive.content(of: file), as: UTF8.self)
                    .replacingOccurrences(of: "\u{FEFF}", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
                report.fetched += 1
                guard !text.isEmpty else {
                    report.skipped.append("\(file.name): the document is empty")
                    return
                }
                material = NewMaterial(title: title, kind: "text", source: source, text: text, pageCount: 1, readBy: "drive-export")
            } else if let ext = Self.fileExtension(file.mimeType) {
                let data = try await drive.content(of: file)
                report.fetched += 1
                material = try await read(data, extension: ext, title: title)
                material.source = source
            } else {
                report.skipped.append("\(file.name): Parley does not read \(file.mimeType) files")
                return
            }
        } catch let error as GoogleError {
            guard case .tooLarge = error else { throw error }
            report.skipped.append("\(file.name): \(error)")
            return
        } catch let error as MaterialError {
            report.skipped.append("\(file.name): \(error)")
            return
        }
        material.origin = origin
        let existed = try await store.material(origin: origin, owner: owner) != nil
        try await store.saveMaterial(material, owner: owner)
        if existed { report.updated += 1 } else { report.added += 1 }
    }

    private func read(_ data: Data, extension ext: String, title: String) async throws -> NewMaterial {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-drive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file.\(ext)")
        try data.write(to: file)
        return try await reader.read(path: file.path, title: title)
    }

    static func fileExtension(_ mimeType: String) -> String? {
        switch mimeType.lowercased() {
        case "application/pdf": return "pdf"
        case "image/png": return "png"
        case "image/jpeg", "image/jpg": return "jpg"
        case "image/webp": return "webp"
        case "text/plain": return "txt"
        case "text/markdown", "text/x-markdown": return "md"
        default: return nil
        }
    }

    // MARK: Calendar

    private func syncCalendar(
        _ calendar: String, lookBack: TimeInterval, _ report: inout SourceSyncReport,
        _ progress: @Sendable (GoogleSyncProgress) -> Void
    ) async throws {
        let key = "google.calendar.\(calendar).sync-token"
        let prefix = "calendar:\(calendar)/"
        if let token = try await store.syncState(key, owner: owner) {
            do {
                progress(.started(source: "calendar", target: calendar, full: false))
                let (events, next) = try await calendarAPI.events(calendar: calendar, syncToken: token, from: now())
                try await apply(events, prefix: prefix, &report, progress)
                try await store.setSyncState(key, to: next, owner: owner)
                return
            } catch is CalendarAPI.SyncTokenExpired {
                logger.warning("[google] calendar \(calendar): the sync token expired (410); syncing in full")
            }
        }
        report.full = true
        progress(.started(source: "calendar", target: calendar, full: true))
        let (events, next) = try await calendarAPI.events(calendar: calendar, syncToken: nil, from: now().addingTimeInterval(-lookBack))
        try await apply(events, prefix: prefix, &report, progress)
        let present = Set(events.filter { !$0.isCancelled }.map { prefix + $0.id })
        for assignment in try await store.assignments(owner: owner)
        where assignment.origin.hasPrefix(prefix) && !present.contains(assignment.origin) {
            if try await store.deleteAssignment(origin: assignment.origin, owner: owner) { report.removed += 1 }
        }
        try await store.setSyncState(key, to: next, owner: owner)
    }

    private func apply(
        _ events: [CalendarEvent], prefix: String, _ report: inout SourceSyncReport,
        _ progress: @Sendable (GoogleSyncProgress) -> Void
    ) async throws {
        let existing = Set(try await store.assignments(owner: owner).map(\.origin))
        for (index, event) in events.enumerated() {
            report.fetched += 1
            let origin = prefix + event.id
            defer { progress(.item(source: "calendar", done: index + 1, total: events.count, name: event.summary ?? event.id)) }
            if event.isCancelled {
                if try await store.deleteAssignment(origin: origin, owner: owner) { report.removed += 1 }
                continue
            }
            guard let due = Self.due(event.start) else {
                report.skipped.append("\(event.summary ?? event.id): no start date")
                continue
            }
            let summary = event.summary?.trimmingCharacters(in: .whitespaces) ?? ""
            try await store.saveAssignment(
                NewAssignment(
                    origin: origin, source: "calendar", title: summary.isEmpty ? "(untitled event)" : summary,
                    details: event.description ?? "", dueDay: due.day, dueAt: due.time, link: event.htmlLink), owner: owner)
            if existing.contains(origin) { report.updated += 1 } else { report.added += 1 }
        }
    }

    /// An event start as a due day (as written, in the event's own zone) and time.
    static func due(_ time: CalendarEvent.Time?) -> (day: String, time: Date?)? {
        if let date = time?.date, date.count >= 10 { return (String(date.prefix(10)), nil) }
        guard let dateTime = time?.dateTime, dateTime.count >= 10 else { return nil }
        let formatter = ISO8601DateFormatter()
        var exact = formatter.date(from: dateTime)
        if exact == nil {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            exact = formatter.date(from: dateTime)
        }
        return (String(dateTime.prefix(10)), exact)
    }

    // MARK: Gmail

    private func syncGmail(
        _ query: String, limit: Int, _ report: inout SourceSyncReport,
        _ progress: @Sendable (GoogleSyncProgress) -> Void
    ) async throws {
        let key = "google.gmail.\(query).history-id"
        if let history = try await store.syncState(key, owner: owner) {
            do {
                progress(.started(source: "gmail", target: query, full: false))
                let (added, latest) = try await gmail.addedMessages(since: history)
                if !added.isEmpty {
                    let wanted = Set(added)
                    let listed = try await gmail.messageIds(matching: query, limit: max(limit, added.count) * 4) {
                        wanted.isSubset(of: Set($0))
                    }
                    let matching = listed.filter(wanted.contains)
                    try await read(matching, &report, progress)
                }
                try await store.setSyncState(key, to: latest, owner: owner)
                return
            } catch is GmailAPI.HistoryExpired {
                logger.warning("[google] gmail: the history id is too old (404); syncing in full")
            }
        }
        report.full = true
        progress(.started(source: "gmail", target: query, full: true))
        let latest = try await gmail.currentHistoryId()
        let ids = try await gmail.messageIds(matching: query, limit: limit)
        try await read(ids, &report, progress)
        try await store.setSyncState(key, to: latest, owner: owner)
    }

    private func read(
        _ ids: [String], _ report: inout SourceSyncReport,
        _ progress: @Sendable (GoogleSyncProgress) -> Void
    ) async throws {
        let existing = Set(try await store.assignments(owner: owner).map(\.origin))
        for (index, id) in ids.enumerated() {
            let message = try await gmail.message(id)
            report.fetched += 1
            let found = await extractor.assignments(in: message, receivedAt: now())
            if found.isEmpty { report.skipped.append("\(message.subject.isEmpty ? id : message.subject): no due date found") }
            for (position, assignment) in found.enumerated() {
                let origin = "gmail:\(id)#\(position)"
                let from = message.from.isEmpty ? "" : "\n— \(message.from)"
                try await store.saveAssignment(
                    NewAssignment(
                        origin: origin, source: "gmail", title: assignment.title, details: assignment.sentence + from,
                        dueDay: assignment.day, dueAt: assignment.time,
                        link: "https://mail.google.com/mail/#all/\(id)"), owner: owner)
                if existing.contains(origin) { report.updated += 1 } else { report.added += 1 }
            }
            progress(.item(source: "gmail", done: index + 1, total: ids.count, name: message.subject))
        }
    }
}
