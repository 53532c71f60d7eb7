import Foundation
import Testing
@testable import ParleyCloud

@Suite("Stream parsers")
struct StreamParsingTests {
    // CRLF and LF line ends, a comment, a multi-line data field, a named event, an id, a
    // non-ASCII character, and a field without a space after the colon.
    let stream = Array(": hello\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\ndata: first line\ndata:second é line\nid: 7\n\ndata: [DONE]\n\n".utf8)
    let expected = [
        SSEParser.Event(type: "message_start", data: "{\"a\":1}"),
        SSEParser.Event(type: "message", data: "first line\nsecond é line", id: "7"),
        SSEParser.Event(type: "message", data: "[DONE]", id: "7"),
    ]

    @Test("SSE: the same events whatever the split position")
    func everySplit() {
        for split in 0...stream.count {
            var parser = SSEParser()
            let events = parser.feed(stream[..<split]) + parser.feed(stream[split...])
            #expect(events == expected, "split at \(split)")
        }
    }

    @Test("SSE: byte by byte, and an unfinished event is reported as partial")
    func byteByByte() {
        var parser = SSEParser()
        var events: [SSEParser.Event] = []
        for byte in stream { events += parser.feed([byte]) }
        #expect(events == expected)
        #expect(!parser.hasPartialEvent)
        _ = parser.feed(Array("data: cut".utf8))
        #expect(parser.hasPartialEvent)
    }

    @Test("NDJSON: the same lines whatever the split position")
    func lines() {
        let text = Array("{\"a\":\"é\"}\r\n\n{\"b\":2}\n{\"c\":3}".utf8)
        for split in 0...text.count {
            var splitter = LineSplitter()
            var lines = splitter.feed(text[..<split]) + splitter.feed(text[split...])
            if let last = splitter.finish() { lines.append(last) }
            #expect(lines == ["{\"a\":\"é\"}", "{\"b\":2}", "{\"c\":3}"], "split at \(split)")
        }
    }

    @Test(
        "error bodies of each provider yield their message",
        arguments: [
            ("{\"error\":{\"message\":\"Invalid model\",\"type\":\"invalid_request_error\"}}", "Invalid model"),
            ("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", "Overloaded"),
            ("{\"error\":\"model 'x' not found\"}", "model 'x' not found"),
            ("{\"err_code\":\"INVALID_AUTH\",\"err_msg\":\"Invalid credentials.\"}", "Invalid credentials."),
            ("{\"detail\":{\"status\":\"quota_exceeded\",\"message\":\"Quota exceeded\"}}", "Quota exceeded"),
        ])
    func errorBodies(body: String, message: String) {
        #expect(HTTPProviderError.errorMessage(in: Data(body.utf8)) == message)
    }

    @Test("Retry-After in seconds and as an HTTP date")
    func retryAfter() {
        #expect(HTTPProviderError.parseRetryAfter("12") == .seconds(12))
        #expect(HTTPProviderError.parseRetryAfter("0.5") == .milliseconds(500))
        #expect(HTTPProviderError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .zero)
        #expect(HTTPProviderError.parseRetryAfter("soon") == nil)
    }
}
