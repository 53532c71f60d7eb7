import Foundation
import ParleyCore
import ParleyTesting
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// Structured output on the real llama.cpp engine (SmolLM2-135M): a grammar made from the
/// schema constrains every token. One thread, so the rest of the suite keeps a core.
@Suite("Grammar-constrained JSON on llama.cpp", .serialized, .onDeviceEngines)
struct StructuredGenerationTests {
    static let model = LlamaLanguageModel(
        configuration: .init(
            modelPath: TestEnvironment.paths.defaultLanguageModel.path, contextLength: 2048, threads: 1))

    func llm() throws -> LlamaLanguageModel {
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultLanguageModel)
        return Self.model
    }

    /// The shared test set (also used by `parley bench structured`).
    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var prompt: String
        var schema: JSONValue
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Benchmarks/structured/cases.json")
        guard let data = try? Data(contentsOf: url), let value = try? JSONValue(parsing: data), let list = value.array else { return [] }
        return list.compactMap { item in
            guard let name = item["name"]?.string, let prompt = item["prompt"]?.string, let schema = item["schema"] else { return nil }
            return Case(name: name, prompt: prompt, schema: schema)
        }
    }()

    @Test("the test set has at least ten schemas, and each reads")
    func testSet() throws {
        #expect(Self.cases.count >= 10)
        for item in Self.cases { _ = try JSONSchema(json: item.schema) }
    }

    @Test("every schema in the test set gets a schema-valid value offline", arguments: cases)
    func testSetValues(_ item: Case) async throws {
        let generator = StructuredGenerator(providers: [try llm()], health: ProviderHealth(clock: ContinuousClock()))
        let schema = try JSONSchema(json: item.schema)
        let result = try await generator.generate(
            StructuredRequest(
                messages: [.system("You produce accurate, concise structured data."), .user(item.prompt)], schema: schema, name: item.name,
                sampling: SamplingOptions(temperature: 0, maxTokens: 400)))
        #expect(schema.violations(of: result.value).isEmpty)
        #expect(result.provider.name == "llama.cpp")
    }

    @Test("the grammar alone (no instruction, no repair) makes the reply parse and fit the shape")
    func grammarAlone() async throws {
        let schema = JSONSchema.object([
            .init("answer", .boolean()),
            .init("colour", .oneOf(["red", "green", "blue"])),
            .init("count", .integer(minimum: 1, maximum: 5)),
            .optional("note", .string(maxLength: 20)),
        ])
        let request = ChatRequest(
            messages: [.user("Tell me a story about a dragon.")], sampling: SamplingOptions(temperature: 0, maxTokens: 120),
            responseSchema: ResponseSchema(name: "shape", schema: schema.json))
        let (text, _, finish) = try await llm().completeText(request)
        let value = try JSONValue(parsing: text)
        #expect(schema.violations(of: value).isEmpty, "\(text)")
        #expect(finish == .stop, "the grammar ends the reply when the value is complete")
    }

    /// A property test: random schemas (within what a grammar enforces) give grammars
    /// llama.cpp accepts, and sampled outputs that validate.
    @Test("random schemas: llama.cpp accepts each grammar and every sampled value validates")
    func randomSchemas() async throws {
        let model = try llm()
        var random = SeededGenerator(seed: 20_261_123)
        for index in 0..<16 {
            let schema = RandomSchema.make(depth: 0, random: &random)
            let request = ChatRequest(
                messages: [.user("Make up an example value.")],
                sampling: SamplingOptions(temperature: 1.0, maxTokens: 600, seed: UInt32(index)),
                responseSchema: ResponseSchema(name: "random", schema: schema.json))
            let (text, _, finish) = try await model.completeText(request)
            #expect(finish == .stop, "schema \(index) \(schema.json.text) ran out of tokens: \(text)")
            guard finish == .stop else { continue }
            let value = try JSONValue(parsing: text)
            #expect(schema.violations(of: value).isEmpty, "schema \(index) \(schema.json.text) → \(text): \(schema.violations(of: value))")
        }
    }
}

/// Random schemas whose every rule a grammar enforces (bounded strings and arrays, small
/// integer ranges, enums, constants, optional members, nesting, unions with null).
enum RandomSchema {
    static func make(depth: Int, random: inout SeededGenerator) -> JSONSchema {
        let leafOnly = depth >= 2
        switch Int.random(in: 0..<(leafOnly ? 6 : 9), using: &random) {
        case 0:
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                return .string(pattern: ["^[A-Z][a-z]{2,5}$", "^[0-9]{3}-[0-9]{4}$", "^(yes|no|maybe)$", #"^\d+(\.\d{1,2})?$"#].randomElement(using: &random))
            case 1: return .string(format: ["date", "time", "uuid"].randomElement(using: &random))
            default: return .string(minLength: Int.random(in: 0...2, using: &random), maxLength: Int.random(in: 3...16, using: &random))
            }
        case 1:
            let low = Int.random(in: -20...20, using: &random)
            return .integer(minimum: low, maximum: low + Int.random(in: 0...40, using: &random))
        case 2: return .boolean()
        case 3: return .oneOf(["alpha", "beta", "gamma \"quoted\"", "δέλτα"].shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)).map { $0 })
        case 4: return JSONSchema(.constant(.object(["fixed": .number(1)])))
        case 5: return JSONSchema.string(maxLength: 8).orNull
        case 6, 7:
            let count = Int.random(in: 1...4, using: &random)
            let properties = (0..<count).map { index in
                JSONSchema.Property("field_\(index)", make(depth: depth + 1, random: &random), required: Bool.random(using: &random))
            }
            return .object(properties)
        default:
            let minimum = Int.random(in: 0...2, using: &random)
            return .array(of: make(depth: depth + 1, random: &random), minItems: minimum, maxItems: minimum + Int.random(in: 0...2, using: &random))
        }
    }
}

@Suite("JSON schema to GBNF")
struct JSONGrammarTests {
    @Test(
        "patterns a grammar can say become rules; the rest are left to validation",
        arguments: [
            ("^[0-9]{4}-[0-9]{2}$", true), ("^(yes|no)$", true), (#"^\d+(\.\d{1,2})?$"#, true), ("[A-Z]+", true), ("^a.c$", true),
            (#"^(\w+)\1$"#, false), ("^(?=a)b$", false), ("^a+?$", false), (#"^\p{L}+$"#, false), ("^[a-\"]$", false),
        ])
    func patterns(pattern: String, supported: Bool) {
        #expect((PatternGrammar.expression(for: pattern, anyChar: "char") != nil) == supported)
    }

    @Test("whitespace only where indented JSON has it")
    func whitespace() {
        let grammar = JSONGrammar(schema: .object([.init("a", .array(of: .boolean()))]))
        #expect(grammar.text.hasPrefix(#"root ::= "{" ws "\"a\"" ":" " "? "#))
        #expect(grammar.text.contains("boolean ::= \"true\" | \"false\"\n"))
    }

    @Test("optional members: commas only between members, whichever are present")
    func optionalMembers() {
        let grammar = JSONGrammar(schema: .object([.optional("a", .boolean()), .init("b", .boolean()), .optional("c", .boolean())]))
        #expect(grammar.text.hasPrefix("root ::= "))
        // No rule may put a comma right after the opening brace.
        #expect(!grammar.text.contains(#""{" ws ",""#))
        #expect(grammar.text.contains(#""\"b\"""#))
    }

    @Test("small integer ranges are listed; shares stay in [0, 1]; non-negative numbers have no minus sign")
    func numbers() {
        let grammar = JSONGrammar(
            schema: .object([
                .init("stars", .integer(minimum: 1, maximum: 5)), .init("share", .number(minimum: 0, maximum: 1)),
                .init("count", .integer(minimum: 0)),
            ]))
        #expect(grammar.text.contains(#"::= "1" | "2" | "3" | "4" | "5"\#n"#))
        #expect(grammar.text.contains(#"::= "0" ("." [0-9]{1,16})? | "1" ("." "0"{1,16})?\#n"#))
        #expect(grammar.text.contains("natural ::= "))
    }
}
