#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 whose listen queue is kept full, so that a new connection attempt
/// gets no answer at all (its SYN is dropped) — the way to exercise a client's connect
/// timeout without leaving the loopback interface.
public final class UnacceptingListener: Sendable {
    /// Why the listener could not be set up.
    public struct SetupError: Error, CustomStringConvertible {
        /// The failing system call and its errno.
        public var description: String
    }

    /// The port that does not answer.
    public let port: Int
    private let descriptors: [Int32]

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Opens the listener and fills its queue.
    public init() throws {
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else { throw SetupError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 0) == 0 else {
            _ = Self.closeDescriptor(listener)
            throw SetupError(description: "bind/listen: errno \(errno)")
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        // A backlog of 0 holds one finished handshake; fill it (and a spare) and never accept.
        var descriptors = [listener]
        for _ in 0..<2 {
            let filler = socket(AF_INET, Self.streamType, 0)
            guard filler >= 0 else { continue }
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL, 0) | O_NONBLOCK)
            var target = address
            _ = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            descriptors.append(filler)
        }
        // Wait (bounded) for the first filler's handshake, so the queue is full on return.
        var poller = pollfd(fd: descriptors[1], events: Int16(POLLOUT), revents: 0)
        _ = poll(&poller, 1, 2_000)
        self.port = port
        self.descriptors = descriptors
    }

    /// Closes the listener and the connections that fill it.
    public func close() {
        for descriptor in descriptors { _ = Self.closeDescriptor(descriptor) }
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }
}
