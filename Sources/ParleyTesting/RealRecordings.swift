import Foundation
import ParleyCore

/// Recorded human speech with reference transcripts, for judging speech-to-text: test data of
/// PyPI packages that scripts/setup fetches, checks and converts to 16 kHz mono WAV in
/// `testdata/ears` (`scripts/ears/recordings.tsv` says which package, file and licence).
public struct RealRecording: Sendable, Equatable {
    /// A short name (`austen-0880`).
    public var name: String
    /// The package it comes from.
    public var package: String
    /// The WAV file.
    public var file: URL
    /// What is said.
    public var reference: String

    /// Creates a recording.
    public init(name: String, package: String, file: URL, reference: String) {
        self.name = name
        self.package = package
        self.file = file
        self.reference = reference
    }
}

extension RealRecording {
    /// The folder setup fills, under the data directory's test data.
    public static func folder(testData: URL) -> URL { testData.appendingPathComponent("ears", isDirectory: true) }

    /// The recordings listed in `folder`'s `recordings.tsv` (tab-separated: name, package,
    /// member of the package, reference; `#` starts a comment), or `nil` when setup has not
    /// made them.
    public static func all(in folder: URL) -> [RealRecording]? {
        guard let table = try? String(contentsOf: folder.appendingPathComponent("recordings.tsv"), encoding: .utf8) else { return nil }
        let recordings = table.split(separator: "\n").compactMap { line -> RealRecording? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { return nil }
            return RealRecording(name: fields[0], package: fields[1], file: folder.appendingPathComponent("\(fields[0]).wav"), reference: fields[3])
        }
        return recordings.isEmpty ? nil : recordings
    }

    /// `text` as words to score: lower-cased, hyphens and punctuation as spaces (apostrophes
    /// inside words kept), numbers written out ("10" → "ten", "56" → "fifty six"), and the
    /// few spellings that differ only in form made one ("mr" → "mister", "metres" → "meters",
    /// "gonna" → "going to"), as Whisper's own English normaliser does among much else.
    public static func words(_ text: String) -> [String] {
        let equivalents: [String: [String]] = [
            "mr": ["mister"], "mrs": ["missus"], "metres": ["meters"], "gonna": ["going", "to"],
            "wanna": ["want", "to"], "okay": ["ok"],
        ]
        let cleaned = String(text.lowercased().map { $0.isLetter || $0.isNumber || $0 == "'" ? $0 : " " })
        return cleaned.split(separator: " ").flatMap { piece -> [String] in
            let word = String(piece).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            guard !word.isEmpty else { return [] }
            if let number = Int(word) { return spelledNumber(number) }
            return equivalents[word] ?? [word]
        }
    }

    /// `number` in words (0 to 999,999), "one hundred twenty": without "and", as the
    /// references write numbers.
    static func spelledNumber(_ number: Int) -> [String] {
        let small = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        ]
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        switch number {
        case ..<0, 1_000_000...: return [String(number)]
        case ..<20: return [small[number]]
        case ..<100: return [tens[number / 10]] + (number % 10 == 0 ? [] : [small[number % 10]])
        case ..<1000: return [small[number / 100], "hundred"] + (number % 100 == 0 ? [] : spelledNumber(number % 100))
        default: return spelledNumber(number / 1000) + ["thousand"] + (number % 1000 == 0 ? [] : spelledNumber(number % 1000))
        }
    }
}
