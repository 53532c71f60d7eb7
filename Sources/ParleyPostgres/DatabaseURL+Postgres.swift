import ParleyStore
import PostgresNIO

extension DatabaseURL {
    /// The pool's TLS mode for ``tls``: `require` verifies the server's certificate and name.
    func clientTLS() throws -> PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }

    /// The configuration of one plain connection (the one that runs the migrations).
    func connectionConfiguration(timeout: Duration) throws -> PostgresConnection.Configuration {
        let connectionTLS: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable: connectionTLS = .disable
        case .prefer: connectionTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: connectionTLS = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password,
            database: database, tls: connectionTLS)
        configuration.options.connectTimeout = .nanoseconds(Self.nanoseconds(timeout))
        return configuration
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
