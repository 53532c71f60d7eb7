import Foundation

/// Turns a regular expression (a JSON Schema `pattern`) into a GBNF expression for the inside
/// of a JSON string, when the expression uses only what a grammar can say: literals,
/// character classes (`[a-z]`, `[^,]`, `\d`, `\w`, `\s`, `.`), groups, alternation and the
/// quantifiers `* + ? {n} {n,} {n,m}`, with `^` and `$` anchors. Anything else (back
/// references, look-arounds, lazy quantifiers) gives `nil`: the string is left free and the
/// pattern is checked after generation.
///
/// Characters JSON must escape are kept out of classes, and a literal `"` or `\` is written
/// escaped, so whatever the grammar admits is a valid JSON string.
struct PatternGrammar {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    /// The GBNF for `pattern`; `anyChar` is the rule for one JSON string character.
    static func expression(for pattern: String, anyChar: String) -> String? {
        var parser = PatternGrammar(scalars: Array(pattern.unicodeScalars))
        var anchoredStart = false
        var anchoredEnd = false
        if parser.scalars.first == "^" { anchoredStart = true; parser.position = 1 }
        var end = parser.scalars.count
        if end > parser.position, parser.scalars[end - 1] == "$", end < 2 || parser.scalars[end - 2] != "\\" {
            anchoredEnd = true
            end -= 1
        }
        parser = PatternGrammar(scalars: Array(parser.scalars[..<end]), position: parser.position)
        guard let body = parser.alternation(), parser.position == parser.scalars.count else { return nil }
        return (anchoredStart ? "" : "\(anyChar)* ") + "(\(body))" + (anchoredEnd ? "" : " \(anyChar)*")
    }

    private init(scalars: [Unicode.Scalar], position: Int = 0) {
        self.scalars = scalars
        self.position = position
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func alternation() -> String? {
        var options: [String] = []
        while true {
            guard let sequence = sequence() else { return nil }
            options.append(sequence.isEmpty ? "\"\"" : sequence)
            guard current == "|" else { break }
            position += 1
        }
        return options.count == 1 ? options[0] : options.joined(separator: " | ")
    }

    private mutating func sequence() -> String? {
        var items: [String] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            guard let atom = atom(), let quantified = quantifier(on: atom) else { return nil }
            items.append(quantified)
        }
        return items.joined(separator: " ")
    }

    private mutating func quantifier(on atom: String) -> String? {
        guard let scalar = current else { return atom }
        var suffix: String
        switch scalar {
        case "*", "+", "?":
            position += 1
            suffix = String(scalar)
        case "{":
            guard let close = scalars[position...].firstIndex(of: "}") else { return nil }
            let inside = String(String.UnicodeScalarView(scalars[(position + 1)..<close]))
            let parts = inside.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (1...2).contains(parts.count), let low = Int(parts[0]), low <= 1_000 else { return nil }
            if parts.count == 2, !parts[1].isEmpty {
                guard let high = Int(parts[1]), high >= low, high <= 1_000 else { return nil }
                suffix = "{\(low),\(high)}"
            } else {
                suffix = parts.count == 2 ? "{\(low),}" : "{\(low)}"
            }
            position = close + 1
        default:
            return atom
        }
        if current == "?" || current == "+" { return nil }  // lazy and possessive quantifiers
        return "(\(atom))\(suffix)"
    }

    private mutating func atom() -> String? {
        guard let scalar = current else { return nil }
        position += 1
        switch scalar {
        case "(":
            if current == "?" {
                guard position + 1 < scalars.count, scalars[position + 1] == ":" else { return nil }  // only (?: … )
                position += 2
            }
            guard let inner = alternation(), current == ")" else { return nil }
            position += 1
            return "(\(inner))"
        case "[": return characterClass()
        case ".": return #"[^"\\\x00-\x1F\x7F]"#
        case "\\": return escape(inClass: false).map { $0.isClass ? "[\($0.text)]" : $0.text }
        case "^", "$", "*", "+", "?", "{", ")": return nil
        default: return Self.literal(scalar)
        }
    }

    private struct Escaped {
        var text: String
        var isClass: Bool
    }

    private mutating func escape(inClass: Bool) -> Escaped? {
        guard let scalar = current else { return nil }
        position += 1
        switch scalar {
        case "d": return Escaped(text: "0-9", isClass: true)
        case "w": return Escaped(text: "a-zA-Z0-9_", isClass: true)
        case "s": return Escaped(text: " ", isClass: true)
        case "D", "W", "S", "b", "B": return nil
        case "n", "t", "r", "\\", "\"":
            // JSON writes these escaped: a two-character sequence, not a class member.
            guard !inClass else { return nil }
            let json: String =
                switch scalar {
                case "n": #""\\n""#
                case "t": #""\\t""#
                case "r": #""\\r""#
                case "\\": #""\\\\""#
                default: #""\\\"""#
                }
            return Escaped(text: json, isClass: false)
        default:
            guard !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else { return nil }  // \p, \1, \x … unsupported
            return inClass ? Escaped(text: Self.classMember(scalar), isClass: true) : Escaped(text: Self.literal(scalar), isClass: false)
        }
    }

    private mutating func characterClass() -> String? {
        var negated = false
        if current == "^" { negated = true; position += 1 }
        var members = ""
        var first = true
        while let scalar = current, scalar != "]" || first {
            first = false
            position += 1
            if scalar == "\\" {
                guard let escaped = escape(inClass: true), escaped.isClass else { return nil }
                members += escaped.text
                continue
            }
            if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 { return nil }
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                let upper = scalars[position + 1]
                guard upper.value >= scalar.value, upper != "\\" else { return nil }
                // A range spanning `"` or `\` would let them in unescaped.
                guard !(scalar.value...upper.value).contains(0x22), !(scalar.value...upper.value).contains(0x5C) else { return nil }
                members += Self.classMember(scalar) + "-" + Self.classMember(upper)
                position += 2
            } else {
                members += Self.classMember(scalar)
            }
        }
        guard current == "]" else { return nil }
        position += 1
        return negated ? #"[^"# + members + #""\\\x00-\x1F\x7F]"# : "[\(members)]"
    }

    private static func classMember(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "]", "[", "^", "-", "\\": "\\" + String(scalar)
        default: String(scalar)
        }
    }

    private static func literal(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": #""\\\"""#
        case "\\": #""\\\\""#
        default: "\"" + String(scalar) + "\""
        }
    }
}
