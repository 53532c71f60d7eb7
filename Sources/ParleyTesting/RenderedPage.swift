import Foundation

/// A page of text drawn as a test image or PDF with rsvg-convert (installed by scripts/setup):
/// the OCR and materials tests make their own inputs, so they know the words to expect.
public struct RenderedPage: Sendable {
    /// The title line, in bold.
    public var title: String
    /// The body's paragraphs; each is drawn as one line.
    public var paragraphs: [String]
    /// The body's font size in pixels (the title is half as large again).
    public var fontSize: Double
    /// Whether the page looks like a phone photo of paper: tinted, grainy, slightly blurred and
    /// turned a little.
    public var noisy: Bool

    /// Creates a page.
    public init(title: String, paragraphs: [String], fontSize: Double = 20, noisy: Bool = false) {
        self.title = title
        self.paragraphs = paragraphs
        self.fontSize = fontSize
        self.noisy = noisy
    }

    /// Every word of the page, in reading order.
    public var words: [String] { ([title] + paragraphs).flatMap { RenderedPage.words(in: $0) } }

    /// The page as SVG.
    public var svg: String {
        let titleSize = fontSize * 1.5
        let lineHeight = fontSize * 1.8
        let longest = paragraphs.map(\.count).max() ?? 20
        let width = Int(max(Double(title.count) * titleSize * 0.7, Double(longest) * fontSize * 0.62) + 80)
        let height = Int(60 + titleSize + lineHeight * Double(paragraphs.count + 1))
        var body = """
            <rect width="\(width)" height="\(height)" fill="\(noisy ? "#efe6d2" : "#ffffff")"/>
            <text x="40" y="\(Int(40 + titleSize))" font-family="DejaVu Sans" font-weight="bold" font-size="\(titleSize)">\(Self.escape(title))</text>

            """
        for (index, paragraph) in paragraphs.enumerated() {
            let y = Int(40 + titleSize + lineHeight * Double(index + 1) + fontSize * 0.5)
            body += #"<text x="40" y="\#(y)" font-family="DejaVu Serif" font-size="\#(fontSize)">\#(Self.escape(paragraph))</text>"# + "\n"
        }
        let filter =
            noisy
            ? """
            <filter id="photo"><feTurbulence type="fractalNoise" baseFrequency="0.8" numOctaves="2" seed="7" result="grain"/>\
            <feColorMatrix in="grain" type="matrix" values="0 0 0 0 0.45  0 0 0 0 0.4  0 0 0 0 0.35  0 0 0 0.4 0" result="tint"/>\
            <feComposite in="tint" in2="SourceGraphic" operator="over"/><feGaussianBlur stdDeviation="0.7"/></filter>
            """ : ""
        // A photo is seldom square to the page: turned by a degree and a half.
        let group = noisy ? #"<g filter="url(#photo)" transform="rotate(1.5 \#(width / 2) \#(height / 2))">"# : "<g>"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)">\(filter)\(group)
            \(body)</g></svg>
            """
    }

    /// The page drawn as a PNG.
    public func png() throws -> Data {
        try Self.convert([svg], format: "png")
    }

    /// `pages` as one PDF with real (selectable) text, a page each.
    public static func pdf(_ pages: [RenderedPage]) throws -> Data {
        try convert(pages.map(\.svg), format: "pdf")
    }

    /// `pages` as one PDF of pictures only, like a scanner's: each page is its PNG.
    public static func scannedPDF(_ pages: [RenderedPage]) throws -> Data {
        let svgs = try pages.map { page in
            let png = try page.png()
            return
                #"<svg xmlns="http://www.w3.org/2000/svg" width="800" height="500"><image width="800" height="500" preserveAspectRatio="xMinYMin meet" href="data:image/png;base64,\#(png.base64EncodedString())"/></svg>"#
        }
        return try convert(svgs, format: "pdf")
    }

    /// The words of `text`, lowercased, without punctuation.
    public static func words(in text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init)
    }

    /// How many of `expected` words `read` has, in order (the longest common subsequence over
    /// the count expected): 1 when every word was read.
    public static func wordAccuracy(expected: [String], read: [String]) -> Double {
        guard !expected.isEmpty else { return 1 }
        var previous = [Int](repeating: 0, count: read.count + 1)
        for word in expected {
            var current = [Int](repeating: 0, count: read.count + 1)
            for (index, candidate) in read.enumerated() {
                current[index + 1] = word == candidate ? previous[index] + 1 : max(previous[index + 1], current[index])
            }
            previous = current
        }
        return Double(previous[read.count]) / Double(expected.count)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// Runs rsvg-convert on the SVGs (one page each) and returns its output.
    private static func convert(_ svgs: [String], format: String) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-page-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var inputs: [String] = []
        for (index, svg) in svgs.enumerated() {
            let file = folder.appendingPathComponent("page\(index).svg")
            try Data(svg.utf8).write(to: file)
            inputs.append(file.path)
        }
        let output = folder.appendingPathComponent("out.\(format)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["rsvg-convert", "-f", format, "-o", output.path] + inputs
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw RenderError(status: process.terminationStatus) }
        return try Data(contentsOf: output)
    }

    /// rsvg-convert failed (is librsvg2-bin installed? scripts/setup installs it).
    public struct RenderError: Error, CustomStringConvertible {
        public var status: Int32
        public var description: String { "rsvg-convert exited with status \(status): run scripts/setup to install librsvg2-bin" }
    }
}
