import Foundation
import ParleyProcess
import Synchronization

/// Text to IPA phonemes with espeak-ng, run as a separate program (`espeak-ng -q --ipa`), as
/// Piper's voices were trained on: espeak-ng is GPL-3.0 and is never linked into Parley.
///
/// espeak-ng prints one line per clause and drops the punctuation that ended it; Piper's
/// voices expect it (a question's rise, a comma's pause), so each clause gets back the mark
/// that ended it in the text.
///
/// The program is kept running per voice and given one line per request (starting it costs
/// about 12 ms of the 14 a short clause took; a kept one answers in about 2). A request longer
/// than espeak-ng reads as one line, or one made while the kept program is not answering, runs
/// the program once for itself, as `--stdin`, with the same phonemes.
struct EspeakPhonemizer: Sendable {
    /// The program (a name on `PATH`, or a path).
    var executable: String = "espeak-ng"
    private let kept = KeptPrograms()

    init(executable: String = "espeak-ng") {
        self.executable = executable
    }

    /// The phonemes of `text` in `voice`: clauses separated by their punctuation and a space.
    func phonemes(_ text: String, voice: String) async throws(PiperVoiceError) -> String {
        guard let path = ChildProcess.locate(executable) else {
            throw .phonemizerFailed("\(executable) is not installed")
        }
        let line = Self.oneLine(text)
        if line.utf8.count <= Self.lineLimit, let answer = kept.answer(line, voice: voice, executable: path) {
            return Self.phonemes(ofLines: answer, text: text)
        }
        return try await phonemizedOnce(text, voice: voice)
    }

    /// The voices an espeak-ng program is kept running for (each started on its first request).
    var keptVoices: Set<String> { kept.voices }

    /// ``phonemes(_:voice:)`` from a run of the program for this text alone (`--stdin`).
    func phonemizedOnce(_ text: String, voice: String) async throws(PiperVoiceError) -> String {
        guard let path = ChildProcess.locate(executable) else {
            throw .phonemizerFailed("\(executable) is not installed")
        }
        let output: ChildProcess.Output
        do {
            output = try await ChildProcess.run(path, arguments: ["-q", "--ipa", "-v", voice, "--stdin"], input: Data(Self.oneLine(text).utf8))
        } catch {
            throw .phonemizerFailed("\(error)")
        }
        guard output.status == 0 else {
            let message = String(decoding: output.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .phonemizerFailed(message.isEmpty ? "exit status \(output.status)" : message)
        }
        let lines = String(decoding: output.standardOutput, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        return Self.phonemes(ofLines: lines, text: text)
    }

    /// The phonemes of `text` from the lines espeak-ng printed for it.
    private static func phonemes(ofLines lines: [String], text: String) -> String {
        let clauses = lines.map { withoutLanguageMarks($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return joined(clauses, terminators: clauseTerminators(text))
    }

    /// The longest request (in UTF-8 bytes) given to the kept program: espeak-ng reads a line
    /// in pieces of about 1,000 bytes, and a line cut there is phonemized differently than as
    /// a whole (measured: 950 bytes the same as `--stdin`, 1,000 not).
    static let lineLimit = 900

    /// The words that end each request to the kept program (see ``LineProcess``): no text
    /// holds them, since ``oneLine(_:)`` takes them out.
    static let marker = "zyxq qxyz"

    /// `text` as one line for the kept program: line breaks as spaces, the marker's words
    /// taken out.
    static func oneLine(_ text: String) -> String {
        var line = text.replacingOccurrences(of: "\r\n", with: " ")
        line = String(line.map { $0.isNewline ? " " : $0 })
        for word in marker.split(separator: " ") {
            line = line.replacingOccurrences(of: String(word), with: " ", options: .caseInsensitive)
        }
        return line
    }

    /// The punctuation that ends each clause of `text`, in order, as espeak-ng splits clauses:
    /// at `. , ? ! ; :` followed by a space or the end (so "3.5" is one clause). The last
    /// clause's mark is `nil` when the text ends without one.
    static func clauseTerminators(_ text: String) -> [Character?] {
        let marks: Set<Character> = [".", ",", "?", "!", ";", ":"]
        var terminators: [Character?] = []
        var words = false
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if character.isLetter || character.isNumber {
                words = true
            } else if marks.contains(character), words {
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                if next.isWhitespace || next == "\"" || next == "'" || next == ")" {
                    terminators.append(character)
                    words = false
                }
            }
        }
        if words { terminators.append(nil) }
        return terminators
    }

    /// The clauses' phonemes joined as Piper's phonemizer joins them: each followed by its
    /// mark, a space between. When espeak-ng split the text differently than the marks say
    /// (an abbreviation, say), the clauses are joined with spaces and only the last mark kept.
    static func joined(_ clauses: [String], terminators: [Character?]) -> String {
        guard clauses.count == terminators.count else {
            let last = terminators.last.flatMap { $0 }.map(String.init) ?? ""
            return clauses.joined(separator: " ") + last
        }
        return zip(clauses, terminators).map { clause, mark in clause + (mark.map(String.init) ?? "") }
            .joined(separator: " ")
    }

    /// `text` without espeak-ng's language switches, e.g. `(fr)` before a French word.
    static func withoutLanguageMarks(_ text: String) -> String {
        text.replacingOccurrences(of: #"\([a-z]{2,3}(-[a-z0-9]+)?\)"#, with: "", options: .regularExpression)
    }
}

/// The espeak-ng programs kept running, one per voice.
private final class KeptPrograms: Sendable {
    private let programs = Mutex<[String: LineProcess]>([:])

    /// The voices a program is kept running for.
    var voices: Set<String> { programs.withLock { Set($0.keys) } }

    /// The kept program's answer to `line` in `voice` (started on first use), or `nil` when it
    /// cannot give one (it is then dropped, and started anew on the next request).
    func answer(_ line: String, voice: String, executable: String) -> [String]? {
        programs.withLock { programs in
            let program =
                programs[voice]
                ?? LineProcess(
                    executable: executable, arguments: ["-q", "--ipa", "-v", voice],
                    marker: EspeakPhonemizer.marker)
            guard let program, let answer = program.answer(line) else {
                programs[voice] = nil
                return nil
            }
            programs[voice] = program
            return answer
        }
    }
}
