@testable import ParleyServer
import Testing

/// The byte-level readings admission does on every request agree with the plain definitions.
@Suite("admission's readings of headers")
struct AdmissionTextTests {
    @Test("an IPv4 Host is recognised with or without a port; anything else takes the longer way")
    func ipv4() {
        for host in ["127.0.0.1", "127.0.0.1:8080", "10.0.0.255:1", "0.0.0.0"] {
            #expect(BrowserPolicy.isIPv4Authority(host), "\(host)")
        }
        for host in [
            "", "127.0.0.1:", "256.0.0.1", "1.2.3", "1.2.3.4.5", "1..2.3", "127.0.0.1:123456", "localhost", "a.b.c.d",
            "[::1]:80", "1.2.3.4:80:80", "１.2.3.4",
        ] {
            #expect(!BrowserPolicy.isIPv4Authority(host), "\(host)")
        }
    }

    @Test("header names and media types are compared without case, byte by byte")
    func caseless() {
        #expect(ASCII.equalsIgnoringCase("Content-Length", "content-length"))
        #expect(ASCII.equalsIgnoringCase("X-REQUEST-ID", "x-request-id"))
        #expect(!ASCII.equalsIgnoringCase("content-lengths", "content-length"))
        #expect(!ASCII.equalsIgnoringCase("content_length", "content-length"))
        #expect(BrowserPolicy.isFormType(" Text/Plain ; charset=utf-8"))
        #expect(BrowserPolicy.isFormType("application/x-www-form-urlencoded"))
        #expect(!BrowserPolicy.isFormType("application/json"))
        #expect(!BrowserPolicy.isFormType("text/plainer"))
    }

    @Test("request ids: a client's sane one is kept; a new one is req_ and 24 hex digits, different each time")
    func ids() {
        #expect(RequestID.sane("abc-123") == "abc-123")
        #expect(RequestID.sane("a b") == nil && RequestID.sane("") == nil && RequestID.sane(String(repeating: "a", count: 129)) == nil)
        #expect(RequestID.sane("é") == nil)
        let ids = (0..<100).map { _ in RequestID.newID() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(id.hasPrefix("req_") && id.utf8.count == 28 && id.dropFirst(4).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
    }
}
