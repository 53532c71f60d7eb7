import Foundation
@testable import ParleyServer
import Testing

/// The browser client's files at `/`: found in the package's resources, served with their
/// content types, revalidated by ETag, and open without a key.
@Suite("the browser client's files")
struct WebClientTests {
    /// The files the page loads; each must be in the resources.
    static let pageFiles = [
        "/", "/index.html", "/style.css", "/app.js", "/api.js", "/chat.js", "/microphone.js",
        "/capture-worklet.js", "/orb.js", "/player.js", "/realtime.js", "/library.js", "/notices.js", "/providers.js",
        "/key-prompt.js", "/favicon.svg",
    ]

    @Test("the resources hold every file the page loads")
    func bundled() {
        let paths = WebClientFiles.bundled.paths
        for path in Self.pageFiles { #expect(paths.contains(path), "\(path) is not among \(paths.sorted())") }
    }

    @Test("a folder is read with index.html at /, files under their paths, hidden files left out, ETags by content")
    func readsAFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-web-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("parts"), withIntermediateDirectories: true)
        try Data("<p>hi</p>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("let a = 1".utf8).write(to: folder.appendingPathComponent("parts/a.js"))
        try Data("let a = 1".utf8).write(to: folder.appendingPathComponent("same.js"))
        try Data("secret".utf8).write(to: folder.appendingPathComponent(".hidden"))
        let files = try WebClientFiles(folder: folder)
        #expect(files.paths == ["/", "/index.html", "/parts/a.js", "/same.js"])
        #expect(files.files["/"]?.etag == files.files["/index.html"]?.etag)
        #expect(files.files["/parts/a.js"]?.etag == files.files["/same.js"]?.etag)
        #expect(files.files["/parts/a.js"]?.etag != files.files["/"]?.etag)
        #expect(files.files["/parts/a.js"]?.contentType == "text/javascript; charset=utf-8")
    }

    @Test(
        "content types by extension",
        arguments: [
            ("html", "text/html; charset=utf-8"), ("css", "text/css; charset=utf-8"), ("js", "text/javascript; charset=utf-8"),
            ("svg", "image/svg+xml"), ("JS", "text/javascript; charset=utf-8"), ("bin", "application/octet-stream"),
        ])
    func contentTypes(pathExtension: String, type: String) {
        #expect(WebClientFiles.contentType(of: pathExtension) == type)
    }

    @Test("GET / is the page: HTML, no-cache with an ETag, a content security policy; the scripts are JavaScript")
    func servesThePage() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let page = try await server.send(.GET, "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["cache-control"] == "no-cache")
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["content-security-policy"]?.contains("connect-src 'self'") == true)
        #expect(page.text.contains("<title>Parley</title>") && page.text.contains(#"src="app.js""#))
        let etag = try #require(page.headers["etag"])
        let again = try await server.send(.GET, "/", headers: [("if-none-match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(try await server.send(.GET, "/", headers: [("if-none-match", "\"other\"")]).status == 200)
        for path in Self.pageFiles where path.hasSuffix(".js") {
            let script = try await server.send(.GET, path)
            #expect(script.status == 200, "\(path)")
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8", "\(path)")
            #expect(script.headers["content-security-policy"] == nil, "\(path)")
        }
        let head = try await server.send(.HEAD, "/style.css")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-type"] == "text/css; charset=utf-8")
        expectOpenAIError(try await server.send(.GET, "/no-such-file.js"), status: 404, code: "unknown_url")
    }

    @Test("with keys on, the page opens without one and /health says a key is needed; the API still needs it")
    func openWithKeys() async throws {
        let server = try await TestServer.scripted { $0.apiKeys = ["page-key"] }
        defer { server.stop() }
        #expect(try await server.send(.GET, "/").status == 200)
        #expect(try await server.send(.GET, "/app.js").status == 200)
        #expect(try await server.send(.GET, "/health").json?["api_key_required"] as? Bool == true)
        expectOpenAIError(try await server.send(.GET, "/v1/threads"), status: 401, code: "invalid_api_key")
        expectOpenAIError(try await server.send(.GET, "/nothing-here.js"), status: 401, code: "invalid_api_key")
    }

    @Test("without keys, /health says none is needed")
    func noKeyNeeded() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        #expect(try await server.send(.GET, "/health").json?["api_key_required"] as? Bool == false)
    }
}
