import Foundation
import Testing
@testable import ParleyGoogle

/// Reading Gmail's `format=full` messages: MIME parts, base64url bodies without padding,
/// HTML-only mail and the Date header.
@Suite struct GmailMessageTests {
    static func encoded(_ text: String) -> String { Base64URL.encode(Data(text.utf8)) }

    func message(_ payload: String) throws -> GmailMessage {
        try JSONDecoder().decode(
            GmailMessage.self,
            from: Data(
                """
                {"id": "m1", "threadId": "t1", "historyId": "42", "internalDate": "1763367300000", "snippet": "snip",
                 "payload": \(payload)}
                """.utf8))
    }

    @Test func thePlainPartOfAMultipartMessage() throws {
        // "é" and "?" make padding and the url-safe alphabet matter.
        let plain = "Essay due Friday — café?? ok>>"
        let payload = """
            {"mimeType": "multipart/alternative", "filename": "",
             "headers": [{"name": "From", "value": "Ms Rossi <rossi@school.example>"}, {"name": "Subject", "value": "Essay"},
                         {"name": "Date", "value": "Tue, 17 Nov 2026 09:15:00 +0100"}],
             "body": {"size": 0},
             "parts": [
               {"partId": "0", "mimeType": "text/plain", "filename": "", "body": {"size": 30, "data": "\(Self.encoded(plain))"}},
               {"partId": "1", "mimeType": "text/html", "filename": "", "body": {"size": 40, "data": "\(Self.encoded("<p>other</p>"))"}}
             ]}
            """
        let message = try message(payload)
        #expect(!Self.encoded(plain).contains("="))
        #expect(message.text == plain)
        #expect(message.subject == "Essay")
        #expect(message.from == "Ms Rossi <rossi@school.example>")
        #expect(message.sentAt == ISO8601DateFormatter().date(from: "2026-11-17T08:15:00Z"))
        #expect(message.sentTimeZone.secondsFromGMT() == 3600)
    }

    @Test func htmlOnlyMailLosesItsMarkup() throws {
        let html =
            "<html><head><style>p{color:red}</style></head><body><p>Dear class,</p><p>The poster is due <b>December 4</b> &amp; the quiz Friday.</p></body></html>"
        let message = try message(
            """
            {"mimeType": "text/html", "filename": "", "headers": [], "body": {"size": 10, "data": "\(Self.encoded(html))"}}
            """)
        #expect(message.text == "Dear class,\nThe poster is due December 4 & the quiz Friday.")
    }

    @Test func anAttachmentIsNotTheText() throws {
        let message = try message(
            """
            {"mimeType": "multipart/mixed", "filename": "", "headers": [], "body": {"size": 0}, "parts": [
              {"mimeType": "text/plain", "filename": "notes.txt", "body": {"attachmentId": "a1", "size": 5}},
              {"mimeType": "multipart/alternative", "filename": "", "body": {"size": 0}, "parts": [
                {"mimeType": "text/plain", "filename": "", "body": {"size": 4, "data": "\(Self.encoded("Body"))"}}]}
            ]}
            """)
        #expect(message.text == "Body")
    }

    @Test func base64URLDecodesPaddedAndUnpadded() {
        #expect(Base64URL.decode("YQ") == Data("a".utf8))
        #expect(Base64URL.decode("YQ==") == Data("a".utf8))
        #expect(Base64URL.decode("_-8") == Data([0xff, 0xef]))
        #expect(Base64URL.decode("A") == nil)
    }

    @Test func pkceChallengeIsTheUnpaddedSHA256() {
        // Computed independently (Python hashlib + base64.urlsafe_b64encode).
        let verifier = PKCEVerifier(value: "dBjftJeZ4CVP-mB92K9uhvkPu7nCv-yvQAf1MKkXTw8")
        #expect(verifier.challenge == "VfBNEBxbkuARLD79LbqN0r136ANchq30f1XmZeXQJDw")
        #expect(PKCEVerifier().value.count == 64)
        #expect(PKCEVerifier() != PKCEVerifier())
    }
}
