/// Text that is not JSON, with where it goes wrong.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public var reason: String
    /// The offset in characters where it went wrong.
    public var offset: Int

    /// Creates an error.
    public init(reason: String, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "Not valid JSON: \(reason) at character \(offset)." }
}
