import HTTPTypes

/// Every request's id, sent back as `x-request-id`: the client's own when it sent a sane one,
/// else a new `req_…` (``Admission`` gives it and logs it).
enum RequestID {
    static let header = HTTPField.Name("x-request-id")!

    /// A client's id when it is short visible ASCII; `nil` otherwise.
    static func sane(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.count <= 128, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0.asciiValue.map { $0 >= 33 && $0 < 127 } == true }) else {
            return nil
        }
        return value
    }

    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "req_" + String((0..<24).map { _ in digits[Int(generator.next(upperBound: UInt(16)))] })
    }
}
