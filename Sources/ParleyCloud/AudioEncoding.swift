import Foundation
import ParleyCore

/// Turns a stream of raw 16-bit little-endian PCM bytes, split anywhere, into audio buffers.
struct PCM16Decoder: Sendable {
    let sampleRate: Int
    private var carry: UInt8?

    init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    /// Decodes the bytes; an odd trailing byte waits for the next chunk.
    mutating func decode<Bytes: Collection>(_ bytes: Bytes) -> AudioBuffer where Bytes.Element == UInt8 {
        var samples: [Float] = []
        samples.reserveCapacity((bytes.count + 1) / 2)
        var low = carry
        for byte in bytes {
            if let first = low {
                samples.append(Float(Int16(bitPattern: UInt16(first) | UInt16(byte) << 8)) / 32768)
                low = nil
            } else {
                low = byte
            }
        }
        carry = low
        return AudioBuffer(samples: samples, sampleRate: sampleRate)
    }
}

/// A `multipart/form-data` body.
struct MultipartForm {
    let boundary = "parley-\(UUID().uuidString)"
    private(set) var body = Data()

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func add(name: String, value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func add(name: String, filename: String, contentType: String, data: Data) {
        body.append(
            Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n".utf8))
    }

    func finished() -> Data {
        body + Data("--\(boundary)--\r\n".utf8)
    }
}
