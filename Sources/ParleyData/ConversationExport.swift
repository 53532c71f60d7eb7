import Foundation

/// The JSON form of saved conversations, written by ``ConversationStore/export(thread:owner:)`` and
/// by `parley history --json`:
/// `{"threads":[{"id":…,"title":…,"created_at":…,"updated_at":…,"message_count":…,"preview":…,"settings":{…},"messages":[…]}]}`.
///
/// Keys are snake_case and dates ISO-8601 in UTC with milliseconds.
public struct ConversationExport: Sendable, Equatable, Codable {
    /// The exported threads, newest activity first.
    public var threads: [ExportedThread]

    /// Creates an export.
    public init(threads: [ExportedThread]) {
        self.threads = threads
    }

    /// The encoder of the export format: sorted keys, pretty printed, ISO-8601 dates.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Self.dateStyle))
        }
        return encoder
    }

    /// The decoder of the export format (dates with or without fractional seconds).
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Self.dateStyle.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO-8601 date, found \(text)")
        }
        return decoder
    }

    /// Encodes the export in its JSON form.
    public func jsonData() throws -> Data {
        try Self.encoder().encode(self)
    }

    /// Decodes an export from its JSON form.
    public static func decode(_ data: Data) throws -> ConversationExport {
        try decoder().decode(ConversationExport.self, from: data)
    }

    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
