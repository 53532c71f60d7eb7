import Foundation

/// The two digests the Google server needs and this target has no library for: SHA-256 (PKCE
/// S256, RFC 7636) and MD5 (Drive's `md5Checksum`). Written from FIPS 180-4 and RFC 1321; the
/// round constants are derived, not tabulated.
enum GoogleDigest {
    /// SHA-256 of `data`.
    static func sha256(_ data: Data) -> [UInt8] {
        var state = sha256Initial
        let k = sha256Constants
        var schedule = [UInt32](repeating: 0, count: 64)
        for block in padded(data, bigEndianLength: true) {
            for i in 0..<16 {
                schedule[i] = block[i * 4..<i * 4 + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            }
            for i in 16..<64 {
                let w15 = schedule[i - 15], w2 = schedule[i - 2]
                let s0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 >> 3)
                let s1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 >> 10)
                schedule[i] = schedule[i - 16] &+ s0 &+ schedule[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            for i in 0..<64 {
                let sigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                let choose = (e & f) ^ (~e & g)
                let t1 = h &+ sigma1 &+ choose &+ k[i] &+ schedule[i]
                let sigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = sigma0 &+ majority
                h = g; g = f; f = e; e = d &+ t1
                d = c; c = b; b = a; a = t1 &+ t2
            }
            for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { state[i] = state[i] &+ value }
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    /// MD5 of `data`.
    static func md5(_ data: Data) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        let k = md5Constants
        let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
        for block in padded(data, bigEndianLength: false) {
            let words = (0..<16).map { i in
                block[i * 4..<i * 4 + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for i in 0..<64 {
                var mixed: UInt32
                let index: Int
                switch i / 16 {
                case 0: mixed = (b & c) | (~b & d); index = i
                case 1: mixed = (d & b) | (~d & c); index = (5 * i + 1) % 16
                case 2: mixed = b ^ c ^ d; index = (3 * i + 5) % 16
                default: mixed = c ^ (b | ~d); index = (7 * i) % 16
                }
                mixed = mixed &+ a &+ k[i] &+ words[index]
                a = d; d = c; c = b
                b = b &+ rotateLeft(mixed, shifts[(i / 16) * 4 + i % 4])
            }
            state[0] = state[0] &+ a; state[1] = state[1] &+ b
            state[2] = state[2] &+ c; state[3] = state[3] &+ d
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    /// Lower-case hex.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The message in 64-byte blocks after the 0x80 marker, zeros and the 64-bit bit length.
    private static func padded(_ data: Data, bigEndianLength: Bool) -> [[UInt8]] {
        var bytes = [UInt8](data)
        let bits = UInt64(bytes.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for i in 0..<8 {
            let shift = bigEndianLength ? UInt64(56 - 8 * i) : UInt64(8 * i)
            bytes.append(UInt8(truncatingIfNeeded: bits >> shift))
        }
        return stride(from: 0, to: bytes.count, by: 64).map { Array(bytes[$0..<$0 + 64]) }
    }

    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 { (value >> count) | (value << (32 - count)) }
    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 { (value << count) | (value >> (32 - count)) }

    private static func primes(_ count: Int) -> [UInt64] {
        var found: [UInt64] = []
        var candidate: UInt64 = 2
        while found.count < count {
            if !found.contains(where: { $0 * $0 <= candidate && candidate % $0 == 0 }) { found.append(candidate) }
            candidate += 1
        }
        return found
    }

    /// The first 32 bits of the fractional parts of the `degree`-th roots of the first `count`
    /// primes, exactly: the integer root of `p * 2^(32 * degree)`, estimated in floating point
    /// and then corrected.
    private static func rootFractions(count: Int, degree: Int) -> [UInt32] {
        primes(count).map { prime in
            let target = UInt128(prime) << (32 * degree)
            func power(_ value: UInt128) -> UInt128 { (0..<degree).reduce(UInt128(1)) { product, _ in product * value } }
            let estimate = degree == 2 ? Double(prime).squareRoot() : Foundation.cbrt(Double(prime))
            var root = UInt128(estimate * 4_294_967_296.0)
            while power(root) > target { root -= 1 }
            while power(root + 1) <= target { root += 1 }
            return UInt32(truncatingIfNeeded: root)
        }
    }

    private static let sha256Initial = rootFractions(count: 8, degree: 2)
    private static let sha256Constants = rootFractions(count: 64, degree: 3)
    private static let md5Constants: [UInt32] = (1...64).map { UInt32(abs(Foundation.sin(Double($0))) * 4_294_967_296.0) }
}
