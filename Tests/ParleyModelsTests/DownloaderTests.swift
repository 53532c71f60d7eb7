import Foundation
import ParleyModels
import ParleyTestServers
import Synchronization
import Testing

/// Collects a download's events.
final class EventLog: Sendable {
    private let events = Mutex<[DownloadEvent]>([])
    var handler: DownloadProgressHandler { { [self] event in events.withLock { $0.append(event) } } }
    var all: [DownloadEvent] { events.withLock { $0 } }

    /// The states in order, with consecutive `downloading` reports folded into one.
    var phases: [String] {
        var result: [String] = []
        for event in all {
            let name: String
            switch event.state {
            case .idle: name = "idle"
            case .checking: name = "checking"
            case .downloading: name = "downloading"
            case .validating: name = "validating"
            case .completed: name = "completed"
            case .failed(_, let resumable): name = resumable ? "failed-resumable" : "failed"
            }
            if result.last != name { result.append(name) }
        }
        return result
    }
}

@Suite("downloader against a real HTTP server")
struct DownloaderTests {
    let data = Bytes.pattern(1_000_000)

    func quick() -> Downloader.Configuration {
        var configuration = Downloader.Configuration()
        configuration.backoff = .milliseconds(20)
        configuration.progressInterval = .milliseconds(1)
        // The default idle timeout (30 s): the whole suite runs at once on two cores, and a
        // server in this process can be starved for seconds.
        return configuration
    }

    @Test("a file arrives whole and verified, through checking, downloading, validating, completed")
    func plain() async throws {
        let server = try await FileServer.start(files: ["m.bin": data])
        defer { server.stop() }
        let folder = try temporaryFolder()
        let log = EventLog()
        let file = try await Downloader(configuration: quick()).download(
            DownloadRequest(url: server.url("m.bin"), destination: folder.appendingPathComponent("m.bin"), size: Int64(data.count), sha256: Bytes.sha256(data)),
            progress: log.handler)
        #expect(try Data(contentsOf: file) == data)
        #expect(log.phases == ["checking", "downloading", "validating", "completed"])
        #expect(!FileManager.default.fileExists(atPath: file.appendingPathExtension("partial").path))
        // A second download finds the file in place and fetches nothing.
        _ = try await Downloader(configuration: quick()).download(
            DownloadRequest(url: server.url("m.bin"), destination: file, size: Int64(data.count), sha256: Bytes.sha256(data)))
        #expect(await server.ranges(of: "m.bin").count == 1)
    }

    @Test("a connection cut mid-file is resumed with a Range request from the bytes kept")
    func resumesAfterCut() async throws {
        let server = try await FileServer.start(files: ["m.bin": data], faults: .init(cutAfter: 300_000, cuts: 2))
        defer { server.stop() }
        let folder = try temporaryFolder()
        let file = try await Downloader(configuration: quick()).download(
            DownloadRequest(url: server.url("m.bin"), destination: folder.appendingPathComponent("m.bin"), sha256: Bytes.sha256(data)))
        #expect(try Data(contentsOf: file) == data)
        let ranges = await server.ranges(of: "m.bin")
        #expect(ranges.count == 3)
        #expect(ranges[0] == nil)
        // Each resume starts where the bytes on disk end, past the start.
        let starts = ranges.dropFirst().compactMap { $0.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) } }
        #expect(starts.count == 2)
        #expect(starts.allSatisfy { $0 > 0 })
        #expect(starts[1] > starts[0])
    }

    @Test("a server that ignores Range sends the whole file again, and the bytes are not doubled")
    func refusesRange() async throws {
        let server = try await FileServer.start(files: ["m.bin": data], faults: .init(ignoreRange: true))
        defer { server.stop() }
        let folder = try temporaryFolder()
        let destination = folder.appendingPathComponent("m.bin")
        // Bytes of an earlier, interrupted run.
        try data.prefix(123_456).write(to: destination.appendingPathExtension("partial"))
        let file = try await Downloader(configuration: quick()).download(
            DownloadRequest(url: server.url("m.bin"), destination: destination, sha256: Bytes.sha256(data)))
        #expect(try Data(contentsOf: file) == data)
    }

    @Test("a wrong checksum deletes the bytes and says so in one sentence")
    func wrongChecksum() async throws {
        let server = try await FileServer.start(files: ["m.bin": data], faults: .init(corrupt: true))
        defer { server.stop() }
        let folder = try temporaryFolder()
        let destination = folder.appendingPathComponent("m.bin")
        let log = EventLog()
        do {
            _ = try await Downloader(configuration: quick()).download(
                DownloadRequest(url: server.url("m.bin"), destination: destination, sha256: Bytes.sha256(data)), progress: log.handler)
            Issue.record("a corrupt file was accepted")
        } catch {
            guard case .checksumMismatch(let file, let expected, _) = error else { Issue.record("\(error)"); return }
            #expect(file == "m.bin")
            #expect(expected == Bytes.sha256(data))
            #expect(error.description.contains("it was deleted"))
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: destination.appendingPathExtension("partial").path))
        #expect(log.phases.last == "failed")
    }

    @Test("a server that stalls is timed out and resumed until the file is whole; progress reports a rate")
    func slowServer() async throws {
        let small = Bytes.pattern(300_000, seed: 7)
        let server = try await FileServer.start(files: ["s.bin": small], faults: .init(stallAfter: 120_000, chunk: 4096))
        defer { server.stop() }
        let folder = try temporaryFolder()
        let log = EventLog()
        var configuration = quick()
        configuration.idleTimeout = .seconds(3)
        configuration.retries = 8
        let file = try await Downloader(configuration: configuration).download(
            DownloadRequest(url: server.url("s.bin"), destination: folder.appendingPathComponent("s.bin"), sha256: Bytes.sha256(small)),
            progress: log.handler)
        #expect(try Data(contentsOf: file) == small)
        // Two stalls at least (a starved test process may add a resume of its own).
        #expect(await server.ranges(of: "s.bin").count >= 3)
        #expect(log.all.contains { $0.bytesPerSecond != nil })
    }

    @Test("too little disk space is refused before a byte is fetched")
    func diskFull() async throws {
        let server = try await FileServer.start(files: ["m.bin": data])
        defer { server.stop() }
        let folder = try temporaryFolder()
        let downloader = Downloader(configuration: quick(), freeSpace: { _ in 500_000 })
        do {
            _ = try await downloader.download(DownloadRequest(url: server.url("m.bin"), destination: folder.appendingPathComponent("m.bin")))
            Issue.record("the download started without room")
        } catch {
            guard case .insufficientSpace(_, let needed, let available) = error else { Issue.record("\(error)"); return }
            #expect(needed > 1_000_000)
            #expect(available == 500_000)
            #expect(error.description.contains("Not enough disk space"))
        }
        #expect(await server.ranges(of: "m.bin").isEmpty)
    }

    @Test("an unreachable server and a missing file are each one clear sentence")
    func unreachable() async throws {
        let port = RefusingPort.find()
        let folder = try temporaryFolder()
        do {
            _ = try await Downloader(configuration: quick()).download(
                DownloadRequest(url: URL(string: "http://127.0.0.1:\(port)/m.bin")!, destination: folder.appendingPathComponent("m.bin")))
            Issue.record("no error")
        } catch {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("Could not reach http://127.0.0.1:\(port)/m.bin"))
        }
        let server = try await FileServer.start()
        defer { server.stop() }
        do {
            _ = try await Downloader(configuration: quick()).download(
                DownloadRequest(url: server.url("nothing.bin"), destination: folder.appendingPathComponent("n.bin")))
            Issue.record("no error")
        } catch {
            #expect(error == .httpStatus(url: server.url("nothing.bin").absoluteString, status: 404))
        }
    }

    @Test("two downloads of the same file at once are one transfer, and both get the file")
    func coalesced() async throws {
        let server = try await FileServer.start(files: ["m.bin": data], faults: .init(chunk: 8192))
        defer { server.stop() }
        let folder = try temporaryFolder()
        let downloader = Downloader(configuration: quick())
        let request = DownloadRequest(url: server.url("m.bin"), destination: folder.appendingPathComponent("m.bin"), sha256: Bytes.sha256(data))
        let first = EventLog(), second = EventLog()
        async let a = downloader.download(request, progress: first.handler)
        async let b = downloader.download(request, progress: second.handler)
        let (one, two) = try await (a, b)
        #expect(one == two)
        #expect(try Data(contentsOf: one) == data)
        #expect(await server.ranges(of: "m.bin").count == 1)
        #expect(second.phases.last == "completed")
    }

    @Test("byte counts read as people write them")
    func helpers() {
        #expect(ByteFormat.string(1_117_320_768) == "1.1 GB")
        #expect(ByteFormat.string(512) == "512 B")
    }
}
