import Foundation

/// Text to IPA phonemes with espeak-ng, run as a separate program (`espeak-ng -q --ipa`), as
/// Piper's voices were trained on: espeak-ng is GPL-3.0 and is never linked into Parley.
///
/// espeak-ng prints one line per clause and drops the punctuation that ended it; Piper's
/// voices expect it (a question's rise, a comma's pause), so each clause gets back the mark
/// that ended it in the text.
struct EspeakPhonemizer: Sendable {
    /// The program (a name on `PATH`, or a path).
    var executable: String = "espeak-ng"

    /// The phonemes of `text` in `voice`: clauses separated by their punctuation and a space.
    func phonemes(_ text: String, voice: String) async throws(PiperVoiceError) -> String {
        guard let path = ChildProcess.locate(executable) else {
            throw .phonemizerFailed("\(executable) is not installed")
        }
        let output: ChildProcess.Output
        do {
            output = try await ChildProcess.run(path, arguments: ["-q", "--ipa", "-v", voice, "--stdin"], input: Data(text.utf8))
        } catch {
            throw .phonemizerFailed("\(error)")
        }
        guard output.status == 0 else {
            let message = String(decoding: output.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .phonemizerFailed(message.isEmpty ? "exit status \(output.status)" : message)
        }
        let lines = String(decoding: output.standardOutput, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { Self.withoutLanguageMarks(String($0)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return Self.joined(lines, terminators: Self.clauseTerminators(text))
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
