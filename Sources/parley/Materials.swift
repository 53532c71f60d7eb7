import ArgumentParser
import Foundation
import ParleyCore
import ParleyMaterials
import ParleyRuntime
import ParleyData

/// `parley materials`: study materials read from files and kept in the conversation database.
struct Materials: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, list, show or remove study materials (text, Markdown, PDF, images).",
        discussion: """
            A material's text can be asked about (parley ask --material ID), summarized, simplified, \
            broken into tasks or mapped (parley summarize|simplify|extract|mindmap --material ID).
            """,
        subcommands: [Add.self, List.self, Show.self, Search.self, Remove.self],
        defaultSubcommand: List.self)

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read FILE (text, Markdown, PDF, or a PNG, JPEG or WebP image) and keep its text.",
            discussion: "PDF text is read by pdftotext; scanned pages and images by Tesseract OCR, on this machine.")

        @Argument(help: "The file.")
        var file: String

        @Option(help: "The material's title (default: the file's name).")
        var title: String?

        @Flag(help: "Print the material as JSON.")
        var json = false

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                // Read first: a file that cannot be read leaves nothing behind.
                let material = try await MaterialReader().read(path: file, title: title)
                let store = try LocalStore(path: try await database.url())
                let saved = try store.addMaterial(material)
                // Its passages' vectors, for searching by meaning, when the embedding model is installed.
                let runtime = try await Runtime<ContinuousClock>.load()
                await MaterialFinder(store: store, embedder: runtime.onDeviceEmbedder()).index(saved, owner: .local)
                if json {
                    writeLine(try MaterialJSON.encoder.encode(saved))
                } else {
                    let pages = saved.pageCount == 1 ? "1 page" : "\(saved.pageCount) pages"
                    print("Added material \(saved.id): \"\(saved.title)\" (\(saved.kind), \(pages), \(saved.text.count) characters, read by \(saved.readBy)).")
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the materials, newest first.")

        @Flag(help: "Print the materials (with their text) as JSON.")
        var json = false

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                let materials = try await database.openExisting()?.materials() ?? []
                if json {
                    writeLine(try MaterialJSON.encoder.encode(["materials": materials]))
                    return
                }
                if materials.isEmpty { print("No materials yet: add one with parley materials add FILE.") }
                for material in materials {
                    print("\(pad(String(material.id), 3))  \(localTime(material.createdAt))  [\(material.kind), \(material.pageCount)p] \(material.title)")
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a material's text.")

        @Argument(help: "The material's id.")
        var id: Int64

        @Flag(help: "Print the material as JSON.")
        var json = false

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                guard let material = try await database.openExisting()?.material(id) else { throw StoreError.materialNotFound(id) }
                if json {
                    writeLine(try MaterialJSON.encoder.encode(material))
                } else {
                    print("# \(material.title) (\(material.kind), \(material.pageCount) page\(material.pageCount == 1 ? "" : "s"), from \(material.source))\n")
                    print(material.text)
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Search the materials for QUERY, as the assistant's search_materials tool does.",
            discussion: "By words, and by meaning when the on-device embedding model is installed (scripts/setup).")

        @Argument(help: "What to look for, e.g. \"field trip\" or a question.")
        var query: String

        @Option(help: "The most materials to show (1–20).")
        var limit = 3

        @Flag(help: "Search by words only, even when the embedding model is installed.")
        var wordsOnly = false

        @Flag(help: "Print the hits as JSON.")
        var json = false

        @OptionGroup var database: History.DatabaseOptions

        func validate() throws {
            guard (1...20).contains(limit) else { throw ValidationError("--limit must be between 1 and 20.") }
        }

        func run() async throws {
            do {
                guard let store = try await database.openExisting() else {
                    print("No materials yet: add one with parley materials add FILE.")
                    return
                }
                let runtime = try await Runtime<ContinuousClock>.load()
                let finder = MaterialFinder(store: store, embedder: wordsOnly ? nil : runtime.onDeviceEmbedder())
                let hits = try await finder.search(query, limit: limit, owner: .local)
                if json {
                    writeLine(try MaterialJSON.encoder.encode(["hits": hits]))
                    return
                }
                if hits.isEmpty { print("Nothing matches \"\(query)\".") }
                for hit in hits {
                    print("\(hit.material)  \(hit.title)  (score \(String(format: "%.3f", hit.score)))\n    \(hit.snippet)")
                }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a material.")

        @Argument(help: "The material's id.")
        var id: Int64

        @OptionGroup var database: History.DatabaseOptions

        func run() async throws {
            do {
                guard let store = try await database.openExisting() else { throw StoreError.materialNotFound(id) }
                try store.deleteMaterial(id)
                print("Removed material \(id).")
            } catch {
                throw fail(error)
            }
        }
    }
}

enum MaterialJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
