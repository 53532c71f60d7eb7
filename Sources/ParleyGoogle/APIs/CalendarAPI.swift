import Foundation

/// A Calendar event, as `events.list` gives it.
public struct CalendarEvent: Sendable, Equatable, Decodable {
    /// When an event starts or ends: a whole day, or a time.
    public struct Time: Sendable, Equatable, Decodable {
        /// `YYYY-MM-DD` for a whole-day event.
        public var date: String?
        /// RFC 3339 for a timed event.
        public var dateTime: String?
        /// The time zone it was written in.
        public var timeZone: String?
    }

    /// The event's id.
    public var id: String
    /// `confirmed`, `tentative` or `cancelled`.
    public var status: String?
    /// Its title.
    public var summary: String?
    /// Its notes.
    public var description: String?
    /// Its page in Google Calendar.
    public var htmlLink: String?
    /// When it starts.
    public var start: Time?
    /// When it ends.
    public var end: Time?

    /// Whether it was cancelled (or deleted).
    public var isCancelled: Bool { status == "cancelled" }
}

/// Calendar v3 `events.list`, full or incremental.
public struct CalendarAPI: Sendable {
    let session: GoogleSession
    let base: String
    static let service = "Google Calendar"

    /// A sync token Google no longer accepts (410): a full sync is needed.
    public struct SyncTokenExpired: Error {}

    /// Calendar through `session`, at `endpoints.api`.
    public init(session: GoogleSession, endpoints: GoogleEndpoints) {
        self.session = session
        base = endpoints.api + "/calendar/v3"
    }

    /// The events of `calendar`: with `syncToken`, those changed since it (cancelled ones
    /// included); without, those starting after `from` (every page). Returns the token for
    /// the next increment. Throws ``SyncTokenExpired`` on 410.
    public func events(
        calendar: String, syncToken: String?, from: Date, pageSize: Int = 250
    )
        async throws -> (events: [CalendarEvent], nextSyncToken: String)
    {
        struct Page: Decodable {
            var items: [CalendarEvent]?
            var nextPageToken: String?
            var nextSyncToken: String?
        }
        var events: [CalendarEvent] = []
        var pageToken: String?
        let formatter = ISO8601DateFormatter()
        while true {
            var fields: [(String, String?)] = [("maxResults", String(pageSize)), ("singleEvents", "true"), ("pageToken", pageToken)]
            if let syncToken {
                fields.append(("syncToken", syncToken))
            } else {
                fields.append(("timeMin", formatter.string(from: from)))
            }
            let url = FormEncoding.url(base + "/calendars/\(FormEncoding.escape(calendar))/events", fields)
            let page: Page
            do {
                page = try await session.get(Page.self, url, service: Self.service)
            } catch let error as GoogleError {
                if case .service(_, 410, _, _) = error { throw SyncTokenExpired() }
                throw error
            }
            events += page.items ?? []
            if let next = page.nextPageToken {
                pageToken = next
            } else if let sync = page.nextSyncToken {
                return (events, sync)
            } else {
                throw GoogleError.malformed(name: Self.service, reason: "an events page with neither nextPageToken nor nextSyncToken")
            }
        }
    }
}
