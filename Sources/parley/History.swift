import ArgumentParser
import Foundation
import ParleyRuntime
import ParleyData

/// `parley history`: the saved conversations — list them, show one, export them as JSON, or
/// delete one. Reading never creates the database.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, export or delete saved conversations.",
        subcommands: [List.self, Show.self, Export.self, Edit.self, Delete.self, Stash.self],
        defaultSubcommand: List.self)

    /// Where the conversations are.
    struct DatabaseOptions: ParsableArguments {
        @Option(
            name: .customLong("database"),
            help:
                "The conversation database (default: the setting PARLEY_DATABASE, from the environment or config.json, else parley.sqlite in the data directory)."
        )
        var path: String?

        /// The database: `--database`, else the settings' (the same one `parley talk` writes).
        func url() async throws -> URL {
            if let path { return URL(fileURLWithPath: path) }
            return try await RuntimeSettings.load().database
        }

        /// The store, or `nil` when the database file does not exist yet (it is not created).
        func openExisting() async throws -> LocalStore? {
            let url = try await url()
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return try LocalStore(path: url)
        }

        /// The store, for a command about one conversation: with no database, no id exists.
        func open(forThread id: Int64) async throws -> LocalStore {
            guard let store = try await openExisting() else { throw StoreError.threadNotFound(id) }
            return store
        }
    }

    /// `parley history [list]`: one line per conversation, most recently active first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the conversations: id, last activity, message count and a preview.")

        @Flag(help: "Print every conversation with its messages (raw transcripts included) as JSON.")
        var json = false

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                let store = try await database.openExisting()
                if json {
                    let data = try store?.export(thread: nil) ?? ConversationExport(threads: []).jsonData()
                    writeLine(data)
                    return
                }
                let summaries = try store?.threads() ?? []
                guard !summaries.isEmpty else {
                    print("No conversations yet.")
                    return
                }
                let idWidth = max(2, summaries.map { String($0.thread.id).count }.max() ?? 0)
                print(pad("ID", idWidth) + "  " + "UPDATED".padding(toLength: 19, withPad: " ", startingAt: 0) + "  MSGS  PREVIEW")
                for summary in summaries {
                    var preview = summary.lastMessagePreview ?? ""
                    if let title = summary.thread.title, !title.isEmpty {
                        preview = preview.isEmpty ? "[\(title)]" : "[\(title)] \(preview)"
                    }
                    print(
                        pad(String(summary.thread.id), idWidth) + "  " + localTime(summary.thread.updatedAt)
                            + "  " + pad(String(summary.messageCount), 4) + "  " + preview)
                }
            } catch {
                throw fail(error)
            }
        }
    }

    /// `parley history show ID`: one conversation's messages.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a conversation's messages, with what speech-to-text heard and any corrections.")

        @Argument(help: "The conversation's id (see `parley history`).")
        var id: Int64

        @Flag(help: "Print the conversation as JSON.")
        var json = false

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                let store = try await database.open(forThread: id)
                if json {
                    writeLine(try store.export(thread: id))
                    return
                }
                let conversation = try store.exported(thread: id)
                guard let thread = conversation.threads.first else { throw StoreError.threadNotFound(id) }
                print(header(thread))
                for message in thread.messages {
                    print(describe(message))
                }
            } catch {
                throw fail(error)
            }
        }

        func header(_ thread: ExportedThread) -> String {
            let title = thread.title.map { " — \($0)" } ?? ""
            let model = thread.settings.modelPreset.map { " (\($0))" } ?? ""
            let count = thread.messageCount == 1 ? "1 message" : "\(thread.messageCount) messages"
            return "Conversation \(thread.id)\(title)\n"
                + "\(thread.settings.backend)\(model), \(count), started \(localTime(thread.createdAt)), "
                + "last active \(localTime(thread.updatedAt))\n"
        }

        func describe(_ message: StoredMessage) -> String {
            let provider = message.provider.map { " [\($0)]" } ?? ""
            let mark = message.interrupted ? " (interrupted)" : ""
            var lines: [String]
            if message.role == .tool {
                // A tool's result: which function, for which call, whether it failed, and the start of what it said.
                let call = message.toolCallID.map { " (\($0))" } ?? ""
                let failed = message.isToolError ? " failed" : ""
                lines = ["#\(message.id) tool \(message.toolName ?? "result")\(call)\(failed): \(Self.clipped(message.text))"]
            } else if message.text.isEmpty && !message.toolCalls.isEmpty {
                lines = ["#\(message.id) \(message.role.rawValue)\(provider):\(mark)"]
            } else {
                lines = ["#\(message.id) \(message.role.rawValue)\(provider): \(message.text)\(mark)"]
            }
            for call in message.toolCalls {
                lines.append("    call: \(call.name)(\(Self.clipped(call.arguments))) (\(call.id))")
            }
            if let raw = message.rawTranscript {
                lines.append("    heard: \(raw)")
                if let edited = message.editedText, edited != raw {
                    lines.append("    edited: \(edited)")
                }
            }
            if let full = message.fullReply, message.interrupted, full != message.text {
                lines.append("    full reply: \(full)")
            }
            if !message.imageReferences.isEmpty {
                lines.append("    images: \(message.imageReferences.joined(separator: ", "))")
            }
            if !message.images.isEmpty {
                let count = message.images.count == 1 ? "1 image" : "\(message.images.count) images"
                lines.append("    attached: \(count) (\(message.images.map(\.mimeType).joined(separator: ", ")))")
            }
            if let result = message.structuredResult {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                if let json = try? encoder.encode(result) {
                    lines.append("    result: \(String(decoding: json, as: UTF8.self))")
                }
            }
            if let audio = message.audioPath {
                lines.append("    audio: \(audio)")
            }
            return lines.joined(separator: "\n")
        }

        /// The most characters of a tool's result or a call's arguments that `show` prints.
        static let toolTextLength = 200

        /// `text` on one line (whitespace runs as one space), cut to ``toolTextLength``
        /// characters with an ellipsis.
        static func clipped(_ text: String) -> String {
            let line = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard line.count > toolTextLength else { return line }
            return String(line.prefix(toolTextLength - 1)) + "…"
        }
    }

    /// `parley history export [ID]`: the export JSON of one or all conversations.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write one conversation, or all of them, as JSON.")

        @Argument(help: "The conversation's id; omit it to export every conversation.")
        var id: Int64?

        @Option(name: .shortAndLong, help: "The file to write (default: standard output).")
        var output: String?

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                let data: Data
                if let id {
                    data = try await database.open(forThread: id).export(thread: id)
                } else {
                    data = try await database.openExisting()?.export(thread: nil) ?? ConversationExport(threads: []).jsonData()
                }
                guard let output else {
                    writeLine(data)
                    return
                }
                let url = URL(fileURLWithPath: output)
                do {
                    // Replaced atomically when it is a file; a device or pipe is written in place.
                    let type = (try? FileManager.default.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType
                    try (data + Data("\n".utf8)).write(to: url, options: type == nil || type == .typeRegular ? .atomic : [])
                } catch {
                    throw WriteFailure(path: url.path, reason: error.localizedDescription)
                }
                print("Exported to \(url.path).")
            } catch {
                throw fail(error)
            }
        }

        /// The export file could not be written.
        struct WriteFailure: Error, CustomStringConvertible {
            var path: String
            var reason: String
            var description: String {
                "cannot write the export to \(path) (\(reason)): check that the directory exists and is writable"
            }
        }
    }

    /// `parley history delete ID`: removes a conversation, its messages and its kept audio.
    /// `parley history edit MESSAGE TEXT`: corrects what speech-to-text heard.
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Correct a message's transcript; the raw transcript is kept beside the correction.")

        @Argument(help: "The message's id (see `parley history show`).")
        var message: Int64

        @Argument(help: "The corrected text.")
        var text: String

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("The corrected text is empty.")
            }
        }

        func run() async throws {
            do {
                guard let store = try await database.openExisting() else { throw StoreError.messageNotFound(message) }
                try store.editTranscript(message: message, text: text)
                print("Corrected message \(message).")
            } catch {
                throw fail(error)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a conversation with its messages and kept recordings.")

        @Argument(help: "The conversation's id (see `parley history`).")
        var id: Int64

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                try await database.open(forThread: id).deleteThread(id)
                print("Deleted conversation \(id).")
            } catch {
                throw fail(error)
            }
        }
    }
}

extension History {
    /// `parley history stash`: saved items (a reply worth keeping, a corrected transcript, a note).
    struct Stash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, add or delete saved items.",
            subcommands: [StashList.self, StashAdd.self, StashDelete.self],
            defaultSubcommand: StashList.self)
    }

    struct StashList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the saved items, newest first.")

        @Flag(help: "Print the items as JSON.")
        var json = false

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                let items = try await database.openExisting()?.stashItems() ?? []
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                    encoder.dateEncodingStrategy = .iso8601
                    encoder.keyEncodingStrategy = .convertToSnakeCase
                    writeLine(try encoder.encode(["items": items]))
                    return
                }
                if items.isEmpty { print("Nothing saved yet.") }
                for item in items {
                    let origin = item.messageID.map { " (message \($0))" } ?? item.threadID.map { " (conversation \($0))" } ?? ""
                    print("\(pad(String(item.id), 3))  \(localTime(item.createdAt))  [\(item.kind)] \(item.text)\(origin)")
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct StashAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Save an item: TEXT, or the text of message --message.")

        @Argument(help: "The text to save (default: the message's text).")
        var text: String?

        @Option(help: "What the item is (reply, transcript, note).")
        var kind: String = "note"

        @Option(help: "Save (or link the text to) this message.")
        var message: Int64?

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if text?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? (message == nil) {
                throw ValidationError("Give the text to save, or --message with the id of a saved message.")
            }
        }

        func run() async throws {
            do {
                let store = try LocalStore(path: try await database.url())
                var saved = text
                if let message {
                    guard let stored = try store.message(message) else { throw StoreError.messageNotFound(message) }
                    saved = saved ?? stored.text
                }
                let item = try store.stash(NewStashItem(kind: kind, text: saved ?? "", messageID: message))
                print("Saved item \(item.id).")
            } catch {
                throw fail(error)
            }
        }
    }

    struct StashDelete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a saved item.")

        @Argument(help: "The item's id (see `parley history stash`).")
        var id: Int64

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            do {
                guard let store = try await database.openExisting() else { throw StoreError.stashItemNotFound(id) }
                try store.deleteStashItem(id)
                print("Deleted item \(id).")
            } catch {
                throw fail(error)
            }
        }
    }
}

/// Writes data and a newline to standard output.
func writeLine(_ data: Data) {
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// Right-aligns `text` in `width` characters.
func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

/// A date in local time, to the second: `2025-03-01 14:05:09`.
func localTime(_ date: Date) -> String {
    date.formatted(
        Date.ISO8601FormatStyle(dateTimeSeparator: .space, timeZone: .current)
            .year().month().day().time(includingFractionalSeconds: false))
}
