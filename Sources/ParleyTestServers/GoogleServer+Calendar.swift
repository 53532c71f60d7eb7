import Foundation

/// Calendar v3 `events.list`: full listings (time window, deleted events on request) and
/// incremental ones from a sync token (410 once the token is invalidated).
extension GoogleState {
    // MARK: Test controls

    func addEvent(calendar: String, _ event: GoogleServer.CalendarEvent) {
        var book = calendars[calendar] ?? CalendarBook()
        book.sequence += 1
        let now = nextCalendarTime()
        let created = book.events[event.id]?.created ?? now
        book.events[event.id] = EventEntry(event: event, cancelled: false, sequence: book.sequence, created: created, updated: now)
        calendars[calendar] = book
    }

    func cancelEvent(calendar: String, id: String) {
        guard var book = calendars[calendar], var entry = book.events[id] else { return }
        book.sequence += 1
        entry.cancelled = true
        entry.sequence = book.sequence
        entry.updated = nextCalendarTime()
        book.events[id] = entry
        calendars[calendar] = book
    }

    func invalidateSyncTokens(calendar: String) {
        var book = calendars[calendar] ?? CalendarBook()
        book.generation += 1
        calendars[calendar] = book
    }

    /// Now, or a millisecond after the last `updated`, so every change has its own time.
    private func nextCalendarTime() -> Date {
        let now = max(Date(), lastCalendarUpdate.addingTimeInterval(0.001))
        lastCalendarUpdate = now
        return now
    }

    // MARK: Routing

    /// `path` is what follows `/calendar/v3`.
    func calendar(_ path: [String], query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        guard path.count == 3, path[0] == "calendars", path[2] == "events" else {
            return GoogleWire.apiError(404, reason: "notFound", message: "Not Found")
        }
        guard let book = calendars[path[1]] else {
            return GoogleWire.apiError(404, reason: "notFound", message: "Not Found")
        }
        return try listEvents(calendarId: path[1], book: book, query: query)
    }

    private func listEvents(calendarId: String, book: CalendarBook, query: GoogleParameters) throws(GoogleRejection) -> GoogleReply {
        let size = pageSize(try query.integer("maxResults").get(), server: calendarPageSize)
        let syncToken = query.nonEmpty("syncToken")
        let syncFrom: Int?
        if let syncToken {
            for name in ["timeMin", "timeMax", "orderBy", "q", "updatedMin", "iCalUID", "privateExtendedProperty", "sharedExtendedProperty"]
            where query.nonEmpty(name) != nil {
                throw GoogleRejection(
                    GoogleWire.invalidParameter(
                        "syncToken", "The sync token cannot be used together with \(name); send the same request without it for a full sync."))
            }
            guard let data = GoogleWire.decodeBase64URL(syncToken), let text = String(data: data, encoding: .utf8) else {
                throw Self.fullSyncRequired()
            }
            let parts = text.components(separatedBy: "\u{1F}")
            guard parts.count == 4, parts[0] == "sync", parts[1] == calendarId, Int(parts[2]) == book.generation,
                let sequence = Int(parts[3])
            else { throw Self.fullSyncRequired() }
            syncFrom = sequence
        } else {
            syncFrom = nil
        }
        if query["orderBy"] == "startTime" && query.flag("singleEvents") != true {
            throw GoogleRejection(GoogleWire.invalidParameter("orderBy", "The requested ordering is not available for the particular query."))
        }
        if let order = query.nonEmpty("orderBy"), !["startTime", "updated"].contains(order) {
            throw GoogleRejection(GoogleWire.invalidParameter("orderBy", "Invalid Value"))
        }

        // Where this listing stands: how far it got (an offset in a full listing, the last
        // sequence returned in an incremental one, which pages in order of change), and the
        // sequence a full listing's sync token carries: the one at its first page, so that
        // changes made while it pages come again in the next increment.
        var position = 0
        var snapshot = book.sequence
        if let token = query.nonEmpty("pageToken") {
            let fields = try GoogleWire.readPageToken(token, kind: "events", count: 3).get()
            guard fields[0] == calendarId, let savedPosition = Int(fields[1]), let savedSnapshot = Int(fields[2]) else {
                throw GoogleRejection(GoogleWire.invalidParameter("pageToken", "Invalid Value"))
            }
            position = savedPosition
            snapshot = savedSnapshot
        }

        var entries: [EventEntry]
        if let syncFrom {
            let after = max(syncFrom, position)
            entries = book.events.values.filter { $0.sequence > after }.sorted { $0.sequence < $1.sequence }
        } else {
            let timeMin = try Self.time(query, "timeMin")
            let timeMax = try Self.time(query, "timeMax")
            let showDeleted = query.flag("showDeleted") ?? false
            let words = query.nonEmpty("q")?.lowercased()
            entries = book.events.values.filter { entry in
                if entry.cancelled && !showDeleted { return false }
                if let timeMin, let end = Self.instant(entry.event.end), end <= timeMin { return false }
                if let timeMax, let start = Self.instant(entry.event.start), start >= timeMax { return false }
                if let words, !"\(entry.event.summary) \(entry.event.description ?? "")".lowercased().contains(words) { return false }
                return true
            }
            if query["orderBy"] == "updated" {
                entries.sort { $0.sequence < $1.sequence }
            } else {
                entries.sort { left, right in
                    let l = Self.instant(left.event.start) ?? .distantPast, r = Self.instant(right.event.start) ?? .distantPast
                    return l == r ? left.event.id < right.event.id : l < r
                }
            }
        }

        let incremental = syncFrom != nil
        let skipped = incremental ? 0 : position
        let page = entries.dropFirst(skipped).prefix(size)
        var body: [String: Any] = [
            "kind": "calendar#events", "etag": "\"\(book.sequence)\"", "summary": calendarId, "description": "",
            "updated": GoogleWire.rfc3339(lastCalendarUpdate == .distantPast ? Date() : lastCalendarUpdate),
            "timeZone": "UTC", "accessRole": "owner", "defaultReminders": [Any](),
            "items": page.map { Self.eventJSON($0, minimalWhenCancelled: incremental) },
        ]
        if skipped + page.count < entries.count {
            let next = incremental ? (page.last?.sequence ?? position) : skipped + page.count
            body["nextPageToken"] = GoogleWire.pageToken("events", [calendarId, String(next), String(snapshot)])
        } else {
            // An incremental listing, in order of change, has seen every change up to now.
            let through = incremental ? book.sequence : snapshot
            body["nextSyncToken"] = GoogleWire.pageToken("sync", [calendarId, String(book.generation), String(through)])
        }
        return GoogleWire.json(200, body)
    }

    private static func fullSyncRequired() -> GoogleRejection {
        GoogleRejection(GoogleWire.apiError(410, reason: "fullSyncRequired", message: "Sync token is no longer valid, a full sync is required."))
    }

    private static func time(_ query: GoogleParameters, _ name: String) throws(GoogleRejection) -> Date? {
        guard let text = query.nonEmpty(name) else { return nil }
        guard text.contains("T"), let date = GoogleWire.parseTime(text) else {
            throw GoogleRejection(GoogleWire.invalidParameter(name, "Bad Request"))
        }
        return date
    }

    /// A start or end as an instant (a whole day at midnight UTC).
    private static func instant(_ time: GoogleServer.EventTime) -> Date? {
        switch time {
        case .date(let day): return GoogleWire.parseTime(day)
        case .dateTime(let text, _): return GoogleWire.parseTime(text)
        }
    }

    private static func timeJSON(_ time: GoogleServer.EventTime) -> [String: Any] {
        switch time {
        case .date(let day):
            return ["date": day]
        case .dateTime(let text, let zone):
            var json: [String: Any] = ["dateTime": text]
            if let zone { json["timeZone"] = zone }
            return json
        }
    }

    /// An event as `events.list` writes it; a cancelled one in an incremental listing carries
    /// only its id and status.
    private static func eventJSON(_ entry: EventEntry, minimalWhenCancelled: Bool) -> [String: Any] {
        let event = entry.event
        var json: [String: Any] = [
            "kind": "calendar#event", "etag": "\"\(entry.sequence)\"", "id": event.id,
            "status": entry.cancelled ? "cancelled" : "confirmed",
        ]
        if entry.cancelled && minimalWhenCancelled { return json }
        json["summary"] = event.summary
        if let description = event.description { json["description"] = description }
        json["htmlLink"] = event.htmlLink ?? "https://www.google.com/calendar/event?eid=\(GoogleWire.base64URL(Data(event.id.utf8)))"
        json["created"] = GoogleWire.rfc3339(entry.created)
        json["updated"] = GoogleWire.rfc3339(entry.updated)
        json["start"] = timeJSON(event.start)
        json["end"] = timeJSON(event.end)
        json["iCalUID"] = "\(event.id)@google.com"
        json["sequence"] = 0
        json["eventType"] = "default"
        return json
    }
}
