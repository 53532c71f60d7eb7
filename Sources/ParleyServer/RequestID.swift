import HTTPTypes

/// Every request's id, sent back as `x-request-id`: the client's own when it sent a sane one,
/// else a new `req_…` (``Admission`` gives it and logs it).
enum RequestID {
    static let header = HTTPField.Name("x-request-id")!

    /// A client's id when it is short visible ASCII; `nil` otherwise.
    static func sane(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128, value.utf8.allSatisfy({ $0 >= 33 && $0 < 127 }) else { return nil }
        return value
    }

    static func newID() -> String {
        // 24 hex digits from 96 random bits, written straight into the string's storage (every
        // request makes one).
        var generator = SystemRandomNumberGenerator()
        let high = generator.next(), low = generator.next()
        return String(unsafeUninitializedCapacity: 28) { buffer in
            let prefix: [UInt8] = [0x72, 0x65, 0x71, 0x5F]  // "req_"
            for (index, byte) in prefix.enumerated() { buffer[index] = byte }
            for index in 0..<24 {
                let nibble = index < 16 ? (high >> UInt64(4 * index)) & 0xF : (low >> UInt64(4 * (index - 16))) & 0xF
                buffer[4 + index] = nibble < 10 ? 0x30 + UInt8(nibble) : 0x57 + UInt8(nibble)
            }
            return 28
        }
    }
}
