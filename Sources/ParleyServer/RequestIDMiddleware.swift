import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id, `x-request-id` on its response (the client's own when it sent a
/// sane one, else a new `req_…`), and writes one access-log line per request with it: method,
/// path, status and time to the response's head. Never a header's value other than the id, so
/// never a key.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    static let header = HTTPField.Name("x-request-id")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let id = Self.sane(request.headers[Self.header]) ?? Self.newID()
        var response = try await next(request, context)
        response.headers[Self.header] = id
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info("\(id) \(request.method) \(request.uri.path) → \(response.status.code) in \(Int(milliseconds.rounded())) ms")
        return response
    }

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
