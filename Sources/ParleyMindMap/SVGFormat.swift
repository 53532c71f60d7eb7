/// Text and numbers as they go into SVG: escaped, and formatted the same on every machine.
enum SVGFormat {
    /// Escapes text for an XML element or a quoted attribute, and drops characters XML 1.0
    /// cannot hold at all (control characters other than tab, newline and carriage return,
    /// unpaired surrogates cannot occur in a Swift string).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number with one decimal, rounded half away from zero: `12.3`, `-4.0`, `0.0`.
    /// Written by hand so that the output never depends on a locale or a platform's printf.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0.0" }
        let tenths = (value * 10).rounded(.toNearestOrAwayFromZero)
        guard abs(tenths) < 1e15 else { return "0.0" }
        let whole = Int64(tenths)
        let magnitude = whole.magnitude
        let sign = whole < 0 ? "-" : ""
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// FNV-1a of a string's UTF-8, as 8 hex digits: a stable, short id suffix, so that several
    /// maps on one web page do not share element ids.
    static func shortHash(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let digits = Array("0123456789abcdef")
        return String((0..<8).map { digits[Int((hash >> (28 - 4 * UInt32($0))) & 15)] })
    }
}
