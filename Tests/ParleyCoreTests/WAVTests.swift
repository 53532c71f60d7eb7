import Foundation
import Testing
@testable import ParleyCore

/// Builds WAV bytes by hand, so decoding is tested against the format, not against our encoder.
func makeWAV(
    formatTag: UInt16, channels: UInt16, sampleRate: UInt32, bits: UInt16, payload: [UInt8],
    extensible: Bool = false, declaredDataSize: UInt32? = nil, extraChunk: Bool = false
) -> Data {
    var out = [UInt8]()
    func put(_ text: String) { out += Array(text.utf8) }
    func put32(_ v: UInt32) { out += withUnsafeBytes(of: v.littleEndian, Array.init) }
    func put16(_ v: UInt16) { out += withUnsafeBytes(of: v.littleEndian, Array.init) }
    put("RIFF"); put32(0); put("WAVE")
    if extraChunk { put("LIST"); put32(3); out += [1, 2, 3, 0] }  // odd size: padded
    put("fmt ")
    put32(extensible ? 40 : 16)
    put16(extensible ? 0xFFFE : formatTag); put16(channels); put32(sampleRate)
    let block = channels * bits / 8
    put32(sampleRate * UInt32(block)); put16(block); put16(bits)
    if extensible {
        put16(22); put16(bits); put32(0)
        put16(formatTag); out += [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
    }
    put("data"); put32(declaredDataSize ?? UInt32(payload.count))
    out += payload
    return Data(out)
}

func littleEndianBytes<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] {
    values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
}

@Suite("WAV decoding and encoding")
struct WAVTests {
    @Test("16-bit PCM mono")
    func pcm16() throws {
        let data = makeWAV(formatTag: 1, channels: 1, sampleRate: 16_000, bits: 16, payload: littleEndianBytes([Int16(0), 16384, -32768, 32767]))
        let audio = try WAV.decode(data)
        #expect(audio.sampleRate == 16_000)
        #expect(audio.samples == [0, 0.5, -1, Float(32767) / 32768])
    }

    @Test("8-bit unsigned PCM")
    func pcm8() throws {
        let audio = try WAV.decode(makeWAV(formatTag: 1, channels: 1, sampleRate: 8_000, bits: 8, payload: [128, 192, 0]))
        #expect(audio.samples == [0, 0.5, -1])
    }

    @Test("24-bit PCM, stereo mixed down to mono")
    func pcm24Stereo() throws {
        // Left 0.5, right -0.25 → mono 0.125; then left -1, right -1 → -1.
        let half: [UInt8] = [0x00, 0x00, 0x40], quarterNeg: [UInt8] = [0x00, 0x00, 0xE0], minusOne: [UInt8] = [0x00, 0x00, 0x80]
        let audio = try WAV.decode(
            makeWAV(
                formatTag: 1, channels: 2, sampleRate: 44_100, bits: 24,
                payload: half + quarterNeg + minusOne + minusOne))
        #expect(audio.sampleRate == 44_100)
        #expect(audio.samples == [0.125, -1])
    }

    @Test("32-bit integer PCM")
    func pcm32() throws {
        let audio = try WAV.decode(makeWAV(formatTag: 1, channels: 1, sampleRate: 48_000, bits: 32, payload: littleEndianBytes([Int32.min, 1 << 30])))
        #expect(audio.samples == [-1, 0.5])
    }

    @Test("32-bit float in an extensible header, after an odd-sized extra chunk")
    func float32Extensible() throws {
        let payload = littleEndianBytes([Float(0.25).bitPattern, Float(-0.75).bitPattern])
        let audio = try WAV.decode(
            makeWAV(
                formatTag: 3, channels: 1, sampleRate: 22_050, bits: 32, payload: payload,
                extensible: true, extraChunk: true))
        #expect(audio.samples == [0.25, -0.75])
    }

    @Test("64-bit float")
    func float64() throws {
        let audio = try WAV.decode(
            makeWAV(
                formatTag: 3, channels: 1, sampleRate: 16_000, bits: 64,
                payload: littleEndianBytes([Double(0.5).bitPattern])))
        #expect(audio.samples == [0.5])
    }

    @Test("encode then decode keeps the audio within 16-bit precision")
    func roundTrip() throws {
        let samples = (0..<1000).map { Float(sin(Double($0) * 0.05)) * 0.8 }
        let decoded = try WAV.decode(WAV.encode(AudioBuffer(samples: samples, sampleRate: 24_000)))
        #expect(decoded.sampleRate == 24_000)
        #expect(decoded.samples.count == samples.count)
        #expect(zip(decoded.samples, samples).allSatisfy { abs($0 - $1) < 1.0 / 16_000 })
    }

    @Test("a streamed header with an unknown length is read to the end only when asked")
    func streamedLength() throws {
        let data = makeWAV(
            formatTag: 1, channels: 1, sampleRate: 22_050, bits: 16, payload: littleEndianBytes([Int16(100), 200]),
            declaredDataSize: 0x7FFF_F000)
        #expect(try WAV.decode(data, streamed: true).samples.count == 2)
        #expect(throws: WAVError.self) { try WAV.decode(data) }
        // 0xFFFFFFFF says "unknown" (ffmpeg writing to a pipe): read to the end in any case.
        let unknown = makeWAV(
            formatTag: 1, channels: 1, sampleRate: 22_050, bits: 16, payload: littleEndianBytes([Int16(100), 200]),
            declaredDataSize: 0xFFFF_FFFF)
        #expect(try WAV.decode(unknown).samples.count == 2)
    }

    @Test(
        "bad input gives a typed error with a sentence",
        arguments: [
            (Data("hello, not audio at all".utf8), "not a WAV file"),
            (Data(), "not a WAV file"),
            (makeWAV(formatTag: 1, channels: 1, sampleRate: 16_000, bits: 16, payload: [1, 2, 3, 4], declaredDataSize: 4000), "truncated"),
            (makeWAV(formatTag: 1, channels: 1, sampleRate: 16_000, bits: 16, payload: []), "no audio"),
            (makeWAV(formatTag: 0x55, channels: 1, sampleRate: 16_000, bits: 16, payload: [0, 0]), "Unsupported"),
            (makeWAV(formatTag: 1, channels: 1, sampleRate: 16_000, bits: 12, payload: [0, 0]), "Unsupported"),
            (makeWAV(formatTag: 1, channels: 1, sampleRate: 16_000, bits: 16, payload: [0, 0]).prefix(30), "truncated"),
        ])
    func badInput(data: Data, phrase: String) {
        do {
            _ = try WAV.decode(data)
            Issue.record("decoding should have failed")
        } catch {
            #expect(error.description.contains(phrase), "\(error.description)")
        }
    }

    @Test("a missing file is reported by path")
    func missingFile() {
        #expect(throws: WAVError.fileNotFound(path: "/nonexistent/q.wav")) {
            try WAV.read(from: URL(fileURLWithPath: "/nonexistent/q.wav"))
        }
    }

    @Test("writing to a pipe (or a device such as /dev/null) writes into it, and leaves it what it was")
    func writesIntoSpecialFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wav-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("out.wav")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A reader that does not block, so the writer can open the pipe.
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let audio = AudioBuffer(samples: [Float](repeating: 0.1, count: 800), sampleRate: 16_000)
        try WAV.write(audio, to: fifo)
        let type = try FileManager.default.attributesOfItem(atPath: fifo.path)[.type] as? FileAttributeType
        #expect(type != nil && type != .typeRegular, "the pipe was replaced by a \(String(describing: type))")
        var bytes = [UInt8](repeating: 0, count: 4)
        #expect(read(reader, &bytes, 4) == 4)
        #expect(bytes == Array("RIFF".utf8))
    }
}
