import Foundation

/// Something a learner must hand in, and when: from a calendar event or a teacher's message.
public struct Assignment: Sendable, Equatable, Codable {
    /// The assignment's id.
    public var id: Int64
    /// When it was first saved.
    public var createdAt: Date
    /// When it was last saved.
    public var updatedAt: Date
    /// Where it came from, unique per owner: `calendar:CALENDAR/EVENT_ID`, `gmail:MESSAGE_ID#N`.
    public var origin: String
    /// What it came from: `calendar` or `gmail`.
    public var source: String
    /// Its name.
    public var title: String
    /// More about it (the event's notes, the sentence that states it); may be empty.
    public var details: String
    /// The day it is due, `YYYY-MM-DD`.
    public var dueDay: String
    /// The time it is due, when known; `nil` for a whole day.
    public var dueAt: Date?
    /// Where to open it, when known.
    public var link: String?

    /// Creates an assignment value.
    public init(
        id: Int64, createdAt: Date, updatedAt: Date, origin: String, source: String, title: String, details: String,
        dueDay: String, dueAt: Date?, link: String?
    ) {
        self.id = id
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.origin = origin
        self.source = source
        self.title = title
        self.details = details
        self.dueDay = dueDay
        self.dueAt = dueAt
        self.link = link
    }

    enum CodingKeys: String, CodingKey {
        case id, origin, source, title, details, link
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case dueDay = "due_day"
        case dueAt = "due_at"
    }
}

/// An assignment to save.
public struct NewAssignment: Sendable, Equatable {
    /// Where it came from, unique per owner: saving another assignment from the same origin
    /// replaces it.
    public var origin: String
    /// What it came from: `calendar` or `gmail`.
    public var source: String
    /// Its name.
    public var title: String
    /// More about it; may be empty.
    public var details: String
    /// The day it is due, `YYYY-MM-DD`.
    public var dueDay: String
    /// The time it is due, when known; `nil` for a whole day.
    public var dueAt: Date?
    /// Where to open it, when known.
    public var link: String?

    /// Creates an assignment to save; one from the same `origin` is replaced.
    public init(origin: String, source: String, title: String, details: String = "", dueDay: String, dueAt: Date? = nil, link: String? = nil) {
        self.origin = origin
        self.source = source
        self.title = title
        self.details = details
        self.dueDay = dueDay
        self.dueAt = dueAt
        self.link = link
    }
}
