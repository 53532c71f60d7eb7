/// Turns a stream of byte pieces (LLM tokens) into whole UTF-8 characters: a character split
/// across two tokens comes out once both halves have arrived.
package struct UTF8StreamDecoder: Sendable {
    /// An empty decoder.
    package init() {}

    private var pending: [UInt8] = []

    /// Adds bytes and returns the text of every complete character so far.
    package mutating func push(_ bytes: [UInt8]) -> String {
        pending.append(contentsOf: bytes)
        let complete = completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Returns what is left (invalid bytes become U+FFFD).
    package mutating func flush() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// The length of the longest prefix that does not end inside a multi-byte sequence.
    private func completePrefixLength(_ bytes: [UInt8]) -> Int {
        // Look back at most 3 bytes for the lead byte of an unfinished sequence.
        var index = bytes.count - 1
        var continuation = 0
        while index >= 0, continuation < 3, bytes[index] & 0xC0 == 0x80 {
            continuation += 1
            index -= 1
        }
        guard index >= 0 else { return bytes.count }
        let lead = bytes[index]
        let needed: Int
        switch lead {
        case 0xF0...0xF7: needed = 3
        case 0xE0...0xEF: needed = 2
        case 0xC0...0xDF: needed = 1
        default: needed = 0
        }
        return continuation < needed ? index : bytes.count
    }
}

/// Holds back text that might be the start of a stop sequence, and cuts the output at the
/// first complete one.
package struct StopSequenceFilter: Sendable {
    package let stops: [String]
    private var held = ""

    package init(stops: [String]) {
        self.stops = stops.filter { !$0.isEmpty }
    }

    /// Adds text; returns what can be released and whether a stop sequence was reached.
    package mutating func push(_ text: String) -> (String, Bool) {
        guard !stops.isEmpty else { return (text, false) }
        held += text
        for stop in stops {
            if let range = held.range(of: stop) {
                let released = String(held[..<range.lowerBound])
                held = ""
                return (released, true)
            }
        }
        // Keep the longest suffix that is a prefix of some stop sequence.
        var keep = 0
        for stop in stops {
            for length in stride(from: min(stop.count - 1, held.count), to: 0, by: -1)
            where held.hasSuffix(String(stop.prefix(length))) {
                keep = max(keep, length)
                break
            }
        }
        let cut = held.index(held.endIndex, offsetBy: -keep)
        let released = String(held[..<cut])
        held = String(held[cut...])
        return (released, false)
    }

    /// Releases anything held back at the end of generation.
    package mutating func flush(_ text: String) -> String {
        let (released, stopped) = push(text)
        if stopped { return released }
        defer { held = "" }
        return released + held
    }
}
