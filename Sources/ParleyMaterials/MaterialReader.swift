import Foundation
import ParleyCore
import ParleyProcess
import ParleyData

/// Reads a file into a study material: text and Markdown as they are, a PDF's text with
/// poppler's `pdftotext` (pages without text but with images read by OCR), an image's text by
/// OCR. The programs run as separate processes (poppler-utils, tesseract-ocr; scripts/setup
/// installs both). Nothing is stored here: the caller stores what comes back.
public struct MaterialReader: Sendable {
    /// The largest document accepted (text, Markdown, PDF): 100 MB.
    public static let maximumDocumentBytes = 100_000_000
    /// A page with fewer letters than this counts as having no text (a scanned page).
    static let minimumPageCharacters = 16

    /// What reads images and scanned pages.
    public let ocr: TesseractImageReader
    /// The resolution scanned pages are rendered at for OCR, in dots per inch.
    public let scanResolution: Int

    /// Creates a reader.
    public init(ocr: TesseractImageReader = TesseractImageReader(), scanResolution: Int = 200) {
        self.ocr = ocr
        self.scanResolution = scanResolution
    }

    /// The material in the file at `path`, titled `title` (the file's name without its
    /// extension unless given).
    ///
    /// - Throws: ``MaterialError`` (or ``ImageError`` for a bad image) in one sentence.
    public func read(path: String, title: String? = nil) async throws -> NewMaterial {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw MaterialError.notFound(path)
        }
        let name = title ?? url.deletingPathExtension().lastPathComponent
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0 else { throw MaterialError.empty(path) }
        let head = try Self.head(of: url)
        if ImageFormat.sniff(head) != nil {
            let image = try ImageAttachment.read(path: path)
            try await requireOCR()
            let text = try await ocr.readText(in: image)
            guard !text.isEmpty else { throw MaterialError.noTextInImage(path) }
            return NewMaterial(title: name, kind: "image", source: path, text: text, pageCount: 1, readBy: "tesseract")
        }
        guard size <= Self.maximumDocumentBytes else { throw MaterialError.tooLarge(path, bytes: size, limit: Self.maximumDocumentBytes) }
        if head.starts(with: Array("%PDF-".utf8)) {
            return try await readPDF(path, title: name)
        }
        let kind: String
        switch url.pathExtension.lowercased() {
        case "md", "markdown": kind = "markdown"
        case "txt", "text", "": kind = "text"
        default: throw MaterialError.unsupported(path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MaterialError.unreadable(path, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw MaterialError.notUTF8(path) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw MaterialError.empty(path) }
        return NewMaterial(title: name, kind: kind, source: path, text: trimmed, pageCount: 1, readBy: "file")
    }

    // MARK: - PDF

    private func readPDF(_ path: String, title: String) async throws -> NewMaterial {
        let pageCount = try await Self.pageCount(path)
        let output = try await Self.run("pdftotext", ["-enc", "UTF-8", "-q", path, "-"], package: "poppler-utils")
        guard output.status == 0 else { throw MaterialError.unreadablePDF(path, reason: Self.lastLine(output.standardError)) }
        var pages = String(decoding: output.standardOutput, as: UTF8.self).components(separatedBy: "\u{0C}")
        pages = Array(pages.prefix(pageCount)) + Array(repeating: "", count: max(0, pageCount - pages.count))
        var readers: Set<String> = []
        var sawImages = false
        for index in pages.indices {
            let text = pages[index].trimmingCharacters(in: .whitespacesAndNewlines)
            if text.filter(\.isLetter).count >= Self.minimumPageCharacters {
                pages[index] = text
                readers.insert("pdftotext")
                continue
            }
            // Little or no text: a scanned page is an image of text.
            let number = index + 1
            guard try await Self.hasImages(path, page: number) else {
                pages[index] = text
                if !text.isEmpty { readers.insert("pdftotext") }
                continue
            }
            sawImages = true
            let rendered = try await Self.run(
                "pdftoppm", ["-r", String(scanResolution), "-gray", "-png", "-f", String(number), "-l", String(number), path], package: "poppler-utils")
            guard rendered.status == 0, !rendered.standardOutput.isEmpty else {
                throw MaterialError.unreadablePDF(path, reason: "page \(number) could not be rendered: \(Self.lastLine(rendered.standardError))")
            }
            if !readers.contains("tesseract") { try await requireOCR() }  // once per document
            let scanned = try await ocr.readText(in: ImageAttachment(data: rendered.standardOutput, mimeType: "image/png"))
            pages[index] = [text, scanned].filter { !$0.isEmpty }.joined(separator: "\n")
            readers.insert("tesseract")
        }
        let text = pages.filter { !$0.isEmpty }.joined(separator: "\n\n")
        guard !text.isEmpty else {
            throw sawImages ? MaterialError.noTextInImage(path) : MaterialError.noTextInPDF(path)
        }
        let readBy = ["pdftotext", "tesseract"].filter(readers.contains).joined(separator: "+")
        return NewMaterial(title: title, kind: "pdf", source: path, text: text, pageCount: pageCount, readBy: readBy)
    }

    static func pageCount(_ path: String) async throws -> Int {
        let info = try await run("pdfinfo", [path], package: "poppler-utils")
        guard info.status == 0 else { throw MaterialError.unreadablePDF(path, reason: lastLine(info.standardError)) }
        let line = String(decoding: info.standardOutput, as: UTF8.self).split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("Pages:") }
        guard let line, let count = Int(line.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)), count > 0 else {
            throw MaterialError.unreadablePDF(path, reason: "it has no pages")
        }
        return count
    }

    static func hasImages(_ path: String, page: Int) async throws -> Bool {
        let list = try await run("pdfimages", ["-list", "-f", String(page), "-l", String(page), path], package: "poppler-utils")
        guard list.status == 0 else { return false }
        // Two header lines, then one line per image.
        return String(decoding: list.standardOutput, as: UTF8.self).split(whereSeparator: \.isNewline).count > 2
    }

    // MARK: - Helpers

    /// Throws ``MaterialError/noOCR(_:)`` when Tesseract cannot run (checking costs a process).
    private func requireOCR() async throws {
        let availability = await ocr.availability()
        guard availability.isReady else { throw MaterialError.noOCR(availability.description) }
    }

    static func run(_ program: String, _ arguments: [String], package: String) async throws -> ChildProcess.Output {
        guard let path = ChildProcess.locate(program) else { throw MaterialError.missingProgram(program, package: package) }
        return try await ChildProcess.run(path, arguments: arguments)
    }

    static func head(of url: URL) throws -> Data {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return try handle.read(upToCount: 16) ?? Data()
        } catch {
            throw MaterialError.unreadable(url.path, reason: error.localizedDescription)
        }
    }

    static func lastLine(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).last.map(String.init) ?? "no reason given"
    }
}

/// Why a file could not become a study material, in one sentence that says what to do.
public enum MaterialError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, reason: String)
    case empty(String)
    case tooLarge(String, bytes: Int, limit: Int)
    case unsupported(String)
    case notUTF8(String)
    case unreadablePDF(String, reason: String)
    case noTextInPDF(String)
    case noTextInImage(String)
    case noOCR(String)
    case missingProgram(String, package: String)

    public var description: String {
        switch self {
        case .notFound(let path): "There is no file at \(path)."
        case .unreadable(let path, let reason): "\(path) could not be read (\(reason))."
        case .empty(let path): "\(path) is empty: there is nothing to keep."
        case .tooLarge(let path, let bytes, let limit):
            "\(path) is \(bytes / 1_000_000) MB; materials up to \(limit / 1_000_000) MB are accepted: split it into smaller files."
        case .unsupported(let path): "\(path) is not a text, Markdown, PDF or image (PNG, JPEG, WebP) file."
        case .notUTF8(let path): "\(path) is not UTF-8 text; save it as UTF-8 and add it again."
        case .unreadablePDF(let path, let reason): "\(path) is not a PDF that can be read (\(reason))."
        case .noTextInPDF(let path): "\(path) has no text and no images to read: there is nothing to keep."
        case .noTextInImage(let path): "No text could be read in \(path); photograph the page closer and with more light, or add a typed copy."
        case .noOCR(let reason): "Images cannot be read here (\(reason)); install tesseract-ocr and tesseract-ocr-eng (scripts/setup does)."
        case .missingProgram(let program, let package): "\(program) is not installed; install \(package) (scripts/setup does)."
        }
    }
}
