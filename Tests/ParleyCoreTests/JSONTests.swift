import Foundation
import Testing
@testable import ParleyCore

@Suite("JSON values: ordered parsing, writing, and prefixes of streaming text")
struct JSONTests {
    @Test("object members keep the order they were written in, through parsing and writing")
    func order() throws {
        let text = #"{"zeta":1,"alpha":{"mid":[true,false,null],"beta":"x"},"omega":-2.5e-3}"#
        let value = try JSONValue(parsing: text)
        #expect(value.object?.keys == ["zeta", "alpha", "omega"])
        #expect(value["alpha"]?.object?.keys == ["mid", "beta"])
        #expect(value.text == #"{"zeta":1,"alpha":{"mid":[true,false,null],"beta":"x"},"omega":-0.0025}"#)
        #expect(try JSONValue(parsing: value.prettyText) == value)
        #expect(value.prettyText.hasPrefix("{\n  \"zeta\": 1,\n  \"alpha\": {\n    \"mid\": [\n      true,"))
    }

    @Test("strings: escapes, surrogate pairs and control characters round-trip")
    func strings() throws {
        let value = try JSONValue(parsing: #""tab\there \"q\" back\\slash \u00e9 \ud83d\ude00 \u0001 / \/""#)
        #expect(value == .string("tab\there \"q\" back\\slash é 😀 \u{01} / /"))
        #expect(value.text == #""tab\there \"q\" back\\slash é 😀 \u0001 / /""#)
        #expect(try JSONValue(parsing: value.text) == value)
    }

    @Test("numbers: integers print without a fraction; non-finite values print as null")
    func numbers() throws {
        #expect(try JSONValue(parsing: "[0, -0, 12, 1.5, 1e3, -7E-2]").text == "[0,0,12,1.5,1000,-0.07]")
        #expect(JSONValue.number(.infinity).text == "null")
    }

    @Test(
        "malformed text fails with the place it goes wrong",
        arguments: [
            (#"{"a":1,}"#, 7), ("[1 2]", 3), (#"{"a" 1}"#, 5), ("01", 0), (#""open"#, 5), ("tru", 0), ("{} x", 3), ("", 0), ("[1,]", 3),
        ])
    func malformed(text: String, offset: Int) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test("Codable still works, and object equality ignores order")
    func codable() throws {
        let value: JSONValue = .object(["b": .array([1, "two"]), "a": .null])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
        #expect(JSONValue.object(["a": 1, "b": 2]) == JSONValue.object(["b": 2, "a": 1]))
    }

    @Test(
        "a prefix of a streaming reply reads as far as it goes",
        arguments: [
            ("", nil),
            ("  ", nil),
            (#"{"ci"#, JSONValue.object([:])),
            (#"{"city": "Pa"#, .object(["city": "Pa"])),
            (#"{"city": "Paris", "pop": 21"#, .object(["city": "Paris"])),
            (#"{"city": "Paris", "pop": 21,"#, .object(["city": "Paris", "pop": 21])),
            (#"{"list": [1, 2, {"x": tr"#, .object(["list": [1, 2, .object([:])]])),
            (#"{"a": "x\"#, .object(["a": "x"])),
            (#"{"a": "\u00"#, .object(["a": ""])),
            (#"[{"k": null}, "tw"#, .array([.object(["k": .null]), "tw"])),
            (#"Sure! {"a": 1}"#, nil),
        ] as [(String, JSONValue?)])
    func prefixes(text: String, expected: JSONValue?) {
        #expect(JSONValue.prefix(of: text) == expected)
    }

    @Test("every prefix of a document reads without error, and the whole reads as the document")
    func everyPrefix() throws {
        let text = #"{"title": "Caf\u00e9 \"notes\"", "points": [{"n": 1, "ok": true}, {"n": -2.5e1, "ok": null}], "end": "✓"}"#
        let whole = try JSONValue(parsing: text)
        var previousCount = 0
        for end in text.indices {
            let prefix = String(text[..<end])
            guard let value = JSONValue.prefix(of: prefix) else { continue }
            let count = value.text.count
            #expect(count + 4 >= previousCount, "a prefix never loses what an earlier one had: \(prefix)")
            previousCount = max(previousCount, count)
        }
        #expect(JSONValue.prefix(of: text) == whole)
    }
}
