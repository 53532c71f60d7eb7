import Hummingbird

/// Counts every request by route, method and status, and times it to the end of its body
/// (so a stream's time is the whole stream's).
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        var response = try await next(request, context)
        let route = context.endpointPath.map { $0 == "NotFound" ? "unmatched" : $0 } ?? "unmatched"
        let status = response.status.code
        let metrics = self.metrics
        guard response.body.contentLength == nil else {
            metrics.recordRequest(route: route, method: method, status: status, duration: .now - start)
            return response
        }
        let body = response.body
        response.body = ResponseBody { writer in
            defer { metrics.recordRequest(route: route, method: method, status: status, duration: .now - start) }
            try await body.write(writer)
        }
        return response
    }
}
