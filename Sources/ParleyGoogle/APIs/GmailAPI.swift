import Foundation

/// A Gmail message part (`payload` and its `parts`), as `messages.get?format=full` gives it.
public struct GmailPart: Sendable, Equatable, Decodable {
    /// A header.
    public struct Header: Sendable, Equatable, Decodable {
        public var name: String
        public var value: String
    }

    /// A body: base64url `data`, or an `attachmentId` for a large attachment.
    public struct Body: Sendable, Equatable, Decodable {
        public var size: Int?
        public var data: String?
        public var attachmentId: String?
    }

    /// The part's MIME type.
    public var mimeType: String?
    /// The attachment's file name ("" for a text part).
    public var filename: String?
    /// Its headers.
    public var headers: [Header]?
    /// Its body.
    public var body: Body?
    /// Its sub-parts (multipart types).
    public var parts: [GmailPart]?

    /// The first header named `name` (case-insensitively).
    public func header(_ name: String) -> String? {
        headers?.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A Gmail message in `format=full`.
public struct GmailMessage: Sendable, Equatable, Decodable {
    /// Its id.
    public var id: String
    /// Its thread's id.
    public var threadId: String?
    /// The mailbox's history id when it was last changed.
    public var historyId: String?
    /// Milliseconds since 1970 when Gmail received it (a string).
    public var internalDate: String?
    /// A short excerpt.
    public var snippet: String?
    /// Its MIME structure.
    public var payload: GmailPart?

    /// The `Subject` header.
    public var subject: String { payload?.header("Subject") ?? "" }
    /// The `From` header.
    public var from: String { payload?.header("From") ?? "" }

    /// When it was sent: the `Date` header, else when Gmail received it.
    public var sentAt: Date? {
        if let header = payload?.header("Date"), let date = MailDate.parse(header) { return date }
        return internalDate.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// The time zone of the `Date` header (the sender's), else UTC.
    public var sentTimeZone: TimeZone {
        payload?.header("Date").flatMap(MailDate.timeZone) ?? TimeZone(identifier: "UTC") ?? .current
    }

    /// The readable text: the first `text/plain` part, else the first `text/html` part with
    /// its markup removed; base64url bodies decoded as UTF-8.
    public var text: String {
        guard let payload else { return snippet ?? "" }
        if let plain = Self.firstBody(of: "text/plain", in: payload) { return plain }
        if let html = Self.firstBody(of: "text/html", in: payload) { return HTMLText.plain(html) }
        return snippet ?? ""
    }

    private static func firstBody(of type: String, in part: GmailPart) -> String? {
        if part.mimeType?.lowercased() == type, (part.filename ?? "").isEmpty,
            let data = part.body?.data, let bytes = Base64URL.decode(data)
        {
            return String(decoding: bytes, as: UTF8.self)
        }
        for child in part.parts ?? [] {
            if let found = firstBody(of: type, in: child) { return found }
        }
        return nil
    }
}

/// Gmail v1 for the signed-in user: search, read, and the history of additions.
public struct GmailAPI: Sendable {
    let session: GoogleSession
    let base: String
    static let service = "Gmail"

    /// A history id older than Gmail keeps (404): a full sync is needed.
    public struct HistoryExpired: Error {}

    /// Gmail through `session`, at `endpoints.api`.
    public init(session: GoogleSession, endpoints: GoogleEndpoints) {
        self.session = session
        base = endpoints.api + "/gmail/v1/users/me"
    }

    /// The mailbox's current history id (`users.getProfile`).
    public func currentHistoryId() async throws -> String {
        struct Profile: Decodable { var historyId: String }
        return try await session.get(Profile.self, base + "/profile", service: Self.service).historyId
    }

    /// The ids of messages matching `query`, newest first, at most `limit`; `stopWhen` ends
    /// the paging early once the ids so far are enough.
    public func messageIds(
        matching query: String, limit: Int, pageSize: Int = 100,
        stopWhen: ([String]) -> Bool = { _ in false }
    ) async throws -> [String] {
        struct Page: Decodable {
            struct Ref: Decodable { var id: String }
            var messages: [Ref]?
            var nextPageToken: String?
        }
        var ids: [String] = []
        var pageToken: String?
        repeat {
            let url = FormEncoding.url(
                base + "/messages",
                [
                    ("q", query.isEmpty ? nil : query), ("maxResults", String(min(pageSize, max(1, limit - ids.count)))),
                    ("pageToken", pageToken),
                ])
            let page = try await session.get(Page.self, url, service: Self.service)
            ids += (page.messages ?? []).map(\.id)
            pageToken = page.nextPageToken
        } while pageToken != nil && ids.count < limit && !stopWhen(ids)
        return Array(ids.prefix(limit))
    }

    /// One message in full.
    public func message(_ id: String) async throws -> GmailMessage {
        try await session.get(
            GmailMessage.self, FormEncoding.url(base + "/messages/\(FormEncoding.escape(id))", [("format", "full")]),
            service: Self.service)
    }

    /// The ids of messages added since `historyId`, and the mailbox's history id now. Throws
    /// ``HistoryExpired`` when Gmail no longer has history that old.
    public func addedMessages(since historyId: String) async throws -> (ids: [String], historyId: String) {
        struct Page: Decodable {
            struct Record: Decodable {
                struct Added: Decodable {
                    struct Ref: Decodable { var id: String }
                    var message: Ref
                }
                var messagesAdded: [Added]?
            }
            var history: [Record]?
            var historyId: String?
            var nextPageToken: String?
        }
        var ids: [String] = []
        var pageToken: String?
        var latest = historyId
        repeat {
            let url = FormEncoding.url(
                base + "/history",
                [
                    ("startHistoryId", historyId), ("historyTypes", "messageAdded"), ("pageToken", pageToken),
                ])
            let page: Page
            do {
                page = try await session.get(Page.self, url, service: Self.service)
            } catch let error as GoogleError {
                if case .service(_, 404, _, _) = error { throw HistoryExpired() }
                throw error
            }
            for record in page.history ?? [] {
                for added in record.messagesAdded ?? [] where !ids.contains(added.message.id) { ids.append(added.message.id) }
            }
            latest = page.historyId ?? latest
            pageToken = page.nextPageToken
        } while pageToken != nil
        return (ids, latest)
    }
}

/// Text from HTML mail: markup removed, block ends as line breaks, entities decoded.
enum HTMLText {
    static func plain(_ html: String) -> String {
        var text = html
        for pattern in ["(?is)<(script|style|head)[^>]*>.*?</\\1>", "(?s)<!--.*?-->"] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        text = text.replacingOccurrences(of: "(?i)<br\\s*/?>|</(p|div|li|tr|h[1-6])>", with: "\n", options: .regularExpression)
        text = text.replacingOccurrences(of: "(?s)<[^>]*>", with: "", options: .regularExpression)
        let entities = ["&nbsp;": " ", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'", "&apos;": "'"]
        for (entity, character) in entities { text = text.replacingOccurrences(of: entity, with: character) }
        text = text.replacingOccurrences(of: "&amp;", with: "&")
        let lines = text.components(separatedBy: "\n").map {
            $0.replacingOccurrences(of: "[ \\t]+", with: " ", options: .regularExpression).trimmingCharacters(in: .whitespaces)
        }
        return lines.joined(separator: "\n").replacingOccurrences(of: "\n{3,}", with: "\n\n", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// RFC 5322 `Date` headers: `Fri, 20 Nov 2026 09:15:00 +0100`.
enum MailDate {
    static func parse(_ header: String) -> Date? {
        let cleaned = header.replacingOccurrences(of: "\\s*\\([^)]*\\)\\s*$", with: "", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["EEE, d MMM yyyy HH:mm:ss Z", "d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm Z", "EEE, d MMM yyyy HH:mm:ss zzz"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: cleaned) { return date }
        }
        return nil
    }

    /// The header's numeric zone as a time zone.
    static func timeZone(_ header: String) -> TimeZone? {
        guard let match = header.range(of: "[+-][0-9]{4}", options: .regularExpression) else { return nil }
        let zone = header[match]
        guard let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)) else { return nil }
        let seconds = (hours * 3600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
        return TimeZone(secondsFromGMT: seconds)
    }
}
