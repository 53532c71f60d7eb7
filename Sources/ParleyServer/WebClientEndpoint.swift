import HTTPTypes
import Hummingbird

/// The browser voice client: `GET /` is its page, the other paths its scripts and style
/// (``WebClientFiles``). Open without a key, since the page asks for the key itself, and
/// revalidated on every load (`Cache-Control: no-cache` with an ETag, so an unchanged file is a
/// 304 and a new server's files are never stale).
struct WebClientEndpoint: Sendable {
    let client: WebClientFiles

    /// What the page may load and connect to: its own origin only (its WebSocket included),
    /// images it was given as data or blob URLs, and nothing inline.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        + "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        for (path, file) in client.files {
            router.get(RouterPath(path)) { request, _ in Self.response(file, request: request, withBody: true) }
            router.head(RouterPath(path)) { request, _ in Self.response(file, request: request, withBody: false) }
        }
    }

    static func response(_ file: WebClientFiles.File, request: Request, withBody: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = file.etag
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "no-referrer"
        if file.contentType.hasPrefix("text/html") { headers[.contentSecurityPolicy] = contentSecurityPolicy }
        let validators = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if validators.contains(file.etag) || validators.contains("*") {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.body.readableBytes)
        return Response(status: .ok, headers: headers, body: withBody ? .init(byteBuffer: file.body) : .init())
    }
}
