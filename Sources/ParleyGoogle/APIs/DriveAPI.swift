import Foundation

/// A Drive file's metadata, as `files.list`, `files.get` and `changes.list` give it.
public struct DriveFile: Sendable, Equatable, Decodable {
    /// The file's id.
    public var id: String
    /// Its name.
    public var name: String
    /// Its MIME type; Google Docs are `application/vnd.google-apps.document`.
    public var mimeType: String
    /// When it last changed (RFC 3339).
    public var modifiedTime: String?
    /// The folders it is in.
    public var parents: [String]?
    /// Whether it is in the trash.
    public var trashed: Bool?
    /// Its size in bytes (not for Google Docs).
    public var size: String?

    /// Whether it is a Google Docs editor file, read by export rather than download.
    public var isGoogleDocument: Bool { mimeType.hasPrefix("application/vnd.google-apps.") }

    /// Creates a value (tests).
    public init(
        id: String, name: String, mimeType: String, modifiedTime: String? = nil, parents: [String]? = nil,
        trashed: Bool? = nil, size: String? = nil
    ) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.modifiedTime = modifiedTime
        self.parents = parents
        self.trashed = trashed
        self.size = size
    }
}

/// One entry of `changes.list`.
public struct DriveChange: Sendable, Equatable, Decodable {
    /// The file that changed.
    public var fileId: String?
    /// Whether it was removed (deleted, or no longer shared).
    public var removed: Bool?
    /// The file as it is now; absent when removed.
    public var file: DriveFile?
}

/// Drive v3: folder listings, the changes feed, downloads and exports.
public struct DriveAPI: Sendable {
    let session: GoogleSession
    let base: String
    static let service = "Google Drive"
    private static let fileFields = "id,name,mimeType,modifiedTime,parents,trashed,size"

    /// Drive through `session`, at `endpoints.api`.
    public init(session: GoogleSession, endpoints: GoogleEndpoints) {
        self.session = session
        base = endpoints.api + "/drive/v3"
    }

    /// The files in `folder` that are not in the trash, every page.
    public func files(inFolder folder: String, pageSize: Int = 100) async throws -> [DriveFile] {
        struct Page: Decodable {
            var files: [DriveFile]?
            var nextPageToken: String?
        }
        let escaped = folder.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        var files: [DriveFile] = []
        var pageToken: String?
        repeat {
            let url = FormEncoding.url(
                base + "/files",
                [
                    ("q", "'\(escaped)' in parents and trashed = false"), ("pageSize", String(pageSize)),
                    ("fields", "nextPageToken,files(\(Self.fileFields))"), ("pageToken", pageToken),
                    ("supportsAllDrives", "true"), ("includeItemsFromAllDrives", "true"),
                ])
            let page = try await session.get(Page.self, url, service: Self.service)
            files += page.files ?? []
            pageToken = page.nextPageToken
        } while pageToken != nil
        return files
    }

    /// The token that starts the changes feed from now (`changes.getStartPageToken`).
    public func startPageToken() async throws -> String {
        struct Body: Decodable { var startPageToken: String }
        return try await session.get(
            Body.self, FormEncoding.url(base + "/changes/startPageToken", [("supportsAllDrives", "true")]),
            service: Self.service
        ).startPageToken
    }

    /// Every change since `pageToken`, and the token to start from next time.
    public func changes(since pageToken: String, pageSize: Int = 100) async throws -> (changes: [DriveChange], next: String) {
        struct Page: Decodable {
            var changes: [DriveChange]?
            var nextPageToken: String?
            var newStartPageToken: String?
        }
        var changes: [DriveChange] = []
        var token = pageToken
        while true {
            let url = FormEncoding.url(
                base + "/changes",
                [
                    ("pageToken", token), ("pageSize", String(pageSize)), ("includeRemoved", "true"),
                    ("fields", "nextPageToken,newStartPageToken,changes(fileId,removed,file(\(Self.fileFields)))"),
                    ("supportsAllDrives", "true"), ("includeItemsFromAllDrives", "true"),
                ])
            let page = try await session.get(Page.self, url, service: Self.service)
            changes += page.changes ?? []
            if let next = page.nextPageToken {
                token = next
            } else if let start = page.newStartPageToken {
                return (changes, start)
            } else {
                throw GoogleError.malformed(name: Self.service, reason: "a changes page with neither nextPageToken nor newStartPageToken")
            }
        }
    }

    /// A file's content: a Google Doc exported as plain text (`files.export`), anything
    /// else downloaded (`files.get?alt=media`).
    public func content(of file: DriveFile) async throws -> Data {
        let id = FormEncoding.escape(file.id)
        if file.isGoogleDocument {
            return try await session.get(
                FormEncoding.url(base + "/files/\(id)/export", [("mimeType", "text/plain")]),
                service: Self.service)
        }
        return try await session.get(
            FormEncoding.url(base + "/files/\(id)", [("alt", "media"), ("supportsAllDrives", "true")]),
            service: Self.service)
    }
}
