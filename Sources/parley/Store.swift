import ArgumentParser
import Foundation
import ParleyRuntime
import ParleyData

/// `parley store`: the conversation store itself, as opposed to what is in it.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move the conversation store: copy the local SQLite database into PostgreSQL.",
        subcommands: [Copy.self])

    /// `parley store copy`: everything in a SQLite database into a PostgreSQL one.
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy everything in a SQLite conversation database into a PostgreSQL database, for parley serve.",
            discussion: """
                Copies every owner's conversations (each message with its raw and edited transcripts, typed text, \
                images, kept recording, provider, timings, usage and structured result), stash, study materials, \
                assignments and sync state (a Google sign-in included), and the spending ledger, in one PostgreSQL \
                transaction: when anything fails, the database is left as it was (only its tables are created, if it \
                had none). Rows get new ids there, every reference between them kept, and keep their creation and \
                update times. A database that already holds data of the same owners (or spending charges) is refused \
                unless --into-nonempty is given. The response cache is not copied: it is only a cache, and fills again. \
                The SQLite file is only read; recordings' files stay where they are, their bytes being copied into \
                the database.
                """)

        @Option(
            help: ArgumentHelp(
                "The SQLite database to copy (default: the setting PARLEY_DATABASE, else parley.sqlite in the data directory).",
                valueName: "file"))
        var from: String?

        @Option(
            help: ArgumentHelp(
                "The PostgreSQL database to copy into (default: the setting PARLEY_DATABASE_URL).",
                valueName: "postgres://USER:PASSWORD@HOST:PORT/DATABASE"))
        var to: String?

        @Flag(name: .customLong("into-nonempty"), help: "Add the copy to a database that already holds data of the same owners (theirs stays).")
        var intoNonEmpty = false

        @Flag(help: "Print what was copied as JSON.")
        var json = false

        func validate() throws {
            guard let to else { return }
            do {
                _ = try DatabaseURL(parsing: to)
            } catch {
                throw ValidationError(
                    "--to cannot be used (\(error.reason ?? "it is not a PostgreSQL URL")): "
                        + "write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
            }
        }

        func run() async throws {
            do {
                let settings = try await RuntimeSettings.load()
                let source = from.map { URL(fileURLWithPath: $0) } ?? settings.database
                let target = try targetURL(settings)
                // Never create the file: an absent database is a mistake in --from.
                guard FileManager.default.fileExists(atPath: source.path) else { throw CopyFailure.noSource(path: source.path) }
                let contents = try LocalStore(path: source).contents()
                let store = try await open(target)
                let imported: ImportedContents
                do {
                    imported = try await store.importContents(contents, intoNonEmpty: intoNonEmpty, within: .seconds(3_600))
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
                report(imported.counts, from: source.path, to: target.description)
            } catch {
                throw fail(error)
            }
        }

        /// `--to`, else the setting `PARLEY_DATABASE_URL` (with `PARLEY_DATABASE_POOL_SIZE`).
        private func targetURL(_ settings: RuntimeSettings) throws -> DatabaseURL {
            if let to { return try DatabaseURL(parsing: to) }
            guard let url = try settings.databaseURL() else { throw CopyFailure.noTarget }
            return url
        }

        /// The PostgreSQL store at `url`; a server that cannot be reached is named as `--to`
        /// gave it.
        private func open(_ url: DatabaseURL) async throws -> any SharedConversationStoring {
            #if Server
            let opened: Result<any SharedConversationStoring, StoreError>
            do {
                opened = .success(try await SharedStores.open(url))
            } catch {
                opened = .failure(error)
            }
            if case .failure(let error) = opened, to != nil, error.isConnectionFailure {
                throw CopyFailure.cannotConnect(location: url.description, reason: error.reason ?? "\(error)")
            }
            return try opened.get()
            #else
            throw CopyFailure.noPostgres
            #endif
        }

        private func report(_ counts: StoreCounts, from source: String, to target: String) {
            if json {
                let document = CopyDocument(from: source, to: target, copied: counts)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                writeLine((try? encoder.encode(document)) ?? Data("{}".utf8))
                return
            }
            let missing = counts.missingRecordings == 0 ? "" : " (\(counts.missingRecordings) without their file: only the path was copied)"
            let rows: [(String, Int, String)] = [
                ("owners", counts.owners, ""), ("threads", counts.threads, ""), ("messages", counts.messages, ""),
                ("images", counts.images, ""), ("recordings", counts.recordings, missing), ("stash items", counts.stashItems, ""),
                ("materials", counts.materials, ""), ("assignments", counts.assignments, ""), ("sync values", counts.syncValues, ""),
                ("spending charges", counts.spendingCharges, ""),
            ]
            print("Copied \(source) into \(target):")
            for (kind, count, note) in rows {
                print("  " + kind.padding(toLength: 17, withPad: " ", startingAt: 0) + String(count) + note)
            }
            print("The response cache was not copied (it is only a cache).")
        }
    }

    /// What `parley store copy --json` prints.
    struct CopyDocument: Encodable {
        var from: String
        var to: String
        var copied: StoreCounts
    }

    /// Why a copy could not start, as one sentence saying what to do.
    enum CopyFailure: Error, CustomStringConvertible {
        case noSource(path: String)
        case noTarget
        case cannotConnect(location: String, reason: String)
        /// This parley was built without the "Server" trait, which brings PostgreSQL.
        case noPostgres

        var description: String {
            switch self {
            case .noSource(let path):
                "there is no conversation database at \(path): pass --from with the SQLite file to copy"
            case .noTarget:
                "no PostgreSQL database to copy into: pass --to postgres://USER:PASSWORD@HOST:PORT/DATABASE or set PARLEY_DATABASE_URL"
            case .cannotConnect(let location, let reason):
                "cannot use the PostgreSQL database at \(location) (\(reason)): check that PostgreSQL is running there and that "
                    + "--to names the right user, password and database"
            case .noPostgres:
                "this build of parley has no PostgreSQL client (it was built without the \"Server\" trait, as scripts/demo does): "
                    + "build it with `swift build --product parley`"
            }
        }
    }
}
