import Foundation

/// Where a shared conversation database is: the value of `PARLEY_DATABASE_URL`,
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (also `postgresql://`), with an optional
/// `?sslmode=disable|prefer|require` and `&pool_size=N` (the most connections one process
/// opens; `PARLEY_DATABASE_POOL_SIZE` sets it too).
///
/// The password is a secret: ``description`` (and so every log line and error that shows the
/// URL) leaves it out, and parse errors never quote the text they were given.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whether the connection is encrypted, as libpq's `sslmode` says it.
    public enum TLSMode: String, Sendable, Equatable {
        /// Never: for a server on this machine or a private network.
        case disable
        /// When the server offers it (libpq's default; also what `allow` means here).
        case prefer
        /// Always, with the server's certificate verified against the system's trust roots
        /// (also what `verify-ca` and `verify-full` mean here).
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 unless the URL says otherwise).
    public var port: Int
    /// The user to log in as.
    public var user: String
    /// The user's password, if the server asks for one. Never logged.
    public var password: String?
    /// The database (the user's name unless the URL says otherwise).
    public var database: String
    /// Whether the connection is encrypted.
    public var tls: TLSMode
    /// The most connections one process keeps open to the database (its pool's size). With N
    /// server instances, PostgreSQL's `max_connections` must allow N times this.
    public var poolSize: Int

    /// The pool size unless one is asked for: postgres-nio's own default.
    public static let defaultPoolSize = 20
    /// The pool sizes accepted.
    public static let poolSizes = 1...1_000

    /// Creates a URL from its parts.
    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer,
        poolSize: Int = DatabaseURL.defaultPoolSize
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.poolSize = poolSize
    }

    /// A pool size from text (a setting or the URL's `pool_size`), or `nil` when it is not a
    /// whole number in ``poolSizes``.
    public static func poolSize(_ text: String) -> Int? {
        guard let size = Int(text.trimmingCharacters(in: .whitespaces)), poolSizes.contains(size) else { return nil }
        return size
    }

    /// Parses `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=…`; user name and password
    /// may be percent-encoded.
    ///
    /// - Throws: ``StoreError/invalidDatabaseURL(reason:)`` saying which part is wrong.
    public init(parsing text: String) throws(StoreError) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidDatabaseURL(reason: "it is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw .invalidDatabaseURL(reason: "only postgres:// and postgresql:// URLs are supported")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalidDatabaseURL(reason: "it names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw .invalidDatabaseURL(reason: "it names no user")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw .invalidDatabaseURL(reason: "the port must be between 1 and 65535")
        }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.contains("/") else {
            throw .invalidDatabaseURL(reason: "the path must be one database name")
        }
        var tls = TLSMode.prefer
        var poolSize = Self.defaultPoolSize
        for item in components.queryItems ?? [] {
            if item.name == "pool_size" {
                guard let size = Self.poolSize(item.value ?? "") else {
                    throw .invalidDatabaseURL(reason: "pool_size must be a whole number from \(Self.poolSizes.lowerBound) to \(Self.poolSizes.upperBound)")
                }
                poolSize = size
                continue
            }
            guard item.name == "sslmode" else {
                throw .invalidDatabaseURL(reason: "the parameter '\(item.name)' is not understood: only sslmode and pool_size are")
            }
            switch item.value ?? "" {
            case "disable": tls = .disable
            case "allow", "prefer": tls = .prefer
            case "require", "verify-ca", "verify-full": tls = .require
            default: throw .invalidDatabaseURL(reason: "sslmode must be disable, prefer or require")
            }
        }
        self.init(
            host: host, port: components.port ?? 5432, user: user, password: components.password,
            database: path.isEmpty ? user : path, tls: tls, poolSize: poolSize)
    }

    /// The same server and user, another database.
    public func database(_ name: String) -> DatabaseURL {
        var url = self
        url.database = name
        return url
    }

    /// `postgresql://USER@HOST:PORT/DATABASE`: the URL without its password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgresql://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// The same as ``description``: the password is never shown.
    public var debugDescription: String { description }
}
