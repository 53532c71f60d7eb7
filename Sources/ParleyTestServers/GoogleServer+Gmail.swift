import Foundation

/// Gmail v1 for one mailbox: `messages.list` (a subset of the search operators),
/// `messages.get` (`full`, `metadata`, `minimal`, `raw`), `messages.attachments.get`,
/// `history.list` (`messageAdded`), `getProfile` and `labels.list`.
extension GoogleState {
    // MARK: Test controls

    func addMessage(_ message: GoogleServer.GmailMessage) {
        currentHistoryId += 1
        let order = mail[message.id]?.order ?? nextNumber()
        let received = GoogleWire.parseMailDate(message.date) ?? Date()
        mail[message.id] = MailEntry(
            message: message, historyId: currentHistoryId,
            internalDate: Int64((received.timeIntervalSince1970 * 1000).rounded()), order: order)
        history.append(HistoryRecord(id: currentHistoryId, messageId: message.id))
    }

    func invalidateHistory() {
        oldestHistoryId = currentHistoryId
        history.removeAll()
    }

    // MARK: Routing

    /// `path` is what follows `/gmail/v1`.
    func gmail(_ path: [String], query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard path.count >= 3, path[0] == "users" else { return GoogleWire.apiError(404, reason: "notFound", message: "Not Found") }
        guard path[1] == "me" || path[1].lowercased() == emailAddress.lowercased() else {
            return GoogleWire.apiError(403, reason: "forbidden", message: "Delegation denied for \(emailAddress)")
        }
        let rest = Array(path.dropFirst(2))
        switch rest.count {
        case 1 where rest[0] == "profile":
            return GoogleWire.json(
                200,
                [
                    "emailAddress": emailAddress, "messagesTotal": mail.count,
                    "threadsTotal": Set(mail.values.map(\.message.threadId)).count, "historyId": String(currentHistoryId),
                ])
        case 1 where rest[0] == "messages":
            return try listMessages(query)
        case 2 where rest[0] == "messages":
            return try getMessage(rest[1], query: query)
        case 4 where rest[0] == "messages" && rest[2] == "attachments":
            return try attachment(message: rest[1], id: rest[3])
        case 1 where rest[0] == "history":
            return try listHistory(query)
        case 1 where rest[0] == "labels":
            return labels()
        default:
            return GoogleWire.apiError(404, reason: "notFound", message: "Not Found")
        }
    }

    private static func notFound() -> GoogleRejection {
        GoogleRejection(GoogleWire.apiError(404, reason: "notFound", message: "Requested entity was not found."))
    }

    // MARK: Messages

    private func listMessages(_ query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        let size = pageSize(try query.integer("maxResults").get(), server: gmailPageSize)
        let search = GmailSearch(query["q"] ?? "")
        let includeSpamTrash = (query.flag("includeSpamTrash") ?? false) || search.reachesSpamTrash
        let wantedLabels = query.all("labelIds").flatMap { $0.split(separator: ",").map(String.init) }
        var offset = 0
        if let token = query.nonEmpty("pageToken") {
            offset = Int(try GoogleWire.readPageToken(token, kind: "messages", count: 1).get()[0]) ?? 0
        }
        let matches = mail.values.filter { entry in
            let labels = entry.message.labelIds
            if !includeSpamTrash && (labels.contains("SPAM") || labels.contains("TRASH")) { return false }
            return wantedLabels.allSatisfy(labels.contains) && search.matches(entry)
        }.sorted { $0.internalDate == $1.internalDate ? $0.order > $1.order : $0.internalDate > $1.internalDate }
        let page = matches.dropFirst(offset).prefix(size)
        var body: [String: Any] = ["resultSizeEstimate": matches.count]
        if !page.isEmpty { body["messages"] = page.map { ["id": $0.message.id, "threadId": $0.message.threadId] } }
        if offset + page.count < matches.count {
            body["nextPageToken"] = GoogleWire.pageToken("messages", [String(offset + page.count)])
        }
        return GoogleWire.json(200, body)
    }

    private func getMessage(_ id: String, query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard let entry = mail[id] else { throw Self.notFound() }
        let tree = Self.mimeTree(entry.message)
        let raw = Self.render(tree, headers: Self.messageHeaders(entry.message) + tree.headers)
        var json: [String: Any] = [
            "id": entry.message.id, "threadId": entry.message.threadId, "labelIds": entry.message.labelIds,
            "snippet": Self.snippet(entry.message), "historyId": String(entry.historyId),
            "internalDate": String(entry.internalDate), "sizeEstimate": raw.utf8.count,
        ]
        switch query["format"] ?? "full" {
        case "full":
            json["payload"] = Self.partJSON(tree, partId: "", extraHeaders: Self.messageHeaders(entry.message))
        case "metadata":
            var headers = Self.messageHeaders(entry.message) + tree.headers
            let wanted = query.all("metadataHeaders").flatMap { $0.split(separator: ",").map { $0.lowercased() } }
            if !wanted.isEmpty { headers = headers.filter { wanted.contains($0.name.lowercased()) } }
            json["payload"] =
                [
                    "partId": "", "mimeType": tree.mimeType, "filename": "",
                    "headers": headers.map { ["name": $0.name, "value": $0.value] }, "body": ["size": 0],
                ] as [String: Any]
        case "minimal":
            break
        case "raw":
            json["raw"] = GoogleWire.base64URL(Data(raw.utf8))
        case let other:
            throw GoogleRejection(GoogleWire.invalidParameter("format", "Invalid value at 'format' (\(other))"))
        }
        return GoogleWire.json(200, json)
    }

    private func attachment(message: String, id: String) throws(GoogleRejection) -> GoogleReply {
        guard let entry = mail[message],
            let index = entry.message.attachments.indices.first(where: { Self.attachmentId(message, $0) == id })
        else { throw Self.notFound() }
        let data = entry.message.attachments[index].data
        return GoogleWire.json(200, ["attachmentId": id, "size": data.count, "data": GoogleWire.base64URL(data)])
    }

    private func labels() -> GoogleReply {
        let system: Set<String> = [
            "INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT", "DRAFT",
            "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
        ]
        let ids = system.union(mail.values.flatMap(\.message.labelIds)).sorted()
        return GoogleWire.json(200, ["labels": ids.map { ["id": $0, "name": $0, "type": system.contains($0) ? "system" : "user"] }])
    }

    // MARK: History

    private func listHistory(_ query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard let startText = query.nonEmpty("startHistoryId") else { throw GoogleRejection(GoogleWire.missingParameter("startHistoryId")) }
        guard let start = Int(startText) else {
            throw GoogleRejection(GoogleWire.invalidParameter("startHistoryId", "Invalid startHistoryId: \(startText)"))
        }
        guard start >= oldestHistoryId else { throw Self.notFound() }
        let size = pageSize(try query.integer("maxResults").get(), server: gmailPageSize)
        let types = query.all("historyTypes").flatMap { $0.split(separator: ",").map(String.init) }
        let label = query.nonEmpty("labelId")
        var position = start
        var snapshot = currentHistoryId
        if let token = query.nonEmpty("pageToken") {
            let fields = try GoogleWire.readPageToken(token, kind: "history", count: 2).get()
            guard let savedPosition = Int(fields[0]), let savedSnapshot = Int(fields[1]) else {
                throw GoogleRejection(GoogleWire.invalidParameter("pageToken", "Invalid pageToken"))
            }
            position = max(start, savedPosition)
            snapshot = savedSnapshot
        }
        let records = history.filter { record in
            guard record.id > position, record.id <= snapshot, types.isEmpty || types.contains("messageAdded"),
                let entry = mail[record.messageId]
            else { return false }
            return label.map(entry.message.labelIds.contains) ?? true
        }
        let page = records.prefix(size)
        var body: [String: Any] = ["historyId": String(snapshot)]
        if !page.isEmpty {
            body["history"] = page.compactMap { record -> [String: Any]? in
                guard let message = mail[record.messageId]?.message else { return nil }
                let reference: [String: Any] = ["id": message.id, "threadId": message.threadId]
                return [
                    "id": String(record.id), "messages": [reference],
                    "messagesAdded": [["message": ["id": message.id, "threadId": message.threadId, "labelIds": message.labelIds] as [String: Any]]],
                ]
            }
        }
        if page.count < records.count, let last = page.last {
            body["nextPageToken"] = GoogleWire.pageToken("history", [String(last.id), String(snapshot)])
        }
        return GoogleWire.json(200, body)
    }

    // MARK: MIME

    /// A MIME part before it gets its `partId`.
    struct MimePart {
        var mimeType: String
        var filename = ""
        var headers: [(name: String, value: String)]
        var data = Data()
        var attachmentId: String?
        var parts: [MimePart] = []
    }

    static func attachmentId(_ message: String, _ index: Int) -> String {
        "ANGjdJ" + GoogleWire.base64URL(Data("\(message)/\(index)".utf8))
    }

    /// The headers of the message itself (the top part's content headers come on top).
    static func messageHeaders(_ message: GoogleServer.GmailMessage) -> [(name: String, value: String)] {
        [
            ("MIME-Version", "1.0"), ("Date", message.date), ("Message-ID", "<\(message.id)@mail.example.com>"),
            ("Subject", message.subject), ("From", message.from), ("To", message.to),
        ]
    }

    /// `multipart/alternative` for plain text and HTML, one part for either alone, inside
    /// `multipart/mixed` when there are attachments.
    static func mimeTree(_ message: GoogleServer.GmailMessage) -> MimePart {
        func text(_ type: String, _ content: String) -> MimePart {
            MimePart(
                mimeType: type, headers: [("Content-Type", "\(type); charset=\"UTF-8\""), ("Content-Transfer-Encoding", "base64")],
                data: Data(content.utf8))
        }
        func multipart(_ subtype: String, _ parts: [MimePart], _ tag: Int) -> MimePart {
            let boundary = "00000000000\(tag)" + GoogleDigest.hex(Array(GoogleDigest.md5(Data(message.id.utf8)).prefix(8)))
            return MimePart(
                mimeType: "multipart/\(subtype)", headers: [("Content-Type", "multipart/\(subtype); boundary=\"\(boundary)\"")],
                parts: parts)
        }
        var body: MimePart
        switch (message.plainText, message.html) {
        case (let plain?, let html?): body = multipart("alternative", [text("text/plain", plain), text("text/html", html)], 1)
        case (let plain?, nil): body = text("text/plain", plain)
        case (nil, let html?): body = text("text/html", html)
        case (nil, nil): body = text("text/plain", "")
        }
        guard !message.attachments.isEmpty else { return body }
        let attachments = message.attachments.enumerated().map { index, file in
            MimePart(
                mimeType: file.mimeType, filename: file.filename,
                headers: [
                    ("Content-Type", "\(file.mimeType); name=\"\(file.filename)\""),
                    ("Content-Disposition", "attachment; filename=\"\(file.filename)\""),
                    ("Content-Transfer-Encoding", "base64"),
                ],
                data: file.data, attachmentId: attachmentId(message.id, index))
        }
        body = multipart("mixed", [body] + attachments, 2)
        return body
    }

    /// A part as Gmail's `payload` writes it: bodies base64url without padding, an attachment
    /// by `attachmentId` only, children numbered `0`, `1`, … under their parent's id.
    static func partJSON(_ part: MimePart, partId: String, extraHeaders: [(name: String, value: String)] = []) -> [String: Any] {
        var body: [String: Any] = ["size": part.parts.isEmpty ? part.data.count : 0]
        if part.parts.isEmpty {
            if let attachmentId = part.attachmentId {
                body["attachmentId"] = attachmentId
            } else {
                body["data"] = GoogleWire.base64URL(part.data)
            }
        }
        var json: [String: Any] = [
            "partId": partId, "mimeType": part.mimeType, "filename": part.filename,
            "headers": (extraHeaders + part.headers).map { ["name": $0.name, "value": $0.value] }, "body": body,
        ]
        if !part.parts.isEmpty {
            json["parts"] = part.parts.enumerated().map { index, child in
                partJSON(child, partId: partId.isEmpty ? String(index) : "\(partId).\(index)")
            }
        }
        return json
    }

    /// The message as RFC 822 text (`format=raw`).
    static func render(_ part: MimePart, headers: [(name: String, value: String)]) -> String {
        var text = headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
        if part.parts.isEmpty {
            text += part.data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]) + "\r\n"
        } else {
            let boundary =
                part.headers.first { $0.name == "Content-Type" }?.value
                .components(separatedBy: "boundary=\"").last?.replacingOccurrences(of: "\"", with: "") ?? "boundary"
            for child in part.parts { text += "--\(boundary)\r\n" + render(child, headers: child.headers) }
            text += "--\(boundary)--\r\n"
        }
        return text
    }

    /// The start of the readable text, whitespace collapsed and HTML-escaped as Gmail does.
    static func snippet(_ message: GoogleServer.GmailMessage) -> String {
        let text = message.plainText ?? message.html.map(stripTags) ?? ""
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return GoogleWire.htmlEscaped(String(collapsed.prefix(200)))
    }

    static func stripTags(_ html: String) -> String {
        html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "&nbsp;", with: " ")
    }
}

/// The part of Gmail's search language the server understands. Terms are AND-ed; a leading `-`
/// negates one. `from:`, `to:`, `subject:` match their header case-insensitively as a
/// substring; `label:`, `in:`, `is:unread|read|starred|important`, `has:attachment`,
/// `filename:`, `after:`/`before:` (`YYYY/MM/DD` or seconds since 1970),
/// `newer_than:`/`older_than:` (`Nd`, `Nm`, `Ny`); anything else, unknown operators included,
/// is a word looked for in the subject and the body. `"…"` quotes a phrase.
struct GmailSearch {
    private var tests: [(GoogleState.MailEntry) -> Bool] = []
    /// Whether the query asks for spam or trash (`in:spam`, `in:trash`, `in:anywhere`).
    private(set) var reachesSpamTrash = false

    init(_ query: String) {
        for var term in Self.terms(query) {
            var negated = false
            if term.hasPrefix("-"), term.count > 1 {
                negated = true
                term.removeFirst()
            }
            guard let test = test(for: term) else { continue }
            tests.append(negated ? { !test($0) } : test)
        }
    }

    func matches(_ entry: GoogleState.MailEntry) -> Bool {
        tests.allSatisfy { $0(entry) }
    }

    /// The terms, split at spaces outside double quotes.
    private static func terms(_ query: String) -> [String] {
        var terms: [String] = []
        var current = ""
        var quoted = false
        for character in query {
            if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character.isWhitespace && !quoted {
                if !current.isEmpty { terms.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { terms.append(current) }
        return terms
    }

    private static func unquoted(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }

    private mutating func test(for term: String) -> ((GoogleState.MailEntry) -> Bool)? {
        if term == "AND" { return nil }
        if let colon = term.firstIndex(of: ":") {
            let key = term[..<colon].lowercased()
            let value = Self.unquoted(String(term[term.index(after: colon)...]))
            let lowered = value.lowercased()
            switch key {
            case "from": return { $0.message.from.lowercased().contains(lowered) }
            case "to": return { $0.message.to.lowercased().contains(lowered) }
            case "subject": return { $0.message.subject.lowercased().contains(lowered) }
            case "label":
                return { entry in
                    entry.message.labelIds.contains { $0.lowercased() == lowered.replacingOccurrences(of: "-", with: " ") || $0.lowercased() == lowered }
                }
            case "in":
                if ["anywhere", "spam", "trash"].contains(lowered) { reachesSpamTrash = true }
                if lowered == "anywhere" { return { _ in true } }
                return { $0.message.labelIds.contains(value.uppercased()) }
            case "is":
                switch lowered {
                case "read": return { !$0.message.labelIds.contains("UNREAD") }
                default: return { $0.message.labelIds.contains(value.uppercased()) }
                }
            case "has":
                return lowered == "attachment" ? { !$0.message.attachments.isEmpty } : { _ in false }
            case "filename":
                return { $0.message.attachments.contains { $0.filename.lowercased().contains(lowered) } }
            case "after", "before", "newer", "older":
                guard let bound = Self.day(value) else { break }
                let milliseconds = Int64(bound.timeIntervalSince1970 * 1000)
                return key == "after" || key == "newer" ? { $0.internalDate >= milliseconds } : { $0.internalDate < milliseconds }
            case "newer_than", "older_than":
                guard let span = Self.span(lowered) else { break }
                let milliseconds = Int64(Date().addingTimeInterval(-span).timeIntervalSince1970 * 1000)
                return key == "newer_than" ? { $0.internalDate >= milliseconds } : { $0.internalDate < milliseconds }
            default:
                break
            }
        }
        let word = Self.unquoted(term).lowercased()
        return { entry in
            let message = entry.message
            let body = (message.plainText ?? "") + " " + (message.html.map(GoogleState.stripTags) ?? "")
            return message.subject.lowercased().contains(word) || body.lowercased().contains(word)
        }
    }

    /// `YYYY/MM/DD`, `YYYY-MM-DD` (midnight UTC) or seconds since 1970.
    private static func day(_ text: String) -> Date? {
        if let seconds = TimeInterval(text) { return Date(timeIntervalSince1970: seconds) }
        let parts = text.split(whereSeparator: { $0 == "/" || $0 == "-" }).compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts[1]
        components.day = parts[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar.date(from: components)
    }

    /// `3d`, `2m`, `1y` in seconds.
    private static func span(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Double(text.dropLast()) else { return nil }
        switch unit {
        case "d": return count * 86_400
        case "m": return count * 30 * 86_400
        case "y": return count * 365 * 86_400
        default: return nil
        }
    }
}
