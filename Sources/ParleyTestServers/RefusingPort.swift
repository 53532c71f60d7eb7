#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port on 127.0.0.1 where nothing listens, so a connection attempt is refused.
///
/// The port is taken below the usual ephemeral ranges (Linux: 32768–60999; BSD and macOS:
/// 49152–65535), where the servers of concurrent tests, which ask for port 0, never land; a
/// port is only handed out if it can be bound, i.e. nothing uses it.
public enum RefusingPort {
    /// A free port in 20000–29999, or 9 (the discard port, closed on most machines) if none
    /// could be bound.
    public static func find() -> Int {
        for _ in 0..<50 {
            let candidate = Int.random(in: 20_000..<30_000)
            if canBind(candidate) { return candidate }
        }
        return 9
    }

    /// `http://127.0.0.1:PORT` for a fresh refusing port.
    public static func baseURL() -> String {
        "http://127.0.0.1:\(find())"
    }

    private static func canBind(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
