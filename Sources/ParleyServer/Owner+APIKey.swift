import Crypto
import ParleyData

extension Owner {
    /// The owner of what a request presenting API key `key` saves: `key-` followed by the first
    /// 8 bytes of the key's SHA-256 in hex, e.g. `key-ba7816bf8f01cfea` for the key `abc`.
    ///
    /// The id is what the database keeps and what logs may show; the key cannot be read back
    /// from it. The same key is the same owner across restarts and whatever its place in
    /// `PARLEY_API_KEYS`; a replaced key is a new owner, whose threads start empty.
    public static func apiKey(_ key: String) -> Owner {
        let digest = SHA256.hash(data: Array(key.utf8))
        let hex = digest.prefix(8).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return .key("key-" + hex.joined())
    }
}
