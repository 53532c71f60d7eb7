/// An incremental parser of server-sent events (the WHATWG event-stream format), fed byte
/// chunks split anywhere: inside a line, inside a UTF-8 character, or between CR and LF.
public struct SSEParser: Sendable {
    /// One dispatched event.
    public struct Event: Sendable, Equatable {
        /// The `event:` field, or "message" when absent.
        public var type: String
        /// The `data:` lines joined with newlines.
        public var data: String
        /// The `id:` field, if any.
        public var id: String?

        /// Creates an event.
        public init(type: String = "message", data: String, id: String? = nil) {
            self.type = type
            self.data = data
            self.id = id
        }
    }

    private var line: [UInt8] = []
    private var lastWasCR = false
    private var eventType = ""
    private var data: [String] = []
    private var hasData = false
    private var id: String?
    /// How many bytes of a leading UTF-8 byte-order mark have been matched (3: past it).
    private var bomMatched = 0

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Creates a parser at the start of a stream.
    public init() {}

    /// Consumes bytes and returns the events they completed.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Event] where Bytes.Element == UInt8 {
        var events: [Event] = []
        for byte in bytes {
            // The standard's decoder drops one byte-order mark at the start of the stream.
            if bomMatched < 3 {
                if byte == Self.byteOrderMark[bomMatched] {
                    bomMatched += 1
                    continue
                }
                line.append(contentsOf: Self.byteOrderMark[..<bomMatched])
                bomMatched = 3
            }
            if byte == 0x0A, lastWasCR {  // LF of a CRLF pair: the line already ended at CR
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if let event = processLine() { events.append(event) }
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// Whether a partly received event is pending (used to tell a cut stream from a clean end).
    public var hasPartialEvent: Bool { !line.isEmpty || hasData }

    private mutating func processLine() -> Event? {
        if line.isEmpty {
            defer {
                eventType = ""
                data.removeAll()
                hasData = false
            }
            guard hasData else { return nil }
            return Event(type: eventType.isEmpty ? "message" : eventType, data: data.joined(separator: "\n"), id: id)
        }
        if line.first == UInt8(ascii: ":") { return nil }  // comment
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring, value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            var rest = text[text.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = rest
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": eventType = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id" where !value.contains("\u{0}"): id = String(value)  // an id with NUL is ignored
        default: break  // "retry" and unknown fields
        }
        return nil
    }
}

/// Splits a byte stream into lines (newline-delimited JSON), across arbitrary chunk borders.
public struct LineSplitter: Sendable {
    private var pending: [UInt8] = []

    /// Creates a splitter.
    public init() {}

    /// Consumes bytes and returns the complete, non-empty lines.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [String] where Bytes.Element == UInt8 {
        var lines: [String] = []
        for byte in bytes {
            if byte == 0x0A {
                if pending.last == 0x0D { pending.removeLast() }
                if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The last line if the stream ended without a newline.
    public mutating func finish() -> String? {
        defer { pending.removeAll() }
        let text = String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }
}

import Foundation
