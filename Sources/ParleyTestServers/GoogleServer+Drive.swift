import Foundation

/// Drive v3: `files.list` (with a subset of the `q` language), `files.get` (metadata or
/// `alt=media`), `files.export`, `changes.getStartPageToken` and `changes.list`.
extension GoogleState {
    // MARK: Test controls

    func addDriveFile(_ file: GoogleServer.DriveFile) {
        let order = driveFiles[file.id]?.order ?? nextNumber()
        driveFiles[file.id] = DriveEntry(file: file, order: order)
        recordDriveChange(file.id)
    }

    func updateDriveFile(id: String, content: Data, modifiedTime: Date?) {
        guard var entry = driveFiles[id], !entry.removed else { return }
        entry.file.content = content
        entry.file.modifiedTime = modifiedTime ?? Date()
        driveFiles[id] = entry
        recordDriveChange(id)
    }

    func trashDriveFile(id: String) {
        guard var entry = driveFiles[id], !entry.removed else { return }
        entry.file.trashed = true
        driveFiles[id] = entry
        recordDriveChange(id)
    }

    func removeDriveFile(id: String) {
        guard var entry = driveFiles[id], !entry.removed else { return }
        entry.removed = true
        driveFiles[id] = entry
        recordDriveChange(id)
    }

    private func recordDriveChange(_ fileId: String) {
        driveChanges.append(DriveChangeRecord(number: driveNextChange, fileId: fileId, time: Date()))
        driveNextChange += 1
    }

    // MARK: Routing

    /// `path` is what follows `/drive/v3`.
    func drive(_ path: [String], query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        switch path.count {
        case 1 where path[0] == "files":
            return try listFiles(query)
        case 2 where path[0] == "files":
            let entry = try driveFile(path[1])
            if query["alt"] == "media" { return try download(entry.file) }
            return GoogleWire.json(200, Self.driveJSON(entry.file))
        case 3 where path[0] == "files" && path[2] == "export":
            return try export(try driveFile(path[1]).file, query: query)
        case 2 where path[0] == "changes" && path[1] == "startPageToken":
            return GoogleWire.json(200, ["kind": "drive#startPageToken", "startPageToken": String(driveNextChange)])
        case 1 where path[0] == "changes":
            return try listChanges(query)
        default:
            return GoogleWire.apiError(404, reason: "notFound", message: "Not Found")
        }
    }

    // MARK: Files

    private func driveFile(_ id: String) throws(GoogleRejection) -> DriveEntry {
        guard let entry = driveFiles[id], !entry.removed else {
            throw GoogleRejection(GoogleWire.apiError(404, reason: "notFound", message: "File not found: \(id).", location: ("parameter", "fileId")))
        }
        return entry
    }

    private func listFiles(_ query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        let filter = try DriveQuery(query["q"] ?? "")
        let size = pageSize(try query.integer("pageSize").get(), server: drivePageSize)
        var offset = 0
        if let token = query.nonEmpty("pageToken") {
            offset = Int(try GoogleWire.readPageToken(token, kind: "files", count: 1).get()[0]) ?? 0
        }
        let order = try Self.driveOrder(query["orderBy"] ?? "")
        let entries = driveFiles.values.filter { !$0.removed && filter.matches($0.file) }.sorted(by: order)
        let page = entries.dropFirst(offset).prefix(size)
        var body: [String: Any] = ["kind": "drive#fileList", "incompleteSearch": false, "files": page.map { Self.driveJSON($0.file) }]
        if offset + page.count < entries.count {
            body["nextPageToken"] = GoogleWire.pageToken("files", [String(offset + page.count)])
        }
        return GoogleWire.json(200, body)
    }

    private func download(_ file: GoogleServer.DriveFile) throws(GoogleRejection) -> GoogleReply {
        guard !file.isGoogleApps else {
            throw GoogleRejection(
                GoogleWire.apiError(
                    403, reason: "fileNotDownloadable",
                    message: "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
                    location: ("parameter", "alt")))
        }
        return GoogleReply(status: 200, contentType: file.mimeType, body: file.content)
    }

    private func export(_ file: GoogleServer.DriveFile, query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard let target = query.nonEmpty("mimeType") else { throw GoogleRejection(GoogleWire.missingParameter("mimeType")) }
        guard file.isGoogleApps, file.mimeType != "application/vnd.google-apps.folder" else {
            throw GoogleRejection(
                GoogleWire.apiError(
                    403, reason: "fileNotExportable", message: "Export only supports Docs Editors files.",
                    location: ("parameter", "fileId")))
        }
        guard target.hasPrefix("text/") else {
            throw GoogleRejection(
                GoogleWire.apiError(
                    400, reason: "badRequest", message: "The requested conversion is not supported.",
                    location: ("parameter", "mimeType")))
        }
        return GoogleReply(status: 200, contentType: target, body: file.content)
    }

    /// A file's metadata as Drive writes it; `md5Checksum` and `size` only for files with
    /// binary content.
    static func driveJSON(_ file: GoogleServer.DriveFile) -> [String: Any] {
        var json: [String: Any] = [
            "kind": "drive#file", "id": file.id, "name": file.name, "mimeType": file.mimeType, "parents": file.parents,
            "trashed": file.trashed, "modifiedTime": GoogleWire.rfc3339(file.modifiedTime),
        ]
        if !file.isGoogleApps {
            json["md5Checksum"] = GoogleDigest.hex(GoogleDigest.md5(file.content))
            json["size"] = String(file.content.count)
        }
        return json
    }

    /// `orderBy`: comma-separated `folder`, `name`, `name_natural`, `modifiedTime`,
    /// `createdTime` (the order files were added), each optionally `desc`.
    private static func driveOrder(_ text: String) throws(GoogleRejection) -> (DriveEntry, DriveEntry) -> Bool {
        var keys: [(key: String, descending: Bool)] = []
        for piece in text.split(separator: ",") {
            let words = piece.split(separator: " ").map(String.init)
            guard let key = words.first, ["folder", "name", "name_natural", "modifiedTime", "createdTime", "recency", "viewedByMeTime"].contains(key),
                words.count == 1 || (words.count == 2 && words[1].lowercased() == "desc")
            else {
                throw GoogleRejection(GoogleWire.invalidParameter("orderBy", "Invalid Value"))
            }
            keys.append((key, words.count == 2))
        }
        return { left, right in
            for (key, descending) in keys {
                let comparison: ComparisonResult
                switch key {
                case "folder":
                    let l = left.file.mimeType == "application/vnd.google-apps.folder", r = right.file.mimeType == "application/vnd.google-apps.folder"
                    comparison = l == r ? .orderedSame : (l ? .orderedAscending : .orderedDescending)
                case "name", "name_natural":
                    comparison = left.file.name.localizedStandardCompare(right.file.name)
                case "modifiedTime", "recency":
                    comparison =
                        left.file.modifiedTime == right.file.modifiedTime
                        ? .orderedSame
                        : (left.file.modifiedTime < right.file.modifiedTime ? .orderedAscending : .orderedDescending)
                default:
                    comparison = left.order == right.order ? .orderedSame : (left.order < right.order ? .orderedAscending : .orderedDescending)
                }
                if comparison != .orderedSame { return descending ? comparison == .orderedDescending : comparison == .orderedAscending }
            }
            return left.order < right.order
        }
    }

    // MARK: Changes

    /// `changes.list`: the changes from `pageToken` on, each file once (its latest change, with
    /// the file as it is now); `newStartPageToken` on the last page only.
    private func listChanges(_ query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard let tokenText = query.nonEmpty("pageToken") else { throw GoogleRejection(GoogleWire.missingParameter("pageToken")) }
        guard let start = Int(tokenText), start >= 1 else {
            throw GoogleRejection(GoogleWire.invalidParameter("pageToken", "Invalid Value"))
        }
        let includeRemoved = query.flag("includeRemoved") ?? true
        let size = pageSize(try query.integer("pageSize").get(), server: drivePageSize)
        let pending = driveChanges.filter { $0.number >= start }
        var latest: [String: Int] = [:]
        for (index, change) in pending.enumerated() { latest[change.fileId] = index }
        let coalesced = pending.enumerated().filter { latest[$0.element.fileId] == $0.offset }.map(\.element)
        var page: [DriveChangeRecord] = []
        var next: Int?
        for change in coalesced {
            let removed = driveFiles[change.fileId]?.removed ?? true
            if removed && !includeRemoved { continue }
            if page.count == size {
                next = (page.last?.number ?? start - 1) + 1
                break
            }
            page.append(change)
        }
        let changes: [[String: Any]] = page.map { change in
            var json: [String: Any] = ["kind": "drive#change", "changeType": "file", "fileId": change.fileId, "time": GoogleWire.rfc3339(change.time)]
            if let entry = driveFiles[change.fileId], !entry.removed {
                json["removed"] = false
                json["file"] = Self.driveJSON(entry.file)
            } else {
                json["removed"] = true
            }
            return json
        }
        var body: [String: Any] = ["kind": "drive#changeList", "changes": changes]
        if let next {
            body["nextPageToken"] = String(next)
        } else {
            body["newStartPageToken"] = String(driveNextChange)
        }
        return GoogleWire.json(200, body)
    }
}

/// The part of Drive's query language the server understands: clauses joined by `and`, each
/// optionally preceded by `not`: `'ID' in parents`, `trashed = true|false`, `mimeType`/`name`
/// with `=`, `!=` or `contains`, `fullText contains`, `modifiedTime` with a comparison. Anything
/// else is refused with 400 (`invalid`, location `q`), as Drive refuses a query it cannot parse.
struct DriveQuery {
    private var clauses: [(GoogleServer.DriveFile) -> Bool] = []

    init(_ text: String) throws(GoogleRejection) {
        var tokens = try Self.tokens(text)[...]
        guard !tokens.isEmpty else { return }
        while true {
            clauses.append(try Self.clause(&tokens))
            guard let next = tokens.first else { break }
            guard case .word(let word) = next, word.lowercased() == "and" else { throw Self.invalid() }
            tokens.removeFirst()
        }
    }

    func matches(_ file: GoogleServer.DriveFile) -> Bool {
        clauses.allSatisfy { $0(file) }
    }

    private enum Token: Equatable {
        case word(String)
        case string(String)
        case op(String)
    }

    private static func invalid() -> GoogleRejection {
        GoogleRejection(GoogleWire.invalidParameter("q", "Invalid Value"))
    }

    private static func tokens(_ text: String) throws(GoogleRejection) -> [Token] {
        var tokens: [Token] = []
        var characters = Array(text)[...]
        while let character = characters.first {
            if character.isWhitespace {
                characters.removeFirst()
            } else if character == "'" || character == "\"" {
                characters.removeFirst()
                var value = ""
                var closed = false
                while let next = characters.popFirst() {
                    if next == "\\", let escaped = characters.popFirst() {
                        value.append(escaped)
                    } else if next == character {
                        closed = true
                        break
                    } else {
                        value.append(next)
                    }
                }
                guard closed else { throw invalid() }
                tokens.append(.string(value))
            } else if "=!<>".contains(character) {
                var op = String(characters.removeFirst())
                if characters.first == "=" { op.append(characters.removeFirst()) }
                guard ["=", "!=", "<", "<=", ">", ">="].contains(op) else { throw invalid() }
                tokens.append(.op(op))
            } else if character.isLetter || character.isNumber || character == "_" {
                var word = ""
                while let next = characters.first, next.isLetter || next.isNumber || next == "_" || next == "." || next == "-" || next == ":" {
                    word.append(next)
                    characters.removeFirst()
                }
                tokens.append(.word(word))
            } else {
                throw invalid()
            }
        }
        return tokens
    }

    private static func clause(_ tokens: inout ArraySlice<Token>) throws(GoogleRejection) -> (GoogleServer.DriveFile) -> Bool {
        guard let first = tokens.popFirst() else { throw invalid() }
        if case .word(let word) = first, word.lowercased() == "not" {
            let inner = try clause(&tokens)
            return { !inner($0) }
        }
        if case .string(let value) = first {
            guard tokens.popFirst() == .word("in"), tokens.popFirst() == .word("parents") else { throw invalid() }
            return { $0.parents.contains(value) }
        }
        guard case .word(let field) = first, let operation = tokens.popFirst(), let operand = tokens.popFirst() else { throw invalid() }
        let op: String
        switch operation {
        case .op(let symbol): op = symbol
        case .word(let word) where word == "contains": op = "contains"
        default: throw invalid()
        }
        switch (field, operand) {
        case ("trashed", .word(let value)) where ["true", "false"].contains(value) && (op == "=" || op == "!="):
            let wanted = (value == "true") == (op == "=")
            return { $0.trashed == wanted }
        case ("mimeType", .string(let value)), ("name", .string(let value)):
            let read: (GoogleServer.DriveFile) -> String = field == "name" ? { $0.name } : { $0.mimeType }
            switch op {
            case "=": return { read($0) == value }
            case "!=": return { read($0) != value }
            case "contains": return { read($0).localizedCaseInsensitiveContains(value) }
            default: throw invalid()
            }
        case ("fullText", .string(let value)) where op == "contains":
            return { $0.name.localizedCaseInsensitiveContains(value) || String(decoding: $0.content, as: UTF8.self).localizedCaseInsensitiveContains(value) }
        case ("modifiedTime", .string(let value)):
            guard let time = GoogleWire.parseTime(value) else { throw invalid() }
            switch op {
            case "=": return { $0.modifiedTime == time }
            case "!=": return { $0.modifiedTime != time }
            case "<": return { $0.modifiedTime < time }
            case "<=": return { $0.modifiedTime <= time }
            case ">": return { $0.modifiedTime > time }
            case ">=": return { $0.modifiedTime >= time }
            default: throw invalid()
            }
        default:
            throw invalid()
        }
    }
}
