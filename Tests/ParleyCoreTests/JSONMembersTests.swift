import ParleyCore
import Testing

@Suite("JSONMembers: one top-level member found or changed in a body's bytes")
struct JSONMembersTests {
    func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    @Test("finds the top-level member, not a nested one or one inside a string")
    func finds() {
        let body = Array(#"{"messages": [{"model": "nested", "content": "\"model\": {x}"}], "model" : "gpt-4o", "n": 1}"#.utf8)
        let range = JSONMembers.valueRange(of: "model", in: body)
        #expect(range.map { String(decoding: body[$0], as: UTF8.self) } == #""gpt-4o""#)
        #expect(JSONMembers.valueRange(of: "content", in: body) == nil)
        let n = JSONMembers.valueRange(of: "n", in: body)
        #expect(n.map { String(decoding: body[$0], as: UTF8.self) } == "1")
    }

    @Test("sets a member where it is, or adds it first when absent")
    func sets() {
        #expect(
            text(JSONMembers.setting("model", to: #""b""#, in: Array(#"{"model": "a", "x": [1, {"y": null}]}"#.utf8)))
                == #"{"model": "b", "x": [1, {"y": null}]}"#)
        #expect(text(JSONMembers.setting("model", to: #""b""#, in: Array(#" { "x": true }"#.utf8))) == #" {"model":"b", "x": true }"#)
        #expect(text(JSONMembers.setting("model", to: #""b""#, in: Array("{}".utf8))) == #"{"model":"b"}"#)
        #expect(text(JSONMembers.setting("a\"b", to: "1", in: Array("{}".utf8))) == #"{"a\"b":1}"#)
    }

    @Test("a duplicated key counts last, as decoders read it")
    func duplicate() {
        let body = Array(#"{"model": "a", "model": "b"}"#.utf8)
        #expect(JSONMembers.valueRange(of: "model", in: body).map { String(decoding: body[$0], as: UTF8.self) } == #""b""#)
    }

    @Test("anything but a whole object gives nil", arguments: ["", "[]", "\"model\"", #"{"model": "a""#, #"{"model" "a"}"#, #"{"model": }"#, "{\"a\": [1, 2}"])
    func notObjects(_ text: String) {
        #expect(JSONMembers.valueRange(of: "model", in: Array(text.utf8)) == nil)
    }

    @Test("a value's range from where it starts")
    func valueFrom() {
        let bytes = Array(#"x: {"a": "}", "b": [1]} tail"#.utf8)
        #expect(JSONMembers.valueRange(startingAt: 2, in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) } == #"{"a": "}", "b": [1]}"#)
        #expect(JSONMembers.valueRange(startingAt: 2, in: Array(#"x: {"a": "#.utf8)) == nil)
    }
}
