import Foundation
import ParleyCore
@testable import ParleyServer
import Testing

/// Each tunable's realtime field is read and reported as the table of tunables spells it: the
/// range's ends are taken (in the field's unit), a value beyond them is refused naming the
/// field, and a fresh session reports the table's defaults.
@Suite("Realtime session fields of the tunables")
struct RealtimeTunableFieldsTests {
    /// A GA `session` object that sets `tunable`'s field to `value` (on the wire).
    static func session(_ tunable: Tunable, _ field: Tunable.Field, _ value: Double) -> JSONValue {
        let set: JSONValue = .object([field.name: .number(value)])
        switch field.object {
        case "turn_detection":
            var detection = set.object ?? [:]
            detection["type"] = "server_vad"
            return .object(["audio": .object(["input": .object(["turn_detection": .object(detection)])])])
        default:
            return .object([field.object: set])
        }
    }

    /// The reported session's object that holds `field`.
    static func reported(_ settings: RealtimeSessionSettings, _ field: Tunable.Field) -> JSONValue? {
        let json = settings.json(id: "sess_test", transcriptionModel: "whisper")
        return field.object == "turn_detection" ? json["audio"]?["input"]?["turn_detection"] : json[field.object]
    }

    @Test("every field the table names is read, reported and range-checked as the table says", arguments: Tunable.all.filter { $0.field != nil })
    func field(_ tunable: Tunable) throws {
        let field = try #require(tunable.field)
        let fresh = RealtimeSessionSettings(model: "auto", silence: Tunable.endSilence.defaultValue)
        let defaultReport = Self.reported(fresh, field)?[field.name]?.number
        // Partial transcripts are off until a client asks for them; everything else reports its default.
        #expect(defaultReport == (tunable.off == nil ? tunable.wire(tunable.defaultValue) : nil), "\(tunable): \(String(describing: defaultReport))")
        for seconds in [tunable.range.lowerBound, tunable.defaultValue, tunable.range.upperBound] {
            var settings = fresh
            try settings.apply(Self.session(tunable, field, seconds * field.scale))
            #expect(Self.reported(settings, field)?[field.name]?.number == tunable.wire(seconds), "\(tunable) at \(seconds)")
        }
        for seconds in [tunable.range.upperBound * 2 + 1, -1] {
            var settings = fresh
            do {
                try settings.apply(Self.session(tunable, field, seconds * field.scale))
                Issue.record("\(tunable) took \(seconds) s")
            } catch {
                #expect(error.param?.hasSuffix("." + field.name) == true && error.message == tunable.fieldRefusal, "\(tunable): \(error)")
            }
        }
    }
}
