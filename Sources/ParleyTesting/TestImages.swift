import Foundation

/// Small whole images for tests that need an image to pass the checks (``ImageAttachment/validated(_:name:limit:)``).
public enum TestImages {
    /// A 1×1 PNG: signature, IHDR, IDAT, IEND (70 bytes).
    public static let onePixelPNG =
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==") ?? Data()

    /// The 1×1 PNG grown to `size` bytes (at least 82) with a comment chunk, for tests of size limits.
    public static func png(size: Int) -> Data {
        let header = onePixelPNG.prefix(33)  // signature and IHDR
        let rest = onePixelPNG.dropFirst(33)
        let textLength = max(0, size - onePixelPNG.count - 12)
        let type = Data("tEXt".utf8)
        let payload = Data("Comment".utf8) + Data([0]) + Data(repeating: UInt8(ascii: "x"), count: max(0, textLength - 8))
        var chunk = Data()
        chunk.append(contentsOf: bigEndian(UInt32(payload.count)))
        chunk.append(type)
        chunk.append(payload)
        chunk.append(contentsOf: bigEndian(crc32(type + payload)))
        return header + chunk + rest
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// Written here rather than taken from ParleyCore, so that the image checks are never
    /// tested with fixtures their own code made.
    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
