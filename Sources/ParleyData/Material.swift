import Foundation

/// A study material: a document's or an image's text, kept so a learner can ask about it,
/// summarize it, simplify it, break it into tasks or map it.
public struct Material: Sendable, Equatable, Codable {
    /// The material's id.
    public var id: Int64
    /// When it was added.
    public var createdAt: Date
    /// Its title (the file's name unless given).
    public var title: String
    /// What it was made from: `text`, `markdown`, `pdf` or `image`.
    public var kind: String
    /// The file it was read from, as given.
    public var source: String
    /// Its text; a PDF's pages are separated by a blank line.
    public var text: String
    /// Pages: a PDF's page count, 1 for anything else.
    public var pageCount: Int
    /// What read the text: `file`, `pdftotext`, `tesseract`, or both joined with `+`.
    public var readBy: String
    /// Where a synced material came from, e.g. `drive:FILE_ID`; `nil` for one added from a file.
    public var origin: String?

    /// Creates a material value.
    public init(
        id: Int64, createdAt: Date, title: String, kind: String, source: String, text: String, pageCount: Int, readBy: String,
        origin: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.title = title
        self.kind = kind
        self.source = source
        self.text = text
        self.pageCount = pageCount
        self.readBy = readBy
        self.origin = origin
    }

    enum CodingKeys: String, CodingKey {
        case id, title, kind, source, text, origin
        case createdAt = "created_at"
        case pageCount = "page_count"
        case readBy = "read_by"
    }
}

/// A material to add.
public struct NewMaterial: Sendable, Equatable {
    public var title: String
    public var kind: String
    public var source: String
    public var text: String
    public var pageCount: Int
    public var readBy: String
    /// Where a synced material came from (e.g. `drive:FILE_ID`): saving another material from
    /// the same origin replaces it. `nil` for a material added from a file.
    public var origin: String?

    /// Creates a material to add.
    public init(title: String, kind: String, source: String, text: String, pageCount: Int, readBy: String, origin: String? = nil) {
        self.title = title
        self.kind = kind
        self.source = source
        self.text = text
        self.pageCount = pageCount
        self.readBy = readBy
        self.origin = origin
    }
}
