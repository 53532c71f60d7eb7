import Foundation
import ParleyCore
import ParleyProcess

/// Reads the text of images with Tesseract OCR, run as a separate program (`tesseract`,
/// Apache-2.0; Debian's `tesseract-ocr` with `tesseract-ocr-eng`, installed by scripts/setup).
///
/// The image goes to the program's standard input and the text comes back on its standard
/// output, with lines and paragraphs as Tesseract found them (page segmentation mode 3: whole
/// pages, columns and blocks). Nothing is written to disk.
public struct TesseractImageReader: ImageTextReader {
    public let identity: ProviderIdentity
    /// The program to run (a name looked up on `PATH`, or a path).
    public let executable: String
    /// Tesseract language codes joined with `+`, e.g. `eng` or `eng+deu`.
    public let languages: String

    /// Creates the reader.
    public init(executable: String = "tesseract", languages: String = "eng") {
        self.executable = executable
        self.languages = languages
        self.identity = ProviderIdentity(name: "tesseract", model: languages, isLocal: true)
    }

    /// Ready when the program is installed and has data for every language.
    public func availability() async -> Availability {
        guard let path = ChildProcess.locate(executable) else {
            return .unsupported(reason: "\(executable) is not installed (install tesseract-ocr)")
        }
        guard let output = try? await ChildProcess.run(path, arguments: ["--list-langs"]), output.status == 0 else {
            return .unsupported(reason: "\(executable) --list-langs failed")
        }
        let listed = String(decoding: output.standardOutput, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        let missing = languages.split(separator: "+").map(String.init).filter { !listed.contains($0) }
        guard missing.isEmpty else {
            return .unsupported(reason: "no Tesseract data for \(missing.joined(separator: ", ")) (install tesseract-ocr-\(missing[0]))")
        }
        return .ready
    }

    public func readText(in image: ImageAttachment) async throws -> String {
        guard let path = ChildProcess.locate(executable) else {
            throw ImageReadingError.failed(reader: identity.description, reason: "\(executable) is not installed (install tesseract-ocr)")
        }
        let output = try await ChildProcess.run(
            path, arguments: ["stdin", "stdout", "-l", languages, "--psm", "3"], input: image.data,
            environment: ["OMP_THREAD_LIMIT": "1"])
        guard output.status == 0 else {
            let message =
                String(decoding: output.standardError, as: UTF8.self)
                .split(whereSeparator: \.isNewline).last.map(String.init) ?? "exit status \(output.status)"
            throw ImageReadingError.failed(reader: identity.description, reason: message)
        }
        return Self.tidy(String(decoding: output.standardOutput, as: UTF8.self))
    }

    /// Tesseract's output with trailing spaces, form feeds and runs of blank lines removed:
    /// lines stay lines, paragraphs stay separated by one blank line.
    static func tidy(_ text: String) -> String {
        var lines: [String] = []
        for raw in text.replacingOccurrences(of: "\u{0C}", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
