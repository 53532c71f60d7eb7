import Foundation
import ParleyCore
import Testing
@testable import ParleyLocal
import ParleyProcess

@Suite("ffmpeg as the codec of compressed audio, and child processes as filters")
struct FFmpegAudioTests {
    static let ffmpeg = FFmpegAudio()

    /// A second of a 300 Hz tone at 22,050 Hz, in two chunks as a voice would yield them.
    static func tone() -> AsyncThrowingStream<AudioBuffer, any Error> {
        let samples = (0..<22_050).map { Float(sin(Double($0) * 2 * .pi * 300 / 22_050) * 0.4) }
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioBuffer(samples: Array(samples[..<11_025]), sampleRate: 22_050))
            continuation.yield(AudioBuffer(samples: Array(samples[11_025...]), sampleRate: 22_050))
            continuation.finish()
        }
    }

    @Test(
        "each compressed format encodes a stream and decodes back to about the same length and loudness",
        .enabled(if: ffmpeg.isAvailable), arguments: [SpeechFileFormat.mp3, .opus, .aac, .flac])
    func roundTrip(format: SpeechFileFormat) async throws {
        var encoded = Data()
        for try await chunk in Self.ffmpeg.encode(Self.tone(), format: format) { encoded.append(chunk) }
        #expect(AudioContainer.sniff(encoded) == [.mp3: .mp3, .opus: .ogg, .aac: .aac, .flac: .flac][format])
        let audio = try await Self.ffmpeg.decode(encoded, maxDuration: 60)
        #expect(audio.sampleRate == 16_000)
        #expect(abs(audio.duration - 1) < 0.12, "\(format): \(audio.duration) s")
        #expect(audio.peak > 0.3 && audio.peak < 0.5, "\(format): peak \(audio.peak)")
    }

    @Test("pcm and a streaming wav are written without ffmpeg")
    func builtIn() async throws {
        let missing = FFmpegAudio(executable: "/nonexistent/ffmpeg")
        var pcm = Data()
        for try await chunk in missing.encode(Self.tone(), format: .pcm) { pcm.append(chunk) }
        #expect(pcm.count == 24_000 * 2)
        var wav = Data()
        for try await chunk in missing.encode(Self.tone(), format: .wav) { wav.append(chunk) }
        #expect(try WAV.decode(wav, streamed: true).duration == 1)
        await #expect(throws: AudioFileError.needsFFmpeg(kind: "mp3")) {
            for try await _ in missing.encode(Self.tone(), format: .mp3) {}
        }
        await #expect(throws: AudioFileError.needsFFmpeg(kind: "ogg")) {
            _ = try await missing.decode(Data("OggS".utf8) + Data(count: 100), maxDuration: 10)
        }
    }

    @Test("audio longer than the limit is refused; a file of no audio kind is unrecognized", .enabled(if: ffmpeg.isAvailable))
    func limits() async throws {
        var encoded = Data()
        for try await chunk in Self.ffmpeg.encode(Self.tone(), format: .flac) { encoded.append(chunk) }
        await #expect(throws: AudioFileError.tooLong(limitSeconds: 0.25)) { _ = try await Self.ffmpeg.decode(encoded, maxDuration: 0.25) }
        #expect(try await Self.ffmpeg.decode(encoded, maxDuration: 1).duration > 0.9)
        await #expect {
            _ = try await Self.ffmpeg.decode(Data("not audio at all, just some text".utf8), maxDuration: 10)
        } throws: { error in
            guard case .unrecognized = error as? AudioFileError else { return false }
            return true
        }
    }

    @Test("a filter streams a program's output and fails with its message and status", .enabled(if: ChildProcess.locate("cat") != nil))
    func filter() async throws {
        let input = AsyncStream<Data> { continuation in
            for word in ["one ", "two ", "three"] { continuation.yield(Data(word.utf8)) }
            continuation.finish()
        }
        var output = Data()
        for try await chunk in ChildProcess.filter(try #require(ChildProcess.locate("cat")), arguments: [], input: input) { output.append(chunk) }
        #expect(String(decoding: output, as: UTF8.self) == "one two three")

        let shell = try #require(ChildProcess.locate("sh"))
        await #expect {
            for try await _ in ChildProcess.filter(shell, arguments: ["-c", "echo broken >&2; exit 3"], input: AsyncStream<Data> { $0.finish() }) {}
        } throws: { error in
            "\(error)".contains("exit status 3") && "\(error)".contains("broken")
        }
    }
}
