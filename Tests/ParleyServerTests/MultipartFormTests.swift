import Foundation
@testable import ParleyServer
import ParleyTesting
import Testing

/// The multipart/form-data parser on its own.
@Suite("multipart/form-data parser")
struct MultipartFormTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("fields and a file, with a preamble, an epilogue and line breaks inside the content")
    func parses() throws {
        let body = Self.bytes(
            """
            preamble to ignore\r
            --XyZ\r
            Content-Disposition: form-data; name="model"\r
            \r
            whisper-1\r
            --XyZ\r
            Content-Disposition: form-data; name="file"; filename="my \\"voice\\"; take 2.wav"\r
            Content-Type: audio/wav\r
            \r
            RIFF\r
            --XY not the boundary\r
            --XyZ--\r
            epilogue
            """)
        let form = try MultipartForm.parse(body, boundary: "XyZ")
        #expect(form.parts.map(\.name) == ["model", "file"])
        #expect(form["model"]?.text == "whisper-1")
        #expect(form["file"]?.filename == "my \"voice\"; take 2.wav")
        #expect(form["file"]?.contentType == "audio/wav")
        #expect(form["file"]?.text == "RIFF\r\n--XY not the boundary")
    }

    @Test("binary content is kept byte for byte")
    func binary() throws {
        let payload = (0..<2_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let body = Self.bytes("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n") + payload + Self.bytes("\r\n--b--")
        #expect(try MultipartForm.parse(body, boundary: "b")["file"]?.data == payload)
    }

    @Test(
        "boundaries from the Content-Type",
        arguments: [
            ("multipart/form-data; boundary=abc", "abc"),
            ("Multipart/Form-Data;boundary=\"a b:c\"", "a b:c"),
            ("multipart/form-data; charset=utf-8; BOUNDARY=----x", "----x"),
        ])
    func boundary(contentType: String, expected: String) throws {
        #expect(try MultipartForm.boundary(contentType: contentType) == expected)
    }

    @Test(
        "content types that are not a form",
        arguments: [
            nil, "application/json", "multipart/form-data", "multipart/form-data; boundary=",
            "multipart/form-data; boundary=" + String(repeating: "x", count: 71),
        ] as [String?])
    func notAForm(contentType: String?) {
        #expect(throws: MultipartForm.Failure.self) { try MultipartForm.boundary(contentType: contentType) }
    }

    @Test(
        "malformed bodies are refused with a reason",
        arguments: [
            "",
            "no boundary at all",
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue",
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nvalue without the blank line",
            "--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--b--",
            "--b\r\nContent-Disposition: form-data\r\n\r\nv\r\n--b--",
            "--b\r\nno colon here\r\n\r\nv\r\n--b--",
            "--bX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--b--",
        ])
    func malformed(body: String) {
        #expect(throws: MultipartForm.Failure.self) { try MultipartForm.parse(Self.bytes(body), boundary: "b") }
    }

    @Test("too many parts, or headers that never end, are refused")
    func bounded() {
        let part = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n"
        #expect(throws: MultipartForm.Failure.self) {
            try MultipartForm.parse(Self.bytes(String(repeating: part, count: MultipartForm.maxParts + 1) + "--b--"), boundary: "b")
        }
        let endless = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Pad: " + String(repeating: "p", count: 10_000) + "\r\n\r\nv\r\n--b--"
        #expect(throws: MultipartForm.Failure.self) { try MultipartForm.parse(Self.bytes(endless), boundary: "b") }
    }

    @Test("mutated forms never crash the parser", arguments: 0..<20)
    func fuzz(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var body = Self.bytes(
            "--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFFdata\r\n--b--\r\n"
        )
        for _ in 0..<200 {
            var mutated = body
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let index = Int.random(in: 0..<max(1, mutated.count), using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where !mutated.isEmpty: mutated[index] = UInt8.random(in: 0...255, using: &generator)
                case 1 where !mutated.isEmpty: mutated.remove(at: index)
                default: mutated.insert([UInt8](Self.bytes("\r\n-b\"=;")).randomElement(using: &generator)!, at: min(index, mutated.count))
                }
            }
            _ = try? MultipartForm.parse(mutated, boundary: "b")
            body = Int.random(in: 0..<4, using: &generator) == 0 ? mutated : body
        }
    }
}
