import Crypto
import Foundation

/// The digests the Google server needs: SHA-256 (PKCE S256, RFC 7636) and MD5 (Drive's
/// `md5Checksum`), from swift-crypto.
enum GoogleDigest {
    /// SHA-256 of `data`.
    static func sha256(_ data: Data) -> [UInt8] { Array(SHA256.hash(data: data)) }

    /// MD5 of `data`.
    static func md5(_ data: Data) -> [UInt8] { Array(Insecure.MD5.hash(data: data)) }

    /// Lower-case hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
