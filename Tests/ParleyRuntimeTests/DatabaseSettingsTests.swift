import ParleyRuntime
import ParleyStore
import Testing

/// `PARLEY_DATABASE_URL` and `PARLEY_DATABASE_POOL_SIZE` as the runtime reads them.
@Suite("Database settings")
struct DatabaseSettingsTests {
    @Test("the pool size setting overrides the URL's; a bad one is one sentence naming the setting")
    func poolSize() throws {
        let url = "postgres://parley:secretpw@127.0.0.1:5432/parley?pool_size=5"
        #expect(try RuntimeSettings(values: ["PARLEY_DATABASE_URL": url]).databaseURL()?.poolSize == 5)
        #expect(try RuntimeSettings(values: ["PARLEY_DATABASE_URL": url, "PARLEY_DATABASE_POOL_SIZE": "40"]).databaseURL()?.poolSize == 40)
        #expect(try RuntimeSettings(values: ["PARLEY_DATABASE_POOL_SIZE": "40"]).databaseURL() == nil)  // SQLite: nothing to size
        for bad in ["0", "lots", "5000"] {
            let error = #expect(throws: StoreError.self) {
                try RuntimeSettings(values: ["PARLEY_DATABASE_URL": url, "PARLEY_DATABASE_POOL_SIZE": bad]).databaseURL()
            }
            #expect(error == .invalidPoolSize(bad))
            #expect(error?.description.hasPrefix("PARLEY_DATABASE_POOL_SIZE is '\(bad)'") == true)
            #expect(error?.description.contains("secretpw") == false)
        }
    }
}
