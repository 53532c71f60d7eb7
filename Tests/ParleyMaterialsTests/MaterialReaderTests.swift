import Foundation
import ParleyCore
import ParleyMaterials
import ParleyStore
import ParleyTestLanes
import ParleyTesting
import Testing

/// Files made by the test (rsvg-convert draws the pages), read by poppler and Tesseract.
@Suite("Study materials from files", .onDeviceEngines)
struct MaterialReaderTests {
    static let first = RenderedPage(
        title: "Photosynthesis",
        paragraphs: [
            "Plants take in light, water and carbon dioxide.",
            "They make sugar and give off oxygen.",
        ])
    static let second = RenderedPage(
        title: "Respiration",
        paragraphs: [
            "Cells break sugar down to release energy.",
            "Carbon dioxide and water are left over.",
        ])

    private func file(_ name: String, _ data: Data) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("material-\(UUID())-\(name)")
        try data.write(to: url)
        return url.path
    }

    @Test("a PDF of two pages: both pages' text in order, two pages, read by pdftotext")
    func twoPagePDF() async throws {
        let path = try file("biology.pdf", try RenderedPage.pdf([Self.first, Self.second]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let material = try await MaterialReader().read(path: path, title: "Biology")
        #expect(material.kind == "pdf")
        #expect(material.pageCount == 2)
        #expect(material.readBy == "pdftotext")
        #expect(material.title == "Biology")
        let words = RenderedPage.words(in: material.text)
        #expect(words == Self.first.words + Self.second.words, "text: \(material.text)")
        #expect(material.text.contains("Photosynthesis\n"))
        #expect(material.text.contains("\n\nRespiration"), "pages are separated by a blank line")
    }

    @Test("a scanned PDF (pictures of pages only) is read by OCR")
    func scannedPDF() async throws {
        let path = try file("scan.pdf", try RenderedPage.scannedPDF([Self.first, Self.second]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let material = try await MaterialReader().read(path: path)
        #expect(material.pageCount == 2)
        #expect(material.readBy == "tesseract")
        let accuracy = RenderedPage.wordAccuracy(expected: Self.first.words + Self.second.words, read: RenderedPage.words(in: material.text))
        print("OCR word accuracy on the scanned PDF: \(String(format: "%.3f", accuracy))")
        #expect(accuracy >= 0.9, "text: \(material.text)")
    }

    @Test("an image's text, and text and Markdown files as they are")
    func imageAndText() async throws {
        let image = try file("page.png", try Self.first.png())
        let notes = try file("notes.md", Data("# Notes\n\nLight makes sugar.\n".utf8))
        defer { for path in [image, notes] { try? FileManager.default.removeItem(atPath: path) } }
        let fromImage = try await MaterialReader().read(path: image)
        #expect(fromImage.kind == "image" && fromImage.readBy == "tesseract")
        #expect(RenderedPage.wordAccuracy(expected: Self.first.words, read: RenderedPage.words(in: fromImage.text)) >= 0.9)
        let fromNotes = try await MaterialReader().read(path: notes)
        #expect(fromNotes.kind == "markdown" && fromNotes.text == "# Notes\n\nLight makes sugar.")
        #expect(fromNotes.title.hasSuffix("notes"))
    }

    @Test("bad inputs: one clear sentence each")
    func badInputs() async throws {
        let truncated = try file("cut.png", try Self.first.png().prefix(500))
        let blank = try file("blank.pdf", try RenderedPage.pdf([RenderedPage(title: "", paragraphs: [])]))
        let huge = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID()).pdf")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: Data("%PDF-1.4\n".utf8)))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 200_000_000)
        try handle.close()
        let latin1 = try file("old.txt", Data([0x63, 0x61, 0x66, 0xE9]))
        let word = try file("essay.docx", Data("PK\u{3}\u{4}".utf8))
        let fake = try file("fake.pdf", Data("%PDF-1.4 this is not really a PDF".utf8))
        defer { for path in [truncated, blank, huge.path, latin1, word, fake] { try? FileManager.default.removeItem(atPath: path) } }

        let reader = MaterialReader()
        await #expect(throws: ImageError.truncated(name: truncated, format: .png)) { _ = try await reader.read(path: truncated) }
        await #expect(throws: MaterialError.noTextInPDF(blank)) { _ = try await reader.read(path: blank) }
        await #expect(throws: MaterialError.tooLarge(huge.path, bytes: 200_000_000, limit: MaterialReader.maximumDocumentBytes)) {
            _ = try await reader.read(path: huge.path)
        }
        await #expect(throws: MaterialError.notUTF8(latin1)) { _ = try await reader.read(path: latin1) }
        await #expect(throws: MaterialError.unsupported(word)) { _ = try await reader.read(path: word) }
        let error = try await #require(throws: MaterialError.self) { _ = try await reader.read(path: fake) }
        #expect(error.description.hasPrefix("\(fake) is not a PDF that can be read"))
        #expect(MaterialError.noTextInPDF(blank).description == "\(blank) has no text and no images to read: there is nothing to keep.")
    }

    @Test("a long material is cut at a boundary to fit the window, and says so")
    func context() {
        let text = (1...400).map { "Sentence number \($0) is here." }.joined(separator: " ")
        let material = Material(id: 1, createdAt: Date(), title: "Long", kind: "text", source: "long.txt", text: text, pageCount: 1, readBy: "file")
        let budget = MaterialContext.characterBudget(tokens: 2_048, materials: 1)
        let excerpt = MaterialContext.excerpt(of: material, budget: budget)
        #expect(excerpt.count < budget + 200)
        #expect(excerpt.hasPrefix("Study material \"Long\":\nSentence number 1 is here."))
        #expect(excerpt.contains("[The rest of \"Long\" is left out"))
        let short = Material(id: 2, createdAt: Date(), title: "Short", kind: "text", source: "s.txt", text: "All of it.", pageCount: 1, readBy: "file")
        #expect(MaterialContext.excerpt(of: short, budget: budget) == "Study material \"Short\":\nAll of it.")
    }
}
