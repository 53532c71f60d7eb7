import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the server's metrics in Prometheus' text format (see ``ServerMetrics``).
struct MetricsEndpoint: Sendable {
    let environment: ServerEnvironment

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: environment.metrics.render())))
        }
    }
}
