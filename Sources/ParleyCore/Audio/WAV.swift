import Foundation

/// Reads and writes RIFF/WAVE audio.
///
/// Decoding accepts PCM 8, 16, 24 and 32-bit integers and 32/64-bit floats, plain or in a
/// `WAVE_FORMAT_EXTENSIBLE` header, with any number of channels (mixed down to mono) at any
/// sample rate. Encoding writes 16-bit PCM mono.
public enum WAV {
    /// Reads a WAV file from disk and mixes it down to mono.
    public static func read(from url: URL) throws(WAVError) -> AudioBuffer {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        return try decode(data)
    }

    /// Decodes WAV bytes and mixes them down to mono.
    /// - Parameters:
    ///   - data: the bytes of a whole WAV file.
    ///   - streamed: the bytes come from a pipe whose writer could not know the length
    ///     in advance (e.g. `espeak-ng --stdout`): a data size larger than what arrived is read as
    ///     "until the end" instead of as truncation.
    public static func decode(_ data: Data, streamed: Bool = false) throws(WAVError) -> AudioBuffer {
        let bytes = [UInt8](data)
        var reader = ByteReader(bytes: bytes)
        guard bytes.count >= 12, reader.fourCC(at: 0) == "RIFF", reader.fourCC(at: 8) == "WAVE" else {
            throw .notWAV
        }
        reader.offset = 12
        var format: Format?
        var payload: ArraySlice<UInt8>?
        while reader.remaining >= 8 {
            let id = reader.fourCC(at: reader.offset)
            reader.offset += 4
            let declared = Int(reader.u32())
            let available = reader.remaining
            switch id {
            case "fmt ":
                guard declared <= available, declared >= 16 else {
                    throw .truncated("the format chunk is cut short")
                }
                format = try Format(chunk: bytes[reader.offset..<(reader.offset + declared)])
            case "data":
                // Writers to pipes put 0 or a large placeholder as the size (0xFFFFFFFF: unknown,
                // as ffmpeg and streaming servers write it); take what is there.
                let unknown = declared == 0 || declared == Int(UInt32.max)
                let size = (unknown || (streamed && declared > available)) ? available : declared
                guard size <= available else {
                    throw .truncated("the header announces \(declared) bytes of audio, the file has \(available)")
                }
                payload = bytes[reader.offset..<(reader.offset + size)]
            default:
                break
            }
            if payload != nil, format != nil { break }
            reader.offset += min(declared + (declared & 1), available)
        }
        guard let format else { throw .truncated("no format chunk before the end of the file") }
        guard let payload else { throw .truncated("no data chunk") }
        let frameBytes = format.bytesPerSample * format.channels
        let frames = payload.count / frameBytes
        guard frames > 0 else { throw .empty }
        return AudioBuffer(samples: format.decodeMono(payload, frames: frames), sampleRate: format.sampleRate)
    }

    /// The header of a 16-bit mono WAV whose length is not known yet (sizes 0xFFFFFFFF, as
    /// streaming servers write it): 16-bit samples (``PCM16``) follow until the stream ends.
    public static func streamingHeader(sampleRate: Int) -> [UInt8] {
        Array(header(sampleRate: sampleRate, dataBytes: nil))
    }

    /// Encodes mono audio as a 16-bit PCM WAV file.
    public static func encode(_ buffer: AudioBuffer) -> Data {
        var out = header(sampleRate: buffer.sampleRate, dataBytes: buffer.samples.count * 2)
        out.reserveCapacity(44 + buffer.samples.count * 2)
        for sample in buffer.samples {
            let clipped = max(-1, min(1, sample))
            withUnsafeBytes(of: UInt16(bitPattern: Int16((clipped * 32767).rounded())).littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }

    /// The 44-byte header of a 16-bit mono WAV with `dataBytes` of samples (unknown: `nil`).
    private static func header(sampleRate: Int, dataBytes: Int?) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(44)
        func put(_ text: String) { out.append(contentsOf: Array(text.utf8)) }
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        put("RIFF"); put32(dataBytes.map { UInt32(36 + $0) } ?? UInt32.max); put("WAVE")
        put("fmt "); put32(16); put16(1); put16(1)
        put32(UInt32(sampleRate)); put32(UInt32(sampleRate * 2)); put16(2); put16(16)
        put("data"); put32(dataBytes.map { UInt32($0) } ?? UInt32.max)
        return Data(out)
    }

    /// Writes mono audio to `url` as a 16-bit PCM WAV file.
    public static func write(_ buffer: AudioBuffer, to url: URL) throws {
        // A regular file (or a new one) is replaced atomically: a reader never sees half a WAV.
        // Anything else — /dev/null, a pipe, a terminal — is written in place: replacing it
        // would swap the device for a plain file (as root, /dev/null itself).
        let type = (try? FileManager.default.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType
        try encode(buffer).write(to: url, options: type == nil || type == .typeRegular ? .atomic : [])
    }
}

extension WAV {
    /// The parts of a `fmt ` chunk that decoding needs.
    struct Format {
        enum Encoding { case integer, float }
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        var bitsPerSample: Int
        var bytesPerSample: Int { bitsPerSample / 8 }

        init(chunk: ArraySlice<UInt8>) throws(WAVError) {
            var reader = ByteReader(bytes: Array(chunk))
            var tag = reader.u16()
            channels = Int(reader.u16())
            sampleRate = Int(reader.u32())
            _ = reader.u32()  // byte rate
            _ = reader.u16()  // block align
            bitsPerSample = Int(reader.u16())
            if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real tag opens the sub-format GUID.
                guard chunk.count >= 40 else { throw .truncated("the extensible format chunk is cut short") }
                reader.offset = 24
                tag = reader.u16()
            }
            switch (tag, bitsPerSample) {
            case (1, 8), (1, 16), (1, 24), (1, 32): encoding = .integer
            case (3, 32), (3, 64): encoding = .float
            case (1, _), (3, _):
                throw .unsupportedFormat("\(bitsPerSample)-bit samples")
            default:
                throw .unsupportedFormat("format tag \(tag) (compressed audio)")
            }
            guard channels > 0 else { throw .unsupportedFormat("zero channels") }
            guard sampleRate > 0 else { throw .unsupportedFormat("a sample rate of 0 Hz") }
        }

        func decodeMono(_ payload: ArraySlice<UInt8>, frames: Int) -> [Float] {
            var out = [Float](repeating: 0, count: frames)
            let width = bytesPerSample
            let scale = 1 / Float(channels)
            payload.withUnsafeBytes { raw in
                for frame in 0..<frames {
                    var sum: Float = 0
                    for channel in 0..<channels {
                        sum += sample(raw, at: (frame * channels + channel) * width)
                    }
                    out[frame] = sum * scale
                }
            }
            return out
        }

        private func sample(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Float {
            switch (encoding, bitsPerSample) {
            case (.integer, 8):
                return (Float(raw[offset]) - 128) / 128
            case (.integer, 16):
                let value = Int16(bitPattern: UInt16(raw[offset]) | UInt16(raw[offset + 1]) << 8)
                return Float(value) / 32768
            case (.integer, 24):
                let unsigned = UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1]) << 16 | UInt32(raw[offset + 2]) << 24
                return Float(Int32(bitPattern: unsigned) >> 8) / 8_388_608
            case (.integer, _):
                return Float(Double(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)) / 2_147_483_648)
            case (.float, 32):
                return Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
            case (.float, _):
                return Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian))
            }
        }
    }

    /// Little-endian reads over a byte array.
    struct ByteReader {
        let bytes: [UInt8]
        var offset = 0
        var remaining: Int { max(0, bytes.count - offset) }

        func fourCC(at position: Int) -> String {
            guard position + 4 <= bytes.count else { return "" }
            return String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
        }

        mutating func u16() -> UInt16 {
            guard offset + 2 <= bytes.count else { offset = bytes.count; return 0 }
            defer { offset += 2 }
            return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
        }

        mutating func u32() -> UInt32 {
            guard offset + 4 <= bytes.count else { offset = bytes.count; return 0 }
            defer { offset += 4 }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
    }
}
