import Foundation
import Hummingbird
import ParleyGoogle
import ParleyData

/// Google sync over HTTP, for the caller's own sign-in.
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/google/sync` | `{"configured", "signed_in", "scopes", "last"}`: the last sync since the server started |
/// | `POST /v1/google/sync` | runs a sync now: optional `{"drive", "calendar", "gmail"}` (else the server's settings); answers with the report |
struct GoogleSyncEndpoint: Sendable {
    let environment: ServerEnvironment

    struct Status: Encodable, Sendable {
        var configured: Bool
        var signedIn: Bool
        var scopes: [String]
        var last: GoogleSyncScheduler.Outcome?

        enum CodingKeys: String, CodingKey {
            case configured, scopes, last
            case signedIn = "signed_in"
        }
    }

    struct SyncRequest: Decodable {
        var drive: String?
        var calendar: String?
        var gmail: String?
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        let scheduler = environment.google
        router.get("/v1/google/sync") { _, context in
            let configured = scheduler.settings.client != nil
            let scopes = configured ? try await Self.translating { try await scheduler.scopes(owner: context.owner) } : nil
            return try StoreJSON.response(
                Status(
                    configured: configured, signedIn: scopes != nil, scopes: scopes ?? [],
                    last: await scheduler.lastOutcome(owner: context.owner)))
        }
        router.post("/v1/google/sync") { request, context in
            var options = scheduler.settings.sync
            let body = try await request.body.collect(upTo: environment.configuration.maxJSONBytes)
            if body.readableBytes > 0 {
                let asked: SyncRequest
                do {
                    asked = try JSONDecoder().decode(SyncRequest.self, from: Data(body.readableBytesView))
                } catch {
                    throw OpenAIError(
                        status: .badRequest, message: "The body must be JSON: {\"drive\", \"calendar\", \"gmail\"}, each optional.",
                        type: "invalid_request_error")
                }
                if asked.drive != nil || asked.calendar != nil || asked.gmail != nil {
                    options = GoogleSyncOptions(driveFolder: asked.drive, calendar: asked.calendar, gmailQuery: asked.gmail)
                }
            }
            guard !options.isEmpty else {
                throw OpenAIError(
                    status: .badRequest,
                    message: "Nothing to sync: send {\"drive\": FOLDER_ID, \"calendar\": ID, \"gmail\": QUERY} "
                        + "or set PARLEY_GOOGLE_DRIVE_FOLDER, PARLEY_GOOGLE_CALENDAR or PARLEY_GOOGLE_GMAIL_QUERY.",
                    type: "invalid_request_error", code: "nothing_to_sync")
            }
            let report = try await Self.translating { try await scheduler.sync(owner: context.owner, options: options) }
            return try StoreJSON.response(report)
        }
    }

    /// Google's errors as the client's: not configured or not signed in are the caller's to
    /// fix (400), the rest a failure upstream (502).
    static func translating<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as GoogleError {
            switch error {
            case .notConfigured:
                throw OpenAIError(status: .badRequest, message: "\(error)", type: "invalid_request_error", code: "google_not_configured")
            case .notSignedIn, .signInExpired:
                throw OpenAIError(status: .badRequest, message: "\(error)", type: "invalid_request_error", code: "google_not_signed_in")
            default:
                throw OpenAIError(status: .badGateway, message: "\(error)", type: "server_error", code: "google_failed")
            }
        }
    }
}
