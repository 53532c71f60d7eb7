import Foundation
import ParleyCore
import Testing

/// The conversation's tunables are defined once: the table is consistent, the core's types take
/// their defaults from it, and no face file writes a default of its own.
@Suite("Tunables: one home per setting")
struct TunableTests {
    @Test("the table: names, flags and fields are unique; each default is a value the tunable takes; 'off' is not in range")
    func table() {
        let all = Tunable.all
        #expect(Set(all.map(\.id)).count == all.count)
        let flags = all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        let paths = all.compactMap(\.field?.path)
        #expect(Set(paths).count == paths.count)
        for tunable in all {
            #expect(tunable.range.contains(tunable.defaultValue), "\(tunable)")
            #expect(tunable.accepts(tunable.defaultValue), "\(tunable)")
            #expect(!tunable.accepts(tunable.range.upperBound + 1), "\(tunable)")
            if let off = tunable.off {
                #expect(!tunable.range.contains(off) && tunable.accepts(off), "\(tunable)")
            }
            if let flag = tunable.flag { #expect(Tunable.flag(flag) == tunable) }
            if let field = tunable.field {
                #expect(Tunable.field(field.path) == tunable)
                #expect(tunable.accepts(wire: tunable.defaultValue * field.scale), "\(tunable)")
                let wire = tunable.defaultValue * field.scale
                #expect(tunable.wire(tunable.defaultValue) == (field.scale == 1 ? wire : wire.rounded()), "\(tunable)")
            }
        }
        #expect(Tunable.minInterruption.refusal("--min-interruption") == "--min-interruption must be between 0 and 5 seconds.")
        #expect(Tunable.endSilence.fieldRefusal == "'silence_duration_ms' must be between 100 and 30000.")
        #expect(Tunable.partialInterval.fieldRefusal == "'partial_transcript_interval_ms' must be between 250 and 10000, or 0 to turn it off.")
    }

    @Test("the core's values take their defaults from the table")
    func coreDefaults() {
        let segmentation = SpeechSegmenter.Configuration()
        #expect(segmentation.endSilence == Tunable.endSilence.defaultValue)
        #expect(segmentation.padding == Tunable.speechPadding.defaultValue)
        #expect(segmentation.maxSpeech == Tunable.maxTurn.defaultValue)
        #expect(Double(segmentation.onThreshold) == Tunable.speechThreshold.defaultValue)
        #expect(ConversationConfiguration().segmentation == segmentation)
        let policy = TurnPolicy()
        #expect(policy.shortSilence == Tunable.shortSilence.defaultValue && policy.longSilence == Tunable.endSilence.defaultValue)
        #expect(InterruptionRules.defaultMinimumSpeech == .seconds(Tunable.minInterruption.defaultValue))
    }

    /// The files of the faces and values that once each wrote the defaults.
    static let faces = [
        "Sources/parley/Talk.swift", "Sources/ParleyRuntime/ConversationOptions.swift", "Sources/ParleyRuntime/Runtime+Conversation.swift",
        "Sources/ParleyCore/Conversation/ConversationConfiguration.swift", "Sources/ParleyCore/Turns/TurnPolicy.swift",
        "Sources/ParleyCore/VAD/SpeechSegmenter.swift", "Sources/ParleyCore/Conversation/InterruptionRules.swift",
        "Sources/ParleyServer/Realtime/RealtimeSessionSettings.swift", "Sources/ParleyServer/Realtime/RealtimeConnection.swift",
    ]

    @Test("each default is written once, in the table: no face file spells one (in seconds or in milliseconds)")
    func writtenOnce() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let table = try String(contentsOf: root.appendingPathComponent("Sources/ParleyCore/Conversation/Tunable.swift"), encoding: .utf8)
        for tunable in Tunable.all {
            // Seconds with a fraction anywhere (a whole number, 30 or 1, is too common to look
            // for); milliseconds on a line about milliseconds.
            var spellings: [(text: String, context: String?)] = []
            if tunable.defaultValue != tunable.defaultValue.rounded() { spellings.append((tunable.defaultText, nil)) }
            if let field = tunable.field, field.scale != 1 {
                let milliseconds = Int(tunable.wire(tunable.defaultValue))
                spellings.append((String(milliseconds), "ms"))
                if milliseconds >= 1_000 { spellings.append(("\(milliseconds / 1_000)_\(String(format: "%03d", milliseconds % 1_000))", "ms")) }
            }
            #expect(table.contains("defaultValue: \(tunable.defaultText)"), "\(tunable)")
            for path in Self.faces {
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for spelling in spellings {
                    let pattern = "(^|[^0-9._])" + NSRegularExpression.escapedPattern(for: spelling.text) + "([^0-9_]|$)"
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().filter { _, line in
                        line.range(of: pattern, options: .regularExpression) != nil && spelling.context.map { line.contains($0) } != false
                    }
                    #expect(lines.isEmpty, "\(path) writes \(tunable)'s default \(spelling.text): line \(lines.map { $0.offset + 1 })")
                }
            }
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func source(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every Swift file under `folder`, with its text.
    static func sources(under folder: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { ($0.path, try String(contentsOf: $0, encoding: .utf8)) }
    }

    @Test("the names table: ids, flags and variables unique across both tables; a written default is a name")
    func namesTable() {
        let ids = Tunable.all.map(\.id) + Tunable.names.map(\.id)
        #expect(Set(ids).count == ids.count)
        let flags = Tunable.all.compactMap(\.flag) + Tunable.names.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        let variables = Tunable.all.compactMap(\.environment) + Tunable.names.compactMap(\.environment)
        #expect(Set(variables).count == variables.count)
        for setting in Tunable.names {
            if let name = setting.defaultName { #expect(!name.isEmpty && !name.contains("/"), "\(setting)") }
        }
        #expect(Tunable.all == Tunable.conversation + Tunable.server)
        #expect(Tunable.maxJSONBody.refusal("--max-json-mb") == "--max-json-mb must be between 0.001 and 65536 MB.")
        #expect(Tunable.bytes(megabytes: Tunable.maxAudioUpload.defaultValue) == 25 << 20)
    }

    @Test("every face's spelling maps to the table: each flag is declared through it, each variable is a setting, each field is read")
    func spellings() throws {
        let cli = try Self.sources(under: "Sources/parley")
        let declarations = cli.map(\.text).joined(separator: "\n")
        let flagged: [(id: String, flag: String)] =
            Tunable.all.compactMap { t in t.flag.map { (t.id, $0) } }
            + Tunable.names.compactMap { n in n.flag.map { (n.id, $0) } }
        for (id, flag) in flagged {
            // Declared with the table's spelling (`.tunable(.endSilence)`), never its own literal.
            #expect(
                declarations.contains(".tunable(.\(id))") || declarations.contains(".tunable(Tunable.\(id))"),
                "--\(flag) (\(id)) is not declared through the table")
            #expect(!declarations.contains("customLong(\"\(flag)\")"), "--\(flag) is spelt by hand")
        }
        let settings = try Self.source("Sources/ParleyRuntime/RuntimeSettings.swift")
        for variable in Tunable.all.compactMap(\.environment) + Tunable.names.compactMap(\.environment) {
            #expect(settings.contains("\"\(variable)\""), "\(variable) is not a setting the runtime knows")
        }
        let realtime = try Self.source("Sources/ParleyServer/Realtime/RealtimeSessionSettings.swift")
        for setting in Tunable.names {
            for field in setting.fields {
                let name = try #require(field.split(separator: ".").last)
                #expect(realtime.contains("[\"\(name)\"]"), "\(field) is not read by the realtime session")
            }
        }
    }

    @Test("the server's limits and the voice and model defaults are written once: not in the server, the CLI or the engines")
    func serverAndNamesWrittenOnce() throws {
        let faces = ["Sources/parley/Serve.swift", "Sources/ParleyServer/ServerConfiguration.swift"]
        for path in faces {
            let text = try Self.source(path)
            for tunable in Tunable.server {
                let whole = Int(tunable.defaultValue)
                var spellings = ["Double = \(whole)\n", ".seconds(\(whole))", "\(whole) << 20", "\(whole) * 1_048_576"]
                if tunable.unit == .minutes { spellings += ["= \(whole * 60)", "= \(whole * 60 / 1_000)_\(whole * 60 % 1_000)"] }
                // On the lines of the faces' own names for the limit.
                let names =
                    [
                        "maxAudioUpload": ["maxAudio"], "maxAudioLength": ["maxAudio"], "maxJSONBody": ["maxJSON", "maxChat"],
                        "requestTimeout": ["requestTimeout"], "probeInterval": ["probeInterval"],
                    ][tunable.id] ?? [tunable.id]
                let lines = text.split(separator: "\n").map { $0 + "\n" }.filter { line in names.contains { line.contains($0) } }
                for spelling in spellings {
                    #expect(!lines.contains { $0.contains(spelling) }, "\(path) writes \(tunable)'s default as \(spelling)")
                }
            }
        }
        for setting in Tunable.names {
            guard let name = setting.defaultName else { continue }
            for (path, text) in try Self.sources(under: "Sources") where !path.hasSuffix("Tunable.swift") && !path.hasSuffix("ModelCatalog.swift") {
                let lines = text.split(separator: "\n").filter { $0.contains("\"\(name)") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }
                #expect(lines.isEmpty, "\(path) writes \(setting)'s default \(name)")
            }
        }
    }
}
