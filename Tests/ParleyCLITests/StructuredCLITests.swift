import Foundation
import ParleyCore
import ParleyTestLanes
import Testing

/// The structured-output and learning-task commands, on the on-device model (SmolLM2, as
/// the other CLI tests), offline. One at a time: each runs a model in its own process, and
/// several at once starve the suite's timing-sensitive tests on a two-core machine.
@Suite("parley generate, breakdown and mindmap", .serialized, .onDeviceEngines)
struct StructuredCLITests {
    static func temporary(_ name: String, _ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("generate prints one JSON value that follows the schema, and who answered to stderr")
    func generate() async throws {
        let schema = try Self.temporary(
            "city.json",
            #"""
            {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40}, "country": {"type": "string"},
             "rank": {"type": "integer", "minimum": 1, "maximum": 10}}, "required": ["city", "country", "rank"]}
            """#)
        defer { try? FileManager.default.removeItem(at: schema) }
        let result = try await CLI.run(["generate", "--schema", schema.path, "--compact", "The largest city of France is Paris."])
        #expect(result.status == 0, "\(result.stderr)")
        let value = try JSONValue(parsing: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try JSONSchema(json: JSONValue(parsing: String(contentsOf: schema, encoding: .utf8))).validates(value))
        #expect(value.object?.keys == ["city", "country", "rank"])
        #expect(result.stderr.contains("served by llama.cpp"))
    }

    @Test("generate refuses a schema it cannot use, saying where and why")
    func badSchema() async throws {
        let schema = try Self.temporary("bad.json", #"{"type": "object", "properties": {"a": {"not": {"type": "string"}}}}"#)
        defer { try? FileManager.default.removeItem(at: schema) }
        let result = try await CLI.run(["generate", "--schema", schema.path, "anything"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/properties/a"), "\(result.stderr)")
        #expect(result.stderr.contains("`not` is not supported"))
    }

    @Test("breakdown --json: three to seven steps, the provider and the reason")
    func breakdown() async throws {
        let result = try await CLI.run(["breakdown", "--json", "pack a school bag for tomorrow"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: result.stdout)
        #expect((3...7).contains(json["result"]?["steps"]?.array?.count ?? 0), "\(result.stdout)")
        #expect(json["provider"]?.string?.hasPrefix("llama.cpp") == true)
        #expect(json["reason"]?.string?.contains("task_breakdown prefers") == true)
    }

    @Test("mindmap writes an accessible SVG of the text")
    func mindMap() async throws {
        let text = try Self.temporary("bees.txt", "Bees pollinate flowers. They make honey from nectar and live in hives with a queen, workers and drones.")
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID().uuidString).svg")
        defer {
            try? FileManager.default.removeItem(at: text)
            try? FileManager.default.removeItem(at: svg)
        }
        let result = try await CLI.run(["mindmap", text.path, "-o", svg.path])
        #expect(result.status == 0, "\(result.stderr)")
        let drawing = try String(contentsOf: svg, encoding: .utf8)
        #expect(drawing.hasPrefix("<svg") || drawing.hasPrefix("<?xml"))
        #expect(drawing.contains("<title") && drawing.contains("<desc") && drawing.contains("<text"))
        #expect(result.stdout.contains("Wrote \(svg.path)"))
    }
}
