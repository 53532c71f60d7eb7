import HTTPTypes
import Hummingbird
import Logging

/// Turns whatever a handler throws (or an unknown path) into OpenAI's error shape and status,
/// and logs server-side failures. Only the method, path and message are logged: never a
/// header, so never a key.
struct OpenAIErrorMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var failure = OpenAIError.from(error)
            if let http = error as? HTTPError, http.status == .notFound {
                failure = .unknownURL(method: request.method, path: request.uri.path)
            }
            if failure.status.code >= 500 {
                context.logger.warning("\(request.method) \(request.uri.path) → \(failure.status.code): \(failure.message)")
            } else {
                context.logger.debug("\(request.method) \(request.uri.path) → \(failure.status.code): \(failure.message)")
            }
            return try failure.response(from: request, context: context)
        }
    }
}
