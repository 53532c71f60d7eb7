import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its fields: what OpenAI's audio
/// uploads send. The parser takes whole bodies (already size-limited), refuses anything
/// malformed with a reason a client can act on, and bounds the number of parts and the size
/// of each part's headers, so bad input costs little.
struct MultipartForm: Sendable, Equatable {
    /// One field.
    struct Part: Sendable, Equatable {
        /// The field's name.
        var name: String
        /// The uploaded file's name, for file fields.
        var filename: String?
        /// The part's `Content-Type`, if it has one.
        var contentType: String?
        /// The content.
        var data: [UInt8]

        /// The content as text.
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    /// Why a body is not a usable form.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The fields, in order.
    var parts: [Part]

    /// The first field named `name`.
    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    /// The most parts a form may have.
    static let maxParts = 64
    /// The most bytes of headers a part may have.
    static let maxHeaderBytes = 8 * 1024

    /// The boundary of a `multipart/form-data` content type, e.g.
    /// `multipart/form-data; boundary=----x` (quoted or not).
    static func boundary(contentType: String?) throws(Failure) -> String {
        guard let contentType else { throw Failure(description: "The request has no Content-Type: send multipart/form-data.") }
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.first?.lowercased() == "multipart/form-data" else {
            throw Failure(description: "The Content-Type is \(fields.first ?? ""), not multipart/form-data.")
        }
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "="), field[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = field[field.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard (1...70).contains(value.utf8.count) else { throw Failure(description: "The multipart boundary must be 1 to 70 characters long.") }
            return value
        }
        throw Failure(description: "The multipart/form-data Content-Type has no boundary.")
    }

    /// Splits `body` at `boundary`.
    static func parse(_ body: [UInt8], boundary: String) throws(Failure) -> MultipartForm {
        let delimiter = Array("--\(boundary)".utf8)
        // The first delimiter starts the body or follows a preamble ending in CRLF.
        guard var cursor = firstDelimiter(delimiter, in: body) else {
            throw Failure(description: "The multipart body does not contain its boundary.")
        }
        var parts: [Part] = []
        let separator = Array("\r\n".utf8) + delimiter
        while true {
            cursor += delimiter.count
            // After a delimiter: "--" ends the form, CRLF starts a part.
            if starts(body, at: cursor, with: Array("--".utf8)) { break }
            skipTransportPadding(body, &cursor)
            guard starts(body, at: cursor, with: Array("\r\n".utf8)) else {
                throw Failure(description: "A multipart boundary is not followed by a line break.")
            }
            cursor += 2
            guard parts.count < maxParts else { throw Failure(description: "The form has more than \(maxParts) parts.") }
            guard let headerEnd = find(Array("\r\n\r\n".utf8), in: body, from: cursor, limit: maxHeaderBytes) else {
                throw Failure(description: "A multipart part's headers do not end (or are longer than \(maxHeaderBytes) bytes).")
            }
            var part = try headers(body[cursor..<headerEnd])
            let contentStart = headerEnd + 4
            guard let contentEnd = find(separator, in: body, from: contentStart) else {
                throw Failure(description: "The multipart body ends before its closing boundary.")
            }
            part.data = Array(body[contentStart..<contentEnd])
            parts.append(part)
            cursor = contentEnd + 2
        }
        return MultipartForm(parts: parts)
    }

    /// Reads a part's headers: its `Content-Disposition` (which must be `form-data` with a
    /// name) and `Content-Type`.
    private static func headers(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Part {
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw Failure(description: "A multipart part's headers are not UTF-8.") }
        var name: String?
        var filename: String?
        var contentType: String?
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "A multipart part has a malformed header line.") }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field {
            case "content-disposition":
                let parameters = Self.parameters(value)
                guard parameters.first?.key.lowercased() == "form-data" else {
                    throw Failure(description: "A multipart part's Content-Disposition is not form-data.")
                }
                name = parameters.first { $0.key.lowercased() == "name" }?.value
                filename = parameters.first { $0.key.lowercased() == "filename" }?.value
            case "content-type":
                contentType = value
            default:
                break
            }
        }
        guard let name, !name.isEmpty else { throw Failure(description: "A multipart part has no name in its Content-Disposition.") }
        return Part(name: name, filename: filename, contentType: contentType, data: [])
    }

    /// `form-data; name="file"; filename="a b.wav"` as key-value pairs (the first with no value).
    static func parameters(_ value: String) -> [(key: String, value: String?)] {
        var result: [(key: String, value: String?)] = []
        var current = ""
        var quoted = false
        var escaped = false
        var pieces: [String] = []
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ";" && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        for piece in pieces {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                result.append((trimmed, nil))
                continue
            }
            var parameter = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if parameter.count >= 2, parameter.hasPrefix("\""), parameter.hasSuffix("\"") {
                parameter = String(parameter.dropFirst().dropLast())
            }
            result.append((trimmed[..<equals].trimmingCharacters(in: .whitespaces), parameter))
        }
        return result
    }

    /// The first delimiter: at the very start, or after a CRLF that ends a preamble.
    private static func firstDelimiter(_ delimiter: [UInt8], in body: [UInt8]) -> Int? {
        if starts(body, at: 0, with: delimiter) { return 0 }
        return find(Array("\r\n".utf8) + delimiter, in: body, from: 0).map { $0 + 2 }
    }

    /// Spaces and tabs a sender may put after a boundary (RFC 2046's transport padding).
    private static func skipTransportPadding(_ body: [UInt8], _ cursor: inout Int) {
        while cursor < body.count, body[cursor] == UInt8(ascii: " ") || body[cursor] == UInt8(ascii: "\t") { cursor += 1 }
    }

    private static func starts(_ body: [UInt8], at offset: Int, with prefix: [UInt8]) -> Bool {
        guard offset >= 0, offset + prefix.count <= body.count else { return false }
        for index in 0..<prefix.count where body[offset + index] != prefix[index] { return false }
        return true
    }

    /// The offset of the first `needle` in `body` at or after `start`, looking at most `limit`
    /// bytes past `start`.
    static func find(_ needle: [UInt8], in body: [UInt8], from start: Int, limit: Int? = nil) -> Int? {
        guard let first = needle.first, start >= 0 else { return nil }
        let end = min(body.count, limit.map { start + $0 + needle.count } ?? body.count) - needle.count
        guard start <= end else { return nil }
        return body.withUnsafeBufferPointer { bytes -> Int? in
            guard let base = bytes.baseAddress else { return nil }
            var index = start
            while index <= end {
                guard let found = memchr(base + index, Int32(first), end - index + 1) else { return nil }
                let hit = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var matches = true
                for offset in 1..<needle.count where bytes[hit + offset] != needle[offset] {
                    matches = false
                    break
                }
                if matches { return hit }
                index = hit + 1
            }
            return nil
        }
    }
}
