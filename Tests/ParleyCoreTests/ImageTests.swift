import Foundation
import Logging
import ParleyCore
import ParleyTesting
import Testing

let onePixelPNG = TestImages.onePixelPNG

@Suite("Image files: whole, known, not too large")
struct ImageFileTests {
    @Test("a whole PNG is taken, with the media type its bytes show")
    func wholePNG() throws {
        let image = try ImageAttachment.validated(onePixelPNG, name: "dot.png")
        #expect(image.mimeType == "image/png")
        #expect(image.data == onePixelPNG)
    }

    @Test("a PNG cut anywhere is refused as cut short")
    func truncatedPNG() {
        for length in [8, 20, 33, 40, onePixelPNG.count - 1] {
            #expect(throws: ImageError.truncated(name: "cut.png", format: .png)) {
                try ImageAttachment.validated(onePixelPNG.prefix(length), name: "cut.png")
            }
        }
    }

    @Test("a changed byte fails the chunk's checksum")
    func corruptPNG() throws {
        var damaged = onePixelPNG
        damaged[41] ^= 0xFF  // inside the IDAT data
        let error = try #require(throws: ImageError.self) { try ImageAttachment.validated(damaged, name: "bad.png") }
        #expect(error.description.contains("IDAT chunk fails its checksum"))
    }

    @Test("JPEG: markers up to the scan, then the end-of-image marker; WebP: the RIFF length")
    func jpegAndWebP() throws {
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0] + [0x12, 0x34, 0x56]
        let jpeg = Data(header + scan + [0xFF, 0xD9])
        #expect(try ImageAttachment.validated(jpeg, name: "a.jpg").mimeType == "image/jpeg")
        #expect(throws: ImageError.truncated(name: "a.jpg", format: .jpeg)) { try ImageAttachment.validated(jpeg.dropLast(2), name: "a.jpg") }

        var webp = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8L".utf8) + [10, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
        #expect(try ImageAttachment.validated(Data(webp), name: "a.webp").mimeType == "image/webp")
        webp[4] = 200
        #expect(throws: ImageError.truncated(name: "a.webp", format: .webp)) { try ImageAttachment.validated(Data(webp), name: "a.webp") }
    }

    @Test("anything else, nothing, or too much is refused in one sentence")
    func refusals() throws {
        #expect(throws: ImageError.unsupportedFormat(name: "notes.txt")) { try ImageAttachment.validated(Data("hello".utf8), name: "notes.txt") }
        #expect(throws: ImageError.empty(name: "e.png")) { try ImageAttachment.validated(Data(), name: "e.png") }
        #expect(throws: ImageError.tooLarge(name: "dot.png", bytes: onePixelPNG.count, limit: 10)) {
            try ImageAttachment.validated(onePixelPNG, name: "dot.png", limit: 10)
        }
        #expect(throws: ImageError.notFound(path: "/nonexistent/page.png")) { try ImageAttachment.read(path: "/nonexistent/page.png") }
    }

    @Test("a 200 MB file is refused from its size, before it is read")
    func hugeFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID()).png")
        #expect(FileManager.default.createFile(atPath: url.path, contents: onePixelPNG))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 200_000_000)  // sparse: no 200 MB is written
        try handle.close()
        let error = try #require(throws: ImageError.self) { try ImageAttachment.read(path: url.path) }
        #expect(error == .tooLarge(name: url.path, bytes: 200_000_000, limit: ImageAttachment.maximumBytes))
        #expect(error.description.contains("200 MB") && error.description.contains("20 MB"))
    }
}

/// Reads every image as the same text, and records what it read.
actor FixedTextReader: ImageTextReader {
    nonisolated let identity = ProviderIdentity(name: "fixed-ocr", isLocal: true)
    let text: String
    let ready: Availability
    private(set) var read: [ImageAttachment] = []

    init(text: String, availability: Availability = .ready) {
        self.text = text
        self.ready = availability
    }

    func availability() async -> Availability { ready }

    func readText(in image: ImageAttachment) async throws -> String {
        read.append(image)
        return text
    }
}

@Suite("Images answered by a model that sees them, else read as text (orchestration, with doubles)")
struct ImageReadingTests {
    let question = ChatRequest(messages: [ChatMessage(role: .user, parts: [.image(data: onePixelPNG, mimeType: "image/png"), .text("What is the title?")])])

    private func answer(_ model: any LanguageModelProvider, _ request: ChatRequest) async throws -> String {
        var text = ""
        for try await event in model.complete(request) { if case .text(let piece) = event { text += piece } }
        return text
    }

    @Test("with no model that sees, the image's text replaces it, marked as read, with a warning")
    func readsAsText() async throws {
        let base = ScriptedLanguageModel(replies: [["The Water Cycle"]], supportsImages: false)
        let reader = FixedTextReader(text: "The Water Cycle\n\nWater evaporates.")
        let logs = CapturedLogs()
        let model = ImageReadingLanguageModel(base, reader: reader, logger: logs.logger())
        #expect(model.capabilities.images)
        #expect(try await answer(model, question) == "The Water Cycle")
        let sent = try #require(await base.requests.first)
        #expect(!sent.hasImages)
        #expect(sent.messages[0].text.contains("[Text read from image 1:]\nThe Water Cycle\n\nWater evaporates.\n[End of image 1]"))
        #expect(sent.messages[0].text.hasSuffix("What is the title?"))
        #expect(await reader.read.count == 1)
        #expect(logs.messages(at: .warning).contains { $0.contains("read as text only by fixed-ocr") })
    }

    @Test("a model that sees gets the image itself, and nothing is read")
    func seeingModel() async throws {
        let seeing = ScriptedLanguageModel(name: "vision", replies: [["A title."]], supportsImages: true)
        let reader = FixedTextReader(text: "unused")
        let model = ImageReadingLanguageModel(ScriptedLanguageModel(replies: [["no"]], supportsImages: false), seeing: seeing, reader: reader)
        #expect(try await answer(model, question) == "A title.")
        #expect(await seeing.requests.first?.hasImages == true)
        #expect(await reader.read.isEmpty)
    }

    @Test("when the model that sees fails before any text, the image is read as text instead")
    func seeingFails() async throws {
        let failing = FaultyLanguageModel(
            name: "vision", pieces: ["never"], fault: .fail(afterPieces: 0, error: ProviderError.engineFailure(provider: "vision", detail: "down")),
            capabilities: LanguageModelCapabilities(images: true))
        let base = ScriptedLanguageModel(replies: [["From the text."]], supportsImages: false)
        let model = ImageReadingLanguageModel(base, seeing: failing, reader: FixedTextReader(text: "Page"))
        #expect(try await answer(model, question) == "From the text.")
        #expect(await base.requests.first?.messages[0].text.contains("Page") == true)
    }

    @Test("a failure after part of the answer is not papered over")
    func partialFailure() async throws {
        let failing = FaultyLanguageModel(
            name: "vision", pieces: ["Half ", "never"], fault: .fail(afterPieces: 1, error: ProviderError.engineFailure(provider: "vision", detail: "cut")),
            capabilities: LanguageModelCapabilities(images: true))
        let model = ImageReadingLanguageModel(failing, reader: FixedTextReader(text: "Page"))
        await #expect(throws: ProviderError.self) { _ = try await answer(model, question) }
    }

    @Test("with no reader either, one sentence says both ways to fix it")
    func noReader() async throws {
        let model = ImageReadingLanguageModel(
            ScriptedLanguageModel(replies: [["no"]], supportsImages: false),
            reader: FixedTextReader(text: "", availability: .unsupported(reason: "tesseract is not installed")))
        let error = try await #require(throws: ImageReadingError.self) { _ = try await answer(model, question) }
        #expect(error.description.contains("configure a vision provider"))
        #expect(error.description.contains("install tesseract-ocr"))
    }

    @Test("requests without images pass straight through")
    func textOnly() async throws {
        let base = ScriptedLanguageModel(replies: [["Hi."]], supportsImages: false)
        let reader = FixedTextReader(text: "unused")
        let model = ImageReadingLanguageModel(base, reader: reader)
        #expect(try await answer(model, ChatRequest(messages: [.user("Hello")])) == "Hi.")
        #expect(await reader.read.isEmpty)
    }
}

@Suite("Test images")
struct TestImageTests {
    @Test("a PNG grown to a size is still whole")
    func padded() throws {
        for size in [100, 1_500, 6_000] {
            let png = TestImages.png(size: size)
            #expect(png.count == size)
            #expect(try ImageAttachment.validated(png, name: "padded.png").mimeType == "image/png")
        }
    }
}
