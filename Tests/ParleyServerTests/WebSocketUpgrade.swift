import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket upgrade request written by hand over a plain socket, to read what the server
/// answers (status and headers) the way a browser does.
enum WebSocketUpgrade {
    struct Answer {
        var status: Int
        var headers: [String: String]
    }

    /// Sends the upgrade request and reads the answer's head. The socket blocks, so it runs on a
    /// dispatch queue: a blocked thread of the concurrency pool could starve the server.
    static func request(port: Int, path: String = "/v1/realtime", headers: [(String, String)]) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try exchange(port: port, path: path, headers: headers) })
            }
        }
    }

    private static func exchange(port: Int, path: String, headers: [(String, String)]) throws -> Answer {
        do {
            let descriptor = try LoopbackSocket.connected(to: port)
            defer { close(descriptor) }
            var lines = [
                "GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket", "Connection: Upgrade",
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
            ]
            lines += headers.map { "\($0.0): \($0.1)" }
            let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
            _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !received.containsHeadEnd {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let head = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
            let headLines = head.components(separatedBy: "\r\n")
            let status = Int(headLines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            var fields: [String: String] = [:]
            for line in headLines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return Answer(status: status, headers: fields)
        }
    }
}

private extension Array where Element == UInt8 {
    var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        return (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}

/// A blocking TCP socket to 127.0.0.1, for requests written by hand.
enum LoopbackSocket {
    /// Connects to `port`; reads on the socket give up after 20 s. The caller closes it.
    static func connected(to port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        return descriptor
    }
}
