import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyGoogle
import ParleyMaterials
import ParleyRuntime
import ParleyData
import ParleyTasks

/// `parley google`: sign in to Google, and sync a Drive folder, a calendar and teachers' mail
/// into materials and assignments.
struct Google: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in to Google and sync Drive materials, Calendar events and Gmail assignments.",
        discussion: """
            Needs an OAuth client of a Google Cloud project (type Desktop app): set GOOGLE_CLIENT_ID and \
            GOOGLE_CLIENT_SECRET. Access is read-only. The sign-in is kept in the conversation database, \
            readable by you only.
            """,
        subcommands: [Auth.self, Sync.self, Status.self, SignOut.self])

    /// What every Google command opens: the settings, the store and the session.
    struct Context {
        let configuration: GoogleConfiguration
        let store: LocalStore
        let session: GoogleSession
        let settings: RuntimeSettings

        static func open(_ database: History.DatabaseOptions) async throws -> Context {
            let settings = try await RuntimeSettings.load()
            let configuration = GoogleConfiguration(value: settings.value)
            let client = try configuration.requireClient()
            let store = try LocalStore(path: try await database.url())
            let oauth = GoogleOAuth(client: client, endpoints: configuration.endpoints)
            let session = GoogleSession(oauth: oauth, keeper: StoreTokenKeeper(store: store))
            return Context(configuration: configuration, store: store, session: session, settings: settings)
        }
    }

    struct Auth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in to Google (read-only Drive, Calendar and Gmail).",
            discussion: """
                By default a browser on this machine opens Google's consent page (the address is printed) and \
                comes back to a one-time local address. --device prints a code to type on another device instead; \
                Google's device flow does not grant the Drive, Calendar and Gmail read-only scopes, so use it only \
                with --scope values it allows.
                """)

        @Flag(help: "Sign in with a code typed on another device (Google's limited-input device flow).")
        var device = false

        @Option(name: .customLong("scope"), help: "A scope to ask for (repeatable; default: drive.readonly, calendar.readonly, gmail.readonly).")
        var scopes: [String] = []

        @Option(help: "Seconds to wait for the browser's answer.")
        var timeout: Int = 300

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                let context = try await Context.open(database)
                let oauth = context.session.oauth
                let scopes = self.scopes.isEmpty ? GoogleScope.all : self.scopes.map { $0.hasPrefix("https://") ? $0 : "https://www.googleapis.com/auth/" + $0 }
                let token: GoogleToken
                if device {
                    let authorization = try await oauth.startDeviceAuthorization(scopes: scopes)
                    print("On a phone or computer, open \(authorization.verificationURL) and enter the code \(authorization.userCode)")
                    print("Waiting for approval…")
                    token = try await oauth.waitForApproval(of: authorization, scopes: scopes)
                } else {
                    let redirect = try await LoopbackRedirect.start()
                    let verifier = PKCEVerifier()
                    let state = PKCEVerifier().value
                    let url = oauth.authorizationURL(scopes: scopes, redirectURI: redirect.redirectURI, state: state, verifier: verifier)
                    print("Open this address in a browser on this machine and allow read-only access:\n\(url)")
                    print("Waiting for the browser (\(timeout) s)…")
                    let code: String
                    do {
                        code = try await redirect.code(expecting: state, timeout: .seconds(timeout))
                    } catch {
                        await redirect.close()
                        throw error
                    }
                    await redirect.close()
                    token = try await oauth.exchange(code: code, verifier: verifier, redirectURI: redirect.redirectURI, scopes: scopes)
                }
                try await context.session.signIn(token)
                let names = token.scopes.map { $0.replacingOccurrences(of: "https://www.googleapis.com/auth/", with: "") }
                print("Signed in to Google (\(names.joined(separator: ", "))). Next: parley google sync")
            } catch {
                throw fail(error)
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring new and changed Drive files, Calendar events and Gmail assignments into the database.",
            discussion: """
                Without options, syncs what the settings name (PARLEY_GOOGLE_DRIVE_FOLDER, PARLEY_GOOGLE_CALENDAR, \
                PARLEY_GOOGLE_GMAIL_QUERY). After the first sync only what changed is fetched.
                """)

        @Option(help: "A Drive folder's id: its files become materials.")
        var drive: String?

        @Option(help: "A calendar's id (primary, or the calendar's address): its events become assignments.")
        var calendar: String?

        @Option(help: "A Gmail search, e.g. from:teacher@school.org: the due dates in those messages become assignments.")
        var gmail: String?

        @Option(name: .customLong("gmail-limit"), help: "The most messages a first Gmail sync reads.")
        var gmailLimit: Int = 50

        @Flag(name: .customLong("no-model"), help: "Name e-mailed assignments after the message's subject, without the language model.")
        var noModel = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        @OptionGroup var database: History.DatabaseOptions
        @OptionGroup var common: CommonOptions

        func run() async throws {
            common.bootstrapLogging()
            do {
                let context = try await Context.open(database)
                var options = context.configuration.sync
                if drive != nil || calendar != nil || gmail != nil {
                    options = GoogleSyncOptions(driveFolder: drive, calendar: calendar, gmailQuery: gmail)
                }
                options.gmailLimit = max(1, gmailLimit)
                guard !options.isEmpty else {
                    throw ValidationError(
                        "Say what to sync: --drive FOLDER_ID, --calendar ID or --gmail QUERY (or set PARLEY_GOOGLE_DRIVE_FOLDER, PARLEY_GOOGLE_CALENDAR, PARLEY_GOOGLE_GMAIL_QUERY)."
                    )
                }
                let namer: AssignmentExtractor.Namer? = noModel || options.gmailQuery == nil ? nil : try await assignmentNamer()
                let sync = GoogleSync(
                    session: context.session, endpoints: context.configuration.endpoints, store: context.store,
                    reader: MaterialReader(ocr: TesseractImageReader(languages: context.settings.ocrLanguages)),
                    extractor: AssignmentExtractor(namer: namer))
                let report = try await sync.run(options) { event in
                    guard !json else { return }
                    FileHandle.standardError.write(Data((Self.line(event) + "\n").utf8))
                }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    writeLine(try encoder.encode(report))
                } else {
                    for source in [("Drive", report.drive, "material"), ("Calendar", report.calendar, "assignment"), ("Gmail", report.gmail, "assignment")] {
                        guard let result = source.1 else { continue }
                        print(Self.summary(source.0, result, noun: source.2))
                    }
                    if report.backoffs > 0 { print("Google asked to slow down \(report.backoffs) time(s); Parley waited and retried.") }
                }
                guard report.succeeded else { throw ExitCode(1) }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                throw fail(error)
            }
        }

        /// Names assignments with the structured tasks on the runtime's language models.
        private func assignmentNamer() async throws -> AssignmentExtractor.Namer? {
            do {
                let coordinator = try await common.runtime().taskCoordinator()
                return { subject, sentences in
                    try await coordinator.nameAssignments(subject: subject, sentences: sentences).value.titles
                }
            } catch {
                Logger(label: "parley.google").warning("[google] assignments are named after the subject: no language model (\(error))")
                return nil
            }
        }

        static func line(_ event: GoogleSyncProgress) -> String {
            switch event {
            case .started(let source, let target, let full):
                return "\(source) \(target): \(full ? "full sync" : "changes since the last sync")…"
            case .item(let source, let done, let total, let name):
                return "  \(source) [\(done)/\(total)] \(name)"
            case .finished(let report, let source):
                return report.error.map { "\(source): failed: \($0)" } ?? "\(source): done"
            }
        }

        static func summary(_ name: String, _ report: SourceSyncReport, noun: String) -> String {
            if let error = report.error { return "\(name) (\(report.target)): failed: \(error)" }
            var line =
                "\(name) (\(report.target)): \(report.full ? "full sync" : "incremental"), \(report.fetched) fetched, "
                + "\(report.added) \(noun)(s) added, \(report.updated) updated, \(report.removed) removed"
            if !report.skipped.isEmpty { line += "; skipped: " + report.skipped.joined(separator: "; ") }
            return line + "."
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether Parley is signed in to Google, and with which scopes.")

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                let context = try await Context.open(database)
                guard let scopes = try await context.session.signedInScopes() else {
                    print("Not signed in to Google: run parley google auth.")
                    return
                }
                print(
                    "Signed in to Google: " + scopes.map { $0.replacingOccurrences(of: "https://www.googleapis.com/auth/", with: "") }.joined(separator: ", "))
            } catch {
                throw fail(error)
            }
        }
    }

    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signout", abstract: "Revoke Parley's Google access and forget the sign-in (synced data is kept).")

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                let context = try await Context.open(database)
                guard try await context.session.signedInScopes() != nil else {
                    print("Not signed in to Google.")
                    return
                }
                try await context.session.signOut()
                print("Signed out of Google; the access is revoked.")
            } catch {
                throw fail(error)
            }
        }
    }
}

/// `parley assignments`: due dates from the synced calendar and teachers' mail.
struct Assignments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List assignments and their due dates (from parley google sync).",
        subcommands: [List.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List assignments, soonest due first.")

        @Flag(help: "Print the assignments as JSON.")
        var json = false

        @Flag(help: "Include assignments whose due day has passed.")
        var all = false

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                var assignments = try await database.openExisting()?.assignments() ?? []
                if !all {
                    let today = Self.day(Date())
                    assignments = assignments.filter { $0.dueDay >= today }
                }
                if json {
                    writeLine(try MaterialJSON.encoder.encode(["assignments": assignments]))
                    return
                }
                if assignments.isEmpty {
                    print("No assignments\(all ? "" : " due from today on"): sync them with parley google sync --calendar ID --gmail QUERY.")
                }
                for assignment in assignments {
                    let time = assignment.dueAt.map { " " + Self.time($0) } ?? ""
                    print("\(assignment.dueDay)\(time)  \(assignment.title)  [\(assignment.source)]")
                }
            } catch {
                throw fail(error)
            }
        }

        static func day(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: date)
        }

        static func time(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "HH:mm"
            return formatter.string(from: date)
        }
    }
}
