import Foundation

/// Google settings, read from Parley's settings (environment, then the settings file; their
/// names are listed with the rest in `RuntimeSettings.names`).
public struct GoogleConfiguration: Sendable, Equatable {
    /// The OAuth client, when both its id and secret are set.
    public var client: GoogleClient?
    /// Where Google is (or the local server standing in for it).
    public var endpoints: GoogleEndpoints
    /// What `parley google sync` and the server's schedule sync when not told otherwise.
    public var sync: GoogleSyncOptions
    /// How often `parley serve` syncs (`PARLEY_GOOGLE_SYNC_INTERVAL`, seconds; default 15
    /// minutes, 0 turns it off).
    public var syncInterval: Duration?

    /// The configuration the settings give; `value` looks a setting up by name.
    public init(value: (String) -> String?) {
        func present(_ name: String) -> String? {
            guard let text = value(name)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        if let id = present("GOOGLE_CLIENT_ID"), let secret = present("GOOGLE_CLIENT_SECRET") {
            client = GoogleClient(id: id, secret: secret)
        }
        endpoints = .overriding(api: present("GOOGLE_API_BASE_URL"), oauth: present("GOOGLE_OAUTH_BASE_URL"))
        sync = GoogleSyncOptions(
            driveFolder: present("PARLEY_GOOGLE_DRIVE_FOLDER"), calendar: present("PARLEY_GOOGLE_CALENDAR"),
            gmailQuery: present("PARLEY_GOOGLE_GMAIL_QUERY"))
        let seconds = present("PARLEY_GOOGLE_SYNC_INTERVAL").flatMap(Double.init) ?? 900
        syncInterval = seconds > 0 ? .seconds(seconds) : nil
    }

    /// The client, or ``GoogleError/notConfigured``.
    public func requireClient() throws(GoogleError) -> GoogleClient {
        guard let client else { throw .notConfigured }
        return client
    }
}
