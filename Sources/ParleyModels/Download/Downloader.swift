import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// One file to fetch.
public struct DownloadRequest: Sendable, Hashable {
    /// Where the bytes are.
    public var url: URL
    /// Where the verified file goes. While it downloads, the bytes are kept beside it in
    /// `NAME.partial`, which a later download of the same file resumes from.
    public var destination: URL
    /// The size the file must have, when known.
    public var size: Int64?
    /// The SHA-256 the file must have (lower-case hex), when known.
    public var sha256: String?
    /// Headers sent with every request for the bytes (e.g. `Authorization` for a gated hub
    /// repository); never logged.
    public var headers: [String: String]

    /// Creates a request.
    public init(url: URL, destination: URL, size: Int64? = nil, sha256: String? = nil, headers: [String: String] = [:]) {
        self.url = url
        self.destination = destination
        self.size = size
        self.sha256 = sha256?.lowercased()
        self.headers = headers
    }

    /// The file the bytes collect in until they are verified.
    public var partial: URL { destination.appendingPathExtension("partial") }
}

/// Fetches files over HTTP(S) with resume, verification and progress.
///
/// - Before starting, it asks the server for the size (a `HEAD`) and checks the free disk space.
/// - An interrupted transfer (a cut connection, a stalled server) is resumed with a `Range`
///   request from the bytes already on disk, a few times with growing pauses; a process killed
///   mid-download leaves the bytes in `NAME.partial` and the next download resumes from them.
///   A server that ignores `Range` is read again from the start.
/// - The finished file's size and SHA-256 are checked before it takes its name; a mismatch
///   deletes it and says so.
/// - Two downloads of the same destination at once are one download: the second waits for the
///   first and gets its result.
public actor Downloader {
    /// How the downloader behaves.
    public struct Configuration: Sendable {
        /// How long a connection may take to open.
        public var connectTimeout: Duration = .seconds(15)
        /// How long the server may send nothing before the transfer counts as interrupted.
        public var idleTimeout: Duration = .seconds(30)
        /// How many times an interrupted transfer is resumed before giving up.
        public var retries: Int = 4
        /// The pause before the first resume; it doubles each time.
        public var backoff: Duration = .milliseconds(500)
        /// Free space to leave on the disk beyond the download.
        public var spaceMargin: Int64 = 64 * 1024 * 1024
        /// How often progress is reported while bytes arrive.
        public var progressInterval: Duration = .milliseconds(250)

        /// The defaults.
        public init() {}
    }

    /// Reports the free bytes of the volume holding a folder (a seam for tests that cap it).
    public typealias FreeSpace = @Sendable (URL) -> Int64?

    private let configuration: Configuration
    private let freeSpace: FreeSpace
    private let client: HTTPClient
    private let logger: Logger
    private var inFlight: [URL: Task<URL, any Error>] = [:]
    private var watchers: [URL: [DownloadProgressHandler]] = [:]

    /// Creates a downloader.
    public init(
        configuration: Configuration = Configuration(), freeSpace: @escaping FreeSpace = Downloader.volumeFreeSpace,
        logger: Logger = Logger(label: "parley.download")
    ) {
        self.configuration = configuration
        self.freeSpace = freeSpace
        self.client = DownloadClients.client(connect: configuration.connectTimeout, read: configuration.idleTimeout)
        self.logger = logger
    }

    /// The free bytes of the volume that holds `folder`, or `nil` when the system cannot say.
    public static let volumeFreeSpace: FreeSpace = { folder in
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: folder.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    /// Downloads `request`, reporting progress to `progress`; returns the verified file.
    /// A file already at the destination with the right size and checksum is not fetched again.
    public func download(_ request: DownloadRequest, progress: DownloadProgressHandler? = nil) async throws(DownloadError) -> URL {
        let key = request.destination.standardizedFileURL
        if let progress { watchers[key, default: []].append(progress) }
        let task: Task<URL, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            task = Task { try await self.fetch(request, key: key) }
            inFlight[key] = task
        }
        let result = await task.result
        if inFlight[key] == task {
            inFlight[key] = nil
            watchers[key] = nil
        }
        switch result {
        case .success(let url): return url
        case .failure(let error as DownloadError): throw error
        case .failure(let error): throw .fileSystem(path: request.destination.path, reason: "\(error)")
        }
    }

    /// How many downloads are running now (coalesced ones count once).
    public var running: Int { inFlight.count }

    /// Tells every caller waiting on `key` where its download stands.
    private func emit(_ key: URL, _ state: DownloadState, rate: Double? = nil) {
        let event = DownloadEvent(file: key.lastPathComponent, state: state, bytesPerSecond: rate)
        for watcher in watchers[key] ?? [] { watcher(event) }
    }

    // MARK: - The transfer

    private func fetch(_ request: DownloadRequest, key: URL) async throws(DownloadError) -> URL {
        let name = request.destination.lastPathComponent
        func event(_ state: DownloadState, _ rate: Double?) { emit(key, state, rate: rate) }
        if try alreadyInPlace(request) {
            event(.completed, nil)
            return request.destination
        }
        event(.checking, nil)
        let folder = request.destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: folder.path, reason: error.localizedDescription)
        }
        let head = try await probe(request.url, headers: request.headers)
        let total = request.size ?? head.length
        if let head = head.length, let expected = request.size, head != expected {
            event(.failed(reason: "size \(head) at the server, expected \(expected)", resumable: false), nil)
            throw .sizeMismatch(file: name, expected: expected, actual: head)
        }
        let have = partialSize(request)
        if let total, let free = freeSpace(folder) {
            let needed = max(0, total - have)
            if free < needed + configuration.spaceMargin {
                event(.failed(reason: "not enough disk space", resumable: have > 0), nil)
                throw .insufficientSpace(folder: folder.path, needed: needed + configuration.spaceMargin, available: free)
            }
        }
        var attempt = 0
        var pause = configuration.backoff
        while true {
            do {
                try await transfer(request, key: key, total: total, rangeSupported: head.acceptsRanges)
                break
            } catch let error as DownloadError {
                guard case .interrupted(_, let received, _, let reason) = error, attempt < configuration.retries else {
                    event(.failed(reason: error.description, resumable: partialSize(request) > 0), nil)
                    throw error
                }
                attempt += 1
                logger.warning("\(name): interrupted at \(received) bytes (\(reason)); resuming in \(pause) (try \(attempt) of \(configuration.retries))")
                try? await Task.sleep(for: pause)
                pause *= 2
            } catch {
                event(.failed(reason: "\(error)", resumable: true), nil)
                throw .fileSystem(path: request.partial.path, reason: "\(error)")
            }
        }
        event(.validating, nil)
        do {
            try verify(request.partial, name: name, request: request)
        } catch {
            event(.failed(reason: error.description, resumable: false), nil)
            throw error
        }
        do {
            if FileManager.default.fileExists(atPath: request.destination.path) {
                try FileManager.default.removeItem(at: request.destination)
            }
            try FileManager.default.moveItem(at: request.partial, to: request.destination)
        } catch {
            throw .fileSystem(path: request.destination.path, reason: error.localizedDescription)
        }
        event(.completed, nil)
        return request.destination
    }

    /// Whether the destination already holds the right file (checked by size, then checksum).
    private func alreadyInPlace(_ request: DownloadRequest) throws(DownloadError) -> Bool {
        guard let size = fileSize(request.destination) else { return false }
        if let expected = request.size, size != expected { return false }
        guard let sha = request.sha256 else { return request.size != nil }
        return (try? FileDigest.sha256(of: request.destination)) == sha
    }

    private func partialSize(_ request: DownloadRequest) -> Int64 { fileSize(request.partial) ?? 0 }

    private struct Head {
        var length: Int64?
        var acceptsRanges: Bool
    }

    /// Asks for the file's size (a `HEAD`): reachability is checked before any byte is written.
    private func probe(_ url: URL, headers: [String: String]) async throws(DownloadError) -> Head {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .HEAD
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response: HTTPClientResponse
        // The answer to a HEAD may take longer than a gap in a body may (a busy server, a slow
        // link): it gets at least 30 s.
        let patience = max(configuration.idleTimeout, .seconds(30))
        let client = DownloadClients.client(connect: configuration.connectTimeout, read: patience)
        do {
            response = try await client.execute(request, timeout: .seconds(patience.components.seconds + 15))
        } catch {
            throw .unreachable(url: Self.redacted(url), reason: Self.reason(error))
        }
        let status = Int(response.status.code)
        if status == 405 || status == 501 { return Head(length: nil, acceptsRanges: true) }  // no HEAD here: try the GET
        guard (200..<300).contains(status) else { throw .httpStatus(url: Self.redacted(url), status: status) }
        let length = response.headers.first(name: "content-length").flatMap { Int64($0) }
        let ranges = response.headers.first(name: "accept-ranges")?.lowercased() != "none"
        return Head(length: length, acceptsRanges: ranges)
    }

    /// Fetches the bytes not yet in the partial file and appends them.
    private func transfer(_ request: DownloadRequest, key: URL, total: Int64?, rangeSupported: Bool) async throws {
        let name = request.destination.lastPathComponent
        func event(_ state: DownloadState, _ rate: Double?) { emit(key, state, rate: rate) }
        var have = partialSize(request)
        if let total, have > total {
            // More bytes than the file has: they cannot be the file's. Start over.
            try? FileManager.default.removeItem(at: request.partial)
            have = 0
        }
        if let total, have == total { return }
        var http = HTTPClientRequest(url: request.url.absoluteString)
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        if have > 0, rangeSupported { http.headers.add(name: "Range", value: "bytes=\(have)-") }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(http, timeout: .hours(24))
        } catch {
            throw DownloadError.interrupted(file: name, received: have, total: total, reason: Self.reason(error))
        }
        let status = Int(response.status.code)
        var append = false
        switch status {
        case 206:
            let start = response.headers.first(name: "content-range").flatMap(Self.rangeStart)
            guard start == have else {
                throw DownloadError.interrupted(file: name, received: have, total: total, reason: "the server resumed at the wrong place")
            }
            append = true
        case 200:
            if have > 0 { logger.warning("\(name): the server does not resume downloads (it ignored Range); starting again from the beginning") }
        case 416:
            // Nothing left to send: the partial file is already whole (or wrong, which
            // verification will find).
            return
        default:
            if status >= 500 || status == 429 {
                throw DownloadError.interrupted(file: name, received: have, total: total, reason: "the server answered \(status)")
            }
            throw DownloadError.httpStatus(url: Self.redacted(request.url), status: status)
        }
        if !append { have = 0 }
        let handle = try openForWriting(request.partial, append: append)
        defer { try? handle.close() }
        var received = have
        var meter = RateMeter()
        let clock = ContinuousClock()
        var lastReport = clock.now
        event(.downloading(received: received, total: total), nil)
        do {
            for try await buffer in response.body {
                try Task.checkCancellation()
                do {
                    try handle.write(contentsOf: Data(buffer.readableBytesView))
                } catch {
                    throw DownloadError.diskFull(file: name, reason: error.localizedDescription)
                }
                received += Int64(buffer.readableBytes)
                meter.add(Int64(buffer.readableBytes), at: clock.now)
                if clock.now - lastReport >= configuration.progressInterval {
                    lastReport = clock.now
                    event(.downloading(received: received, total: total), meter.rate)
                }
            }
        } catch let error as DownloadError {
            throw error
        } catch is CancellationError {
            throw DownloadError.interrupted(file: name, received: received, total: total, reason: "cancelled")
        } catch {
            throw DownloadError.interrupted(file: name, received: received, total: total, reason: Self.reason(error))
        }
        event(.downloading(received: received, total: total), meter.rate)
        if let total, received < total {
            throw DownloadError.interrupted(file: name, received: received, total: total, reason: "the connection closed early")
        }
    }

    private func openForWriting(_ url: URL, append: Bool) throws -> FileHandle {
        if !append || !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw DownloadError.fileSystem(path: url.path, reason: "the file could not be created")
            }
        }
        let handle = try FileHandle(forWritingTo: url)
        if append { try handle.seekToEnd() }
        return handle
    }

    /// Checks the finished bytes; a wrong file is deleted.
    private func verify(_ file: URL, name: String, request: DownloadRequest) throws(DownloadError) {
        let size = fileSize(file) ?? 0
        if let expected = request.size, size != expected {
            try? FileManager.default.removeItem(at: file)
            throw .sizeMismatch(file: name, expected: expected, actual: size)
        }
        guard let expected = request.sha256 else { return }
        let actual: String
        do {
            actual = try FileDigest.sha256(of: file)
        } catch {
            throw .fileSystem(path: file.path, reason: "\(error)")
        }
        guard actual == expected else {
            try? FileManager.default.removeItem(at: file)
            throw .checksumMismatch(file: name, expected: expected, actual: actual)
        }
    }

    /// The first byte of a `Content-Range: bytes START-END/TOTAL` header.
    static func rangeStart(_ header: String) -> Int64? {
        guard let range = header.split(separator: " ").last?.split(separator: "-").first else { return nil }
        return Int64(range)
    }

    /// A URL without its query (signed URLs carry tokens there) or credentials, for messages.
    static func redacted(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.query = nil
        parts.user = nil
        parts.password = nil
        return parts.string ?? url.absoluteString
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return "no data within the idle timeout"
            case .connectTimeout: return "connecting timed out"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

/// Bytes per second over a sliding window of a few seconds.
struct RateMeter {
    private var samples: [(ContinuousClock.Instant, Int64)] = []
    private let window: Duration = .seconds(3)

    mutating func add(_ bytes: Int64, at now: ContinuousClock.Instant) {
        samples.append((now, bytes))
        while let first = samples.first, now - first.0 > window { samples.removeFirst() }
    }

    var rate: Double? {
        guard let first = samples.first, let last = samples.last, samples.count > 1 else { return nil }
        let seconds = Double((last.0 - first.0).components.attoseconds) / 1e18 + Double((last.0 - first.0).components.seconds)
        guard seconds > 0 else { return nil }
        return Double(samples.dropFirst().reduce(0) { $0 + $1.1 }) / seconds
    }
}

/// One HTTP client per timeout pair, kept for the process's life.
enum DownloadClients {
    private static let clients = Mutex<[String: HTTPClient]>([:])

    static func client(connect: Duration, read: Duration, followRedirects: Bool = true) -> HTTPClient {
        let key = "\(connect)/\(read)/\(followRedirects)"
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(
                connect: .nanoseconds(Int64(connect.components.seconds) * 1_000_000_000 + connect.components.attoseconds / 1_000_000_000),
                read: .nanoseconds(Int64(read.components.seconds) * 1_000_000_000 + read.components.attoseconds / 1_000_000_000))
            configuration.decompression = .disabled
            // A refused connection is reported at once; the downloader's own retries resume.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.redirectConfiguration = followRedirects ? .follow(max: 5, allowCycles: false) : .disallow
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}

func fileSize(_ url: URL) -> Int64? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
}

/// SHA-256 of files, read in chunks.
public enum FileDigest {
    /// The SHA-256 of `url`'s contents, lower-case hex.
    public static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 4 * 1024 * 1024), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
