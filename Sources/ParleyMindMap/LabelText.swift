/// Line wrapping and a width estimate for labels, without a font: the layout needs the size of
/// every label's box before anything is drawn, on any machine.
enum LabelText {
    /// A piece of a label that is never broken further, unless it is very long.
    private struct Token {
        var text: String
        /// Whether a space separates it from the token before (no after a hyphen break).
        var spaceBefore: Bool
    }

    /// Splits a label into short lines of about `maxCharacters` characters, breaking between
    /// words (and after hyphens in long words), with lines balanced in length.
    ///
    /// A label that fits stays on one line. Words are kept whole unless one is longer than twice
    /// the limit; a line may then run a few characters over the limit when that saves a line.
    static func wrap(_ label: String, maxCharacters: Int) -> [String] {
        let limit = max(maxCharacters, 4)
        let tokens = tokens(of: label, limit: limit)
        guard !tokens.isEmpty else { return [""] }
        let oneLine = tokens.map(\.text).joined(separator: " ")
        if oneLine.count <= limit { return [oneLine] }

        // Allow a little slack when it saves a line ("The light-dependent" / "reactions").
        let slack = limit + limit / 4
        var chosen = limit
        let lineCount = greedy(tokens, limit: limit).count
        if greedy(tokens, limit: slack).count < lineCount { chosen = slack }
        let target = greedy(tokens, limit: chosen).count
        // Balance: the narrowest limit that needs no more lines.
        let longest = tokens.map(\.text.count).max() ?? 1
        var width = longest
        while width < chosen, greedy(tokens, limit: width).count > target {
            width += 1
        }
        return greedy(tokens, limit: width)
    }

    /// The estimated width of a line of text, in ems of the font.
    ///
    /// Widths per character follow wide humanist sans-serif faces (Verdana, DejaVu Sans), so
    /// that boxes are a little generous rather than too tight for the fonts a reader may have.
    static func width(of line: String) -> Double {
        line.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of scalar: Unicode.Scalar) -> Double {
        switch scalar {
        case " ": return 0.35
        case "i", "l", "j", ".", ",", ":", ";", "!", "|", "'", "`": return 0.32
        case "f", "t", "r", "I", "J", "(", ")", "[", "]", "{", "}", "\"", "/", "\\", "-": return 0.45
        case "m", "M", "W": return 1.0
        case "w": return 0.85
        case "A"..."Z": return 0.74
        case "0"..."9": return 0.64
        case "a"..."z": return 0.62
        default:
            // Combining marks take no room; CJK, Hangul and emoji are about an em wide.
            if (0x0300...0x036F).contains(scalar.value) { return 0 }
            if scalar.value >= 0x1100 { return 1.0 }
            return 0.68
        }
    }

    private static func tokens(of label: String, limit: Int) -> [Token] {
        var tokens: [Token] = []
        for word in label.split(whereSeparator: \.isWhitespace) {
            var pieces = word.count > limit ? splitAfterHyphens(String(word)) : [String(word)]
            pieces = pieces.flatMap { $0.count > limit * 2 ? chunks(of: $0, size: limit) : [$0] }
            for (index, piece) in pieces.enumerated() {
                tokens.append(Token(text: piece, spaceBefore: index == 0))
            }
        }
        return tokens
    }

    private static func splitAfterHyphens(_ word: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in word {
            current.append(character)
            if character == "-" || character == "/" {
                pieces.append(current)
                current = ""
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    private static func chunks(of word: String, size: Int) -> [String] {
        var result: [String] = []
        var current = ""
        for character in word {
            current.append(character)
            if current.count == size {
                result.append(current)
                current = ""
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// First fit: each token goes on the current line if it fits, else starts a new one.
    private static func greedy(_ tokens: [Token], limit: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for token in tokens {
            if current.isEmpty {
                current = token.text
                continue
            }
            let joined = token.spaceBefore ? current + " " + token.text : current + token.text
            if joined.count <= limit {
                current = joined
            } else {
                lines.append(current)
                current = token.text
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
