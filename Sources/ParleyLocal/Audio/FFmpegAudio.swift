import Foundation
import ParleyProcess
import ParleyCore

/// What went wrong reading or writing an audio file.
public enum AudioFileError: Error, Equatable, CustomStringConvertible {
    /// The file is none of the kinds Parley or ffmpeg read.
    case unrecognized(detail: String)
    /// The file is of a known kind but its audio cannot be decoded (corrupt or cut short
    /// before any audio).
    case undecodable(kind: String, detail: String)
    /// The file holds no audio at all.
    case empty(kind: String)
    /// The audio is longer than the limit.
    case tooLong(limitSeconds: Double)
    /// This kind needs ffmpeg, which is not installed (or this platform runs no programs).
    case needsFFmpeg(kind: String)
    /// ffmpeg failed while encoding.
    case encodingFailed(format: String, detail: String)

    public var description: String {
        switch self {
        case .unrecognized(let detail):
            return "The file is not audio in a format this server reads (wav, mp3, ogg/opus, webm, m4a/mp4, aac, flac, aiff, caf): \(detail)"
        case .undecodable(let kind, let detail):
            return "The \(kind) file is corrupt or cut short; no audio could be decoded from it: \(detail)"
        case .empty(let kind): return "The \(kind) file holds no audio."
        case .tooLong(let limit): return "The audio is longer than \(Int(limit)) seconds, this server's limit; send a shorter file."
        case .needsFFmpeg(let kind): return "Reading \(kind) audio needs ffmpeg, which is not installed here (install the ffmpeg package), or send WAV."
        case .encodingFailed(let format, let detail): return "Encoding \(format) failed: \(detail)"
        }
    }
}

/// Audio files in and out through the `ffmpeg` program, run as a separate process (Debian's
/// build is GPL; nothing of it is linked). WAV and raw PCM never need it.
///
/// - Decoding: whatever browsers and phones record (WebM/Opus, Ogg, MP3, M4A/AAC, FLAC,
///   AIFF, CAF) to mono float samples; WAV is read in process.
/// - Encoding: MP3 (LAME), Opus in Ogg (libopus), AAC in ADTS, FLAC, streamed: audio goes
///   in as it is synthesized and the encoded bytes come out as ffmpeg writes them.
public struct FFmpegAudio: Sendable {
    /// The program (a name looked up on `PATH`, or a path).
    public let executable: String

    /// Creates the codec.
    public init(executable: String = "ffmpeg") {
        self.executable = executable
    }

    /// Whether ffmpeg can be run here.
    public var isAvailable: Bool { ChildProcess.locate(executable) != nil }

    // MARK: - Decoding

    /// The audio of `data` as mono samples at `sampleRate`: WAV in process, every other kind
    /// through ffmpeg. Audio past `maxDuration` seconds is never decoded: the file is
    /// refused as too long.
    public func decode(_ data: Data, maxDuration: Double, sampleRate: Int = 16_000) async throws(AudioFileError) -> AudioBuffer {
        let kind = AudioContainer.sniff(data)
        if kind == .wav {
            let audio: AudioBuffer
            do {
                audio = try WAV.decode(data)
            } catch {
                throw .undecodable(kind: "wav", detail: "\(error)")
            }
            guard audio.duration <= maxDuration else { throw .tooLong(limitSeconds: maxDuration) }
            return audio
        }
        // ffmpeg is told the container: it never guesses one (a playlist, a concat list or an
        // image sequence would make it open other files), and reads only the file given.
        guard let kind else { throw .unrecognized(detail: "its first bytes match no audio format") }
        let name = kind.rawValue
        guard let path = ChildProcess.locate(executable) else { throw .needsFFmpeg(kind: name) }
        // A file, not a pipe: an m4a's index may sit at its end, which needs seeking.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-audio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let output: ChildProcess.Output
        do {
            try data.write(to: file)
            output = try await ChildProcess.run(
                path,
                arguments: [
                    "-nostdin", "-hide_banner", "-loglevel", "error", "-protocol_whitelist", "file",
                    "-f", Self.demuxer(of: kind), "-i", file.path, "-map", "0:a:0", "-vn",
                    // A second past the limit tells "too long" apart from "just fits".
                    "-t", String(format: "%.3f", maxDuration + 1),
                    "-f", "f32le", "-acodec", "pcm_f32le", "-ac", "1", "-ar", String(sampleRate), "pipe:1",
                ])
        } catch {
            throw .undecodable(kind: name, detail: "\(error)")
        }
        // ffmpeg names the input by its path, which is ours, not the client's.
        let message = String(decoding: output.standardError, as: UTF8.self).replacingOccurrences(of: file.path + ": ", with: "")
            .replacingOccurrences(of: file.path, with: "the file").trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0 else {
            let detail = message.split(separator: "\n").last.map(String.init) ?? "exit status \(output.status)"
            throw .undecodable(kind: name, detail: detail)
        }
        let samples = Float32LE.samples(output.standardOutput)
        guard !samples.isEmpty else {
            if !message.isEmpty { throw .undecodable(kind: name, detail: message) }
            throw .empty(kind: name)
        }
        let audio = AudioBuffer(samples: samples, sampleRate: sampleRate)
        guard audio.duration <= maxDuration + 0.5 else { throw .tooLong(limitSeconds: maxDuration) }
        return audio
    }

    /// ffmpeg's demuxer for each container read through it.
    static func demuxer(of kind: AudioContainer) -> String {
        switch kind {
        case .ogg: "ogg"
        case .webm: "matroska"
        case .mp3: "mp3"
        case .flac: "flac"
        case .mp4: "mov"
        case .aac: "aac"
        case .caf: "caf"
        case .aiff: "aiff"
        case .wav: "wav"
        }
    }

    // MARK: - Encoding

    /// `audio`, as it arrives, encoded to `format` at ``SpeechFileFormat/sampleRate``; the
    /// encoded bytes come back as ffmpeg writes them. WAV and PCM are written in process
    /// (WAV with the length of a stream: unknown, as players accept).
    public func encode<Audio: AsyncSequence & Sendable>(
        _ audio: Audio, format: SpeechFileFormat
    ) -> AsyncThrowingStream<Data, any Error> where Audio.Element == AudioBuffer {
        let rate = SpeechFileFormat.sampleRate
        guard let codec = Self.arguments(for: format) else {
            return AsyncThrowingStream { continuation in
                let task = Task {
                    do {
                        if format == .wav { continuation.yield(Data(WAV.streamingHeader(sampleRate: rate))) }
                        for try await chunk in audio { continuation.yield(Data(PCM16.encode(chunk, rate: rate))) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
        guard let path = ChildProcess.locate(executable) else {
            return AsyncThrowingStream { $0.finish(throwing: AudioFileError.needsFFmpeg(kind: format.rawValue)) }
        }
        let samples = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                do {
                    for try await chunk in audio { continuation.yield(Float32LE.bytes(chunk.resampled(to: rate).samples)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let arguments =
            [
                "-nostdin", "-hide_banner", "-loglevel", "error",
                "-f", "f32le", "-ar", String(rate), "-ac", "1", "-i", "pipe:0",
            ]
            + codec + ["-flush_packets", "1", "pipe:1"]
        let encoded = ChildProcess.filter(path, arguments: arguments, input: samples)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await chunk in encoded { continuation.yield(chunk) }
                    continuation.finish()
                } catch let failure as ChildProcess.Failure {
                    continuation.finish(throwing: AudioFileError.encodingFailed(format: format.rawValue, detail: failure.description))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// ffmpeg's codec and muxer arguments for `format`; `nil` for the formats written in
    /// process.
    static func arguments(for format: SpeechFileFormat) -> [String]? {
        switch format {
        // No Xing header: it would be a placeholder a pipe cannot go back and fill.
        case .mp3: return ["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", "-f", "mp3"]
        case .opus: return ["-c:a", "libopus", "-b:a", "64k", "-application", "voip", "-f", "ogg"]
        case .aac: return ["-c:a", "aac", "-b:a", "128k", "-f", "adts"]
        case .flac: return ["-c:a", "flac", "-f", "flac"]
        case .wav, .pcm: return nil
        }
    }
}

/// 32-bit float little-endian samples, ffmpeg's `f32le`.
enum Float32LE {
    static func bytes(_ samples: [Float]) -> Data {
        var data = Data(capacity: samples.count * 4)
        for sample in samples {
            withUnsafeBytes(of: sample.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    static func samples(_ data: Data) -> [Float] {
        let count = data.count / 4
        var samples = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            for index in 0..<count {
                let bits = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                samples[index] = Float(bitPattern: UInt32(littleEndian: bits))
            }
        }
        return samples
    }
}
