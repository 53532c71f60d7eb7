import Foundation
import Testing
@testable import ParleyCore

@Suite("JSON schemas: reading, writing, validating")
struct JSONSchemaTests {
    static let document = ##"""
        {
          "$defs": {"step": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 80},
                                                             "minutes": {"type": "integer", "minimum": 1, "maximum": 30}},
                             "required": ["text", "minutes"]}},
          "type": "object",
          "description": "A plan",
          "properties": {
            "title": {"type": "string", "minLength": 3},
            "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}, "minItems": 3, "maxItems": 7},
            "level": {"enum": ["easy", "hard"]},
            "note": {"type": ["string", "null"]},
            "done": {"type": "boolean"},
            "date": {"type": "string", "format": "date"},
            "score": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}
          },
          "required": ["title", "steps", "level"],
          "additionalProperties": false
        }
        """##

    @Test("a document reads into typed rules, properties in order, references resolved")
    func reads() throws {
        let schema = try JSONSchema(parsing: Self.document)
        #expect(schema.description == "A plan")
        guard case .object(let properties, let additional) = schema.kind else { Issue.record("not an object"); return }
        #expect(!additional)
        #expect(properties.map(\.name) == ["title", "steps", "level", "note", "done", "date", "score"])
        #expect(properties.map(\.isRequired) == [true, true, true, false, false, false, false])
        guard case .array(let step, 3, 7?) = properties[1].schema.kind, case .object(let stepProperties, _) = step.kind else {
            Issue.record("steps are not an array of objects")
            return
        }
        #expect(stepProperties.map(\.name) == ["text", "minutes"])
        #expect(properties[3].schema.kind == .anyOf([JSONSchema(.string(.init())), JSONSchema(.null)]))
        // Written back, it reads the same.
        #expect(try JSONSchema(json: schema.json) == schema)
    }

    @Test(
        "unsupported or broken schemas are refused with where and why",
        arguments: [
            (#"{"not": {"type": "string"}}"#, "`not` is not supported"),
            (
                ##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}}"##,
                "recursive schemas are not supported"
            ),
            (#"{"type": "strin"}"#, "unknown type \"strin\""),
            (#"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}"#, "`required` names \"b\""),
            (#"{"type": "array", "minItems": 3, "maxItems": 2}"#, "`maxItems` is below `minItems`"),
            (##"{"$ref": "#/$defs/missing"}"##, "points to nothing"),
            (#"{"allOf": [{"type": "string"}, {"minLength": 2}]}"#, "merge them into one schema"),
            ("[1, 2]", "a schema must be an object"),
        ])
    func refused(text: String, reason: String) {
        do {
            _ = try JSONSchema(parsing: text)
            Issue.record("expected \(reason)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("a valid value has no violations")
    func valid() throws {
        let schema = try JSONSchema(parsing: Self.document)
        let value = try JSONValue(
            parsing: #"""
                {"title": "Tidy the room", "steps": [{"text": "Clothes", "minutes": 5}, {"text": "Desk", "minutes": 10},
                 {"text": "Floor", "minutes": 5}], "level": "easy", "note": null, "date": "2026-11-23", "score": 0.5}
                """#)
        #expect(schema.violations(of: value) == [])
    }

    @Test("every violation is reported with its path")
    func violations() throws {
        let schema = try JSONSchema(parsing: Self.document)
        let value = try JSONValue(
            parsing: #"""
                {"title": "Hi", "steps": [{"text": "Clothes", "minutes": 0}, {"minutes": 2.5}], "level": "medium",
                 "note": 3, "done": "yes", "date": "2026-13-01", "score": 0, "extra": 1}
                """#)
        #expect(
            schema.violations(of: value).map(\.description) == [
                "$.title: expected at least 3 characters, got 2",
                "$.steps: expected at least 3 items, got 2",
                "$.steps[0].minutes: expected at least 1, got 0",
                "$.steps[1].text: is required but missing",
                "$.steps[1].minutes: expected a whole number, got 2.5",
                #"$.level: expected one of "easy", "hard", got "medium""#,
                "$.note: expected a string, got a number (or null)",
                "$.done: expected true or false, got a string",
                "$.date: is not a valid date",
                "$.score: expected more than 0, got 0",
                "$.extra: is not a property of this object",
            ])
    }

    @Test("OpenAI strict mode is used only for schemas it accepts")
    func strictCompatibility() throws {
        #expect(JSONSchema.object([.init("a", .string()), .init("b", .array(of: .integer()))]).isStrictCompatible)
        #expect(!JSONSchema.object([.optional("a", .string())]).isStrictCompatible)
        #expect(!JSONSchema(.object([], additional: true)).isStrictCompatible)
        #expect(!(try JSONSchema(parsing: Self.document)).isStrictCompatible)
    }

    struct Plan: StructuredOutput, Equatable {
        var title: String
        var steps: [String]
        static let schema = JSONSchema.object([.init("title", .string()), .init("steps", .array(of: .string(), minItems: 1))])
    }

    @Test("a Swift type gives its schema and decodes from a value that follows it")
    func structuredOutputType() throws {
        #expect(Plan.schemaName == "plan")
        let value = try JSONValue(parsing: #"{"title": "Go", "steps": ["a", "b"]}"#)
        #expect(Plan.schema.validates(value))
        #expect(try Plan(json: value) == Plan(title: "Go", steps: ["a", "b"]))
        #expect(try Plan(title: "Go", steps: ["a"]).json["steps"] == .array(["a"]))
    }

    @Test("replies wrapped in fences or prose are found; the instruction carries the schema")
    func replyParsing() throws {
        let schema = Plan.schema
        let fenced = "Here you go:\n```json\n{\"title\": \"Go\", \"steps\": [\"a\"]}\n```\nEnjoy!"
        #expect(try StructuredGenerator<ContinuousClock>.problems(in: fenced, schema: schema).get() == .object(["title": "Go", "steps": ["a"]]))
        let prose = "Sure. {\"title\": \"Go\", \"steps\": [\"a\"]} Hope that helps."
        #expect((try? StructuredGenerator<ContinuousClock>.problems(in: prose, schema: schema).get()) != nil)
        guard case .failure(let complaints) = StructuredGenerator<ContinuousClock>.problems(in: "No idea.", schema: schema) else {
            Issue.record("prose is not JSON")
            return
        }
        #expect(complaints.complaints.first?.hasPrefix("the reply is not JSON") == true)
        let messages = StructuredGenerator<ContinuousClock>.instructed([.system("Be brief."), .user("Plan a trip.")], schema: schema)
        #expect(messages.count == 2)
        #expect(messages[0].text.hasPrefix("Be brief.\n\nReply with one JSON value"))
        #expect(messages[0].text.hasSuffix(schema.json.text))
    }
}
