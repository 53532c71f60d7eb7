import ParleyStore
import Testing

@Suite("PARLEY_DATABASE_URL")
struct DatabaseURLTests {
    @Test("a full URL is read part by part, percent-encoding undone")
    func parses() throws {
        let url = try DatabaseURL(parsing: "postgres://parley:p%40ss%3Aword@db.example.com:6543/conversations?sslmode=require")
        #expect(
            url
                == DatabaseURL(
                    host: "db.example.com", port: 6543, user: "parley", password: "p@ss:word",
                    database: "conversations", tls: .require))
    }

    @Test("the port defaults to 5432, the database to the user, TLS to prefer; postgresql:// is the same")
    func defaults() throws {
        let url = try DatabaseURL(parsing: "postgresql://app@10.0.0.5")
        #expect(url == DatabaseURL(host: "10.0.0.5", port: 5432, user: "app", password: nil, database: "app", tls: .prefer))
        #expect(try DatabaseURL(parsing: "postgres://a:b@h/d?sslmode=disable").tls == .disable)
        #expect(try DatabaseURL(parsing: "postgres://a:b@h/d?sslmode=verify-full").tls == .require)
    }

    @Test("the pool size is 20 unless pool_size says otherwise; a bad one is refused")
    func poolSize() throws {
        #expect(try DatabaseURL(parsing: "postgres://a:b@h/d").poolSize == 20)
        let url = try DatabaseURL(parsing: "postgres://a:b@h/d?sslmode=disable&pool_size=4")
        #expect(url.poolSize == 4 && url.tls == .disable)
        for bad in ["0", "-3", "1001", "many", ""] {
            let error = #expect(throws: StoreError.self) { try DatabaseURL(parsing: "postgres://a:secretpw@h/d?pool_size=\(bad)") }
            #expect(error?.description.contains("pool_size must be a whole number from 1 to 1000") == true, "\(bad)")
            #expect(error?.description.contains("secretpw") == false)
        }
    }

    @Test("the description never shows the password")
    func redacted() throws {
        let url = try DatabaseURL(parsing: "postgres://parley:hunter2@127.0.0.1:5433/parley")
        #expect(url.description == "postgresql://parley@127.0.0.1:5433/parley")
        #expect(!"\(url)".contains("hunter2"))
        #expect(!String(reflecting: url).contains("hunter2"))
        #expect(url.database("other").description == "postgresql://parley@127.0.0.1:5433/other")
    }

    @Test(
        "what is not a usable URL is refused, saying which part is wrong and never quoting the text",
        arguments: [
            "mysql://u:secretpw@h/d", "postgres://h/d", "postgres://u:secretpw@/d", "postgres://u:secretpw@h/a/b",
            "postgres://u:secretpw@h/d?sslmode=sometimes", "postgres://u:secretpw@h/d?application=x", "not a url at all secretpw",
        ])
    func refused(_ text: String) {
        let error = #expect(throws: StoreError.self) { try DatabaseURL(parsing: text) }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("PARLEY_DATABASE_URL cannot be used"))
        #expect(!description.contains("secretpw"))
    }
}
