import Foundation
import ParleyCore
import ParleyMaterials
import ParleyTestLanes
import ParleyTesting
import Testing

/// Tesseract on pages this test draws, so it knows every word to expect.
@Suite("Tesseract OCR on rendered pages", .onDeviceEngines)
struct TesseractTests {
    static let page = RenderedPage(
        title: "The Water Cycle",
        paragraphs: [
            "Water evaporates from the oceans and rises as vapour.",
            "It cools, condenses into clouds and falls as rain.",
            "Rivers carry the rain back to the sea, and the cycle begins again.",
        ])

    @Test("is ready here (scripts/setup installs it with English data)")
    func ready() async {
        #expect(await TesseractImageReader().availability() == .ready)
    }

    @Test(
        "reads clean pages at several sizes and a photo-like page nearly word for word, lines and paragraphs kept",
        arguments: [(12.0, false, 0.9), (16, false, 0.95), (24, false, 0.95), (36, false, 0.95), (14, true, 0.8), (20, true, 0.85)])
    func accuracy(size: Double, noisy: Bool, floor: Double) async throws {
        var page = Self.page
        page.fontSize = size
        page.noisy = noisy
        let image = try ImageAttachment.validated(try page.png(), name: "page.png")
        let text = try await TesseractImageReader().readText(in: image)
        let accuracy = RenderedPage.wordAccuracy(expected: page.words, read: RenderedPage.words(in: text))
        print("OCR word accuracy at \(Int(size)) px\(noisy ? ", photo-like" : ""): \(String(format: "%.3f", accuracy))")
        #expect(accuracy >= floor, "read: \(text)")
        #expect(text.split(separator: "\n").first?.lowercased().contains("water cycle") == true, "the title is the first line: \(text)")
        #expect(text.split(separator: "\n").count >= 3, "lines are kept: \(text)")
    }

    @Test("a picture with no text reads as nothing, and a missing program or language says which package to install")
    func edges() async throws {
        let blank = try ImageAttachment.validated(try RenderedPage(title: "", paragraphs: []).png(), name: "blank.png")
        #expect(try await TesseractImageReader().readText(in: blank).isEmpty)
        let missing = await TesseractImageReader(executable: "/nonexistent/tesseract").availability()
        #expect(missing.description.contains("install tesseract-ocr"))
        let language = await TesseractImageReader(languages: "eng+xyz").availability()
        #expect(language.description.contains("tesseract-ocr-xyz"))
    }
}
