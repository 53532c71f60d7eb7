import Foundation
import Logging
import ParleyGoogle
import ParleyMaterials
import ParleyRuntime
import ParleyData
import ParleyTasks
import ServiceLifecycle

/// Runs Google syncs for the server: on request (`POST /v1/google/sync`, the caller's own
/// sign-in) and on a schedule (`PARLEY_GOOGLE_SYNC_INTERVAL`) for the sign-in made on the
/// server's machine with `parley google auth`. One sync runs at a time.
actor GoogleSyncScheduler {
    /// A sync's outcome, for `GET /v1/google/sync`.
    struct Outcome: Encodable, Sendable {
        var finishedAt: Date
        var report: GoogleSyncReport

        enum CodingKeys: String, CodingKey {
            case finishedAt = "finished_at"
            case report
        }
    }

    let settings: GoogleConfiguration
    private let runtime: Runtime<ContinuousClock>
    private let logger: Logger
    /// The sync asked for last; the next one starts after it.
    private var last: Task<GoogleSyncReport, any Error>?
    private var outcomes: [Owner: Outcome] = [:]

    init(runtime: Runtime<ContinuousClock>, logger: Logger) {
        settings = GoogleConfiguration(value: runtime.settings.value)
        self.runtime = runtime
        self.logger = logger
    }

    /// The last sync's outcome for `owner` since the server started.
    func lastOutcome(owner: Owner) -> Outcome? { outcomes[owner] }

    /// Whether `owner` has a Google sign-in, and its scopes.
    func scopes(owner: Owner) async throws -> [String]? {
        try await session(owner: owner).signedInScopes()
    }

    /// Syncs `options` for `owner`, after any sync in progress.
    func sync(owner: Owner, options: GoogleSyncOptions) async throws -> GoogleSyncReport {
        let session = try await session(owner: owner)
        let store = try await runtime.store()
        let namer = await namer()
        let sync = GoogleSync(
            session: session, endpoints: settings.endpoints, store: store, owner: owner,
            reader: runtime.materialReader(),
            extractor: AssignmentExtractor(namer: namer), logger: logger)
        // Each sync waits for the one asked for before it: they run one at a time, in order.
        let previous = last
        let task = Task {
            _ = try? await previous?.value
            return try await sync.run(options)
        }
        last = task
        let report = try await task.value
        outcomes[owner] = Outcome(finishedAt: Date(), report: report)
        return report
    }

    private func session(owner: Owner) async throws -> GoogleSession {
        let client = try settings.requireClient()
        let store = try await runtime.store()
        return GoogleSession(
            oauth: GoogleOAuth(client: client, endpoints: settings.endpoints),
            keeper: StoreTokenKeeper(store: store, owner: owner))
    }

    /// Names e-mailed assignments with the runtime's structured tasks, if it has a model.
    private func namer() async -> AssignmentExtractor.Namer? {
        guard let coordinator = try? await runtime.taskCoordinator() else { return nil }
        return { subject, sentences in try await coordinator.nameAssignments(subject: subject, sentences: sentences).value.titles }
    }
}

/// Syncs the server machine's own Google sign-in (`parley google auth`) every
/// `PARLEY_GOOGLE_SYNC_INTERVAL`, when an OAuth client and something to sync are set. A sync
/// that fails is logged and tried again next time; none starts after a graceful shutdown.
struct GoogleSyncService: Service, CustomStringConvertible {
    let scheduler: GoogleSyncScheduler
    let logger: Logger

    var description: String { "GoogleSyncService" }

    func run() async throws {
        let settings = scheduler.settings
        guard settings.client != nil, !settings.sync.isEmpty, let interval = settings.syncInterval else {
            // Nothing to schedule; a service that returns would end the server's group.
            try? await gracefulShutdown()
            return
        }
        logger.notice("Google sync every \(interval) for the local sign-in")
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                if try await scheduler.scopes(owner: .local) != nil {
                    let report = try await scheduler.sync(owner: .local, options: settings.sync)
                    for source in report.sources where source.error != nil {
                        logger.error("[google] scheduled sync of \(source.target) failed: \(source.error ?? "")")
                    }
                }
            } catch {
                logger.error("[google] scheduled sync failed: \(error)")
            }
            do {
                // A graceful shutdown cancels the wait; a sync in progress finishes first.
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
