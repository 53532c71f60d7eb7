import Foundation
import Testing
@testable import ParleyCloud

/// The event-stream rules of the WHATWG HTML standard (§ 9.2 server-sent events) that the
/// provider suites do not reach, and the parsers under every pair of cut positions.
@Suite("SSE and NDJSON parsers: conformance and every two-cut split")
struct SSEConformanceTests {
    static let stream = Array("event: a\r\ndata: {\"t\":\"é—🇫🇷\"}\r\n\r\n: note\rdata: x\rdata\r\rid: 3\ndata:  two\n\n".utf8)
    static let expected = [
        SSEParser.Event(type: "a", data: "{\"t\":\"é—🇫🇷\"}"),
        SSEParser.Event(type: "message", data: "x\n"),
        SSEParser.Event(type: "message", data: " two", id: "3"),
    ]

    static func parse(_ chunks: [ArraySlice<UInt8>]) -> [SSEParser.Event] {
        var parser = SSEParser()
        return chunks.flatMap { parser.feed($0) }
    }

    @Test("SSE: the same events for every pair of cut positions (CR, LF and CRLF line ends)")
    func everyTwoCuts() {
        let bytes = Self.stream
        var failures = 0
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let events = Self.parse([bytes[..<first], bytes[first..<second], bytes[second...]])
                if events != Self.expected { failures += 1 }
            }
        }
        #expect(failures == 0)
    }

    @Test("SSE: field rules")
    func fieldRules() {
        var parser = SSEParser()
        // Field names are case-sensitive; unknown fields and retry are ignored; a value keeps
        // all but one leading space; a line without a colon is a field with an empty value.
        let events = parser.feed(Array("Data: ignored\nretry: 10\nfoo: bar\ndata:a\ndata: \ndata\n\n".utf8))
        #expect(events == [SSEParser.Event(data: "a\n\n")])
    }

    @Test("SSE: the event type applies to one event; the last event id carries over")
    func typeAndID() {
        var parser = SSEParser()
        let events = parser.feed(Array("event: first\nid: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n".utf8))
        #expect(
            events == [
                SSEParser.Event(type: "first", data: "a", id: "1"),
                SSEParser.Event(type: "message", data: "b", id: "1"),
                SSEParser.Event(type: "message", data: "c", id: ""),
            ])
    }

    @Test("SSE: blank lines and comments alone dispatch nothing; an event type without data dispatches nothing")
    func nothingToDispatch() {
        var parser = SSEParser()
        #expect(parser.feed(Array("\n\r\n:comment\n\nevent: ping\n\n".utf8)).isEmpty)
        #expect(!parser.hasPartialEvent)
    }

    @Test("SSE: an event without its closing blank line is not dispatched, and counts as partial")
    func unfinishedEvent() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: {\"cut\":".utf8)).isEmpty)
        #expect(parser.hasPartialEvent)
        #expect(parser.feed(Array("true}\n".utf8)).isEmpty)
        #expect(parser.hasPartialEvent)
        #expect(parser.feed(Array("\n".utf8)) == [SSEParser.Event(data: "{\"cut\":true}")])
    }

    @Test("SSE: a leading byte-order mark is skipped")
    func byteOrderMark() {
        var parser = SSEParser()
        let events = parser.feed([0xEF, 0xBB, 0xBF] + Array("event: a\ndata: b\n\n".utf8))
        #expect(events == [SSEParser.Event(type: "a", data: "b")])
    }

    @Test("SSE: an id containing NUL is ignored")
    func idWithNull() {
        var parser = SSEParser()
        let events = parser.feed(Array("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n".utf8))
        #expect(events.last == SSEParser.Event(data: "b", id: "1"))
    }

    @Test("NDJSON: the same lines for every pair of cut positions")
    func linesEveryTwoCuts() {
        let text = Array("{\"a\":\"é\"}\r\n\n{\"b\":\"🇫🇷\"}\r\n{\"c\":3}\n".utf8)
        var failures = 0
        for first in 0...text.count {
            for second in first...text.count {
                var splitter = LineSplitter()
                var lines = splitter.feed(text[..<first]) + splitter.feed(text[first..<second]) + splitter.feed(text[second...])
                if let last = splitter.finish() { lines.append(last) }
                if lines != ["{\"a\":\"é\"}", "{\"b\":\"🇫🇷\"}", "{\"c\":3}"] { failures += 1 }
            }
        }
        #expect(failures == 0)
    }

    @Test("NDJSON: a last line without its newline is returned by finish, once")
    func lastLine() {
        var splitter = LineSplitter()
        #expect(splitter.feed(Array("{\"done\":true}".utf8)).isEmpty)
        #expect(splitter.finish() == "{\"done\":true}")
        #expect(splitter.finish() == nil)
    }
}
