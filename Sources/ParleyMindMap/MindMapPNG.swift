import Foundation

/// Turns a mind map's SVG into a PNG with `rsvg-convert` (from librsvg, installed by
/// `scripts/setup`), run as a separate process.
public enum MindMapPNG {
    /// Whether `rsvg-convert` is on the `PATH`.
    public static var isAvailable: Bool {
        converterPath() != nil
    }

    /// Writes `svg` as a PNG to `url`, replacing any file there.
    ///
    /// Waits for the converter without blocking a thread: the process's termination handler
    /// resumes the task. Cancelling the task stops the converter.
    ///
    /// - Parameters:
    ///   - svg: An SVG document, such as ``MindMapSVG/render(_:title:description:)`` returns.
    ///   - url: Where the PNG goes; a file URL.
    ///   - scale: Pixels per SVG unit: 2 gives a sharper image twice as wide and tall.
    /// - Throws: ``MindMapPNGError``, saying what to do (``MindMapPNGError/converterNotInstalled``
    ///   when librsvg2-bin is missing).
    public static func convert(svg: String, to url: URL, scale: Double = 1) async throws(MindMapPNGError) {
        guard scale.isFinite, scale > 0 else { throw .invalidScale(scale) }
        guard let converter = converterPath() else { throw .converterNotInstalled }
        #if os(Linux) || os(macOS)

        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-mindmap-\(UUID().uuidString)", isDirectory: true)
        let input = folder.appendingPathComponent("map.svg")
        let errors = folder.appendingPathComponent("stderr.txt")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(svg.utf8).write(to: input)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        } catch {
            throw .fileSystem(path: folder.path, reason: "\(error)")
        }
        defer { try? FileManager.default.removeItem(at: folder) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = ["--format", "png", "--zoom", "\(scale)", "--output", url.path, input.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorHandle: FileHandle
        do {
            errorHandle = try FileHandle(forWritingTo: errors)
        } catch {
            throw .fileSystem(path: errors.path, reason: "\(error)")
        }
        process.standardError = errorHandle

        let status: Int32
        do {
            status = try await run(process)
        } catch {
            try? errorHandle.close()
            throw .launchFailed(path: converter, reason: "\(error)")
        }
        try? errorHandle.close()
        if Task.isCancelled { throw .cancelled }
        guard status == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw .conversionFailed(status: status, message: message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #else
        // No child processes on this platform (converterPath() found none).
        throw .launchFailed(path: converter, reason: "this platform runs no child processes")
        #endif
    }

    #if os(Linux) || os(macOS)
    /// Starts the process and suspends until it exits; cancellation terminates it.
    private static func run(_ process: Process) async throws -> Int32 {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                process.terminationHandler = { finished in
                    continuation.resume(returning: finished.terminationStatus)
                }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            if process.isRunning { process.terminate() }
        }
    }
    #endif

    /// The first executable `rsvg-convert` on the `PATH`.
    static func converterPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        #if !(os(Linux) || os(macOS))
        return nil
        #endif
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("rsvg-convert").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
