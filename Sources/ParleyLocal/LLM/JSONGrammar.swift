import ParleyCore

/// A GBNF grammar (llama.cpp's grammar format) that admits exactly the JSON texts a schema
/// allows, as far as a grammar can say it.
///
/// The grammar fixes the structure: objects have the schema's properties in its order
/// (optional ones may be left out), arrays have the allowed number of items, strings
/// respect their lengths or their pattern (and the named formats' patterns), enumerations
/// and constants are spelled out, integers in a small range are listed, shares in [0, 1]
/// stay there, and a non-negative minimum forbids the minus sign. What a grammar cannot
/// cheaply say (patterns beyond plain regular expressions, most number ranges) is checked after
/// generation by ``JSONSchema/violations(of:)``. Whitespace goes only where indented JSON
/// has it (after `{`, `[` and `,`, before `}` and `]`, one space after `:`), and little of
/// it, so a small model cannot wander off into blank lines.
public struct JSONGrammar: Sendable, Equatable, CustomStringConvertible {
    /// The rules, `root` first.
    public let text: String

    /// The grammar for `schema`.
    public init(schema: JSONSchema) {
        var builder = Builder()
        let root = builder.rule(for: schema, name: "root")
        text = builder.render(root: root)
    }

    /// The grammar for `schema` after `prefix`, a GBNF expression (e.g. `"\n"?`).
    init(schema: JSONSchema, prefix: String) {
        var builder = Builder()
        let value = builder.named(builder.expression(for: schema, name: "value-root"), name: "value-root")
        let root = builder.add(prefix + " " + value, name: "root")
        text = builder.render(root: root)
    }

    public var description: String { text }

    /// The largest integer range listed value by value.
    static let listedRangeLimit = 256

    private struct Builder {
        /// Rule bodies by name, in the order made.
        var rules: [(name: String, body: String)] = []
        var nameOfBody: [String: String] = [:]
        var usedNames: Set<String> = []
        var primitives: Set<String> = []

        /// Primitive rules, added only when used.
        static let primitiveBodies: [(String, String)] = [
            ("ws", #"([ \t\n] [ \t]{0,20})?"#),
            ("char", #"[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})"#),
            ("string", #""\"" char* "\"""#),
            ("integer", #""-"? ("0" | [1-9] [0-9]{0,15})"#),
            ("natural", #"("0" | [1-9] [0-9]{0,15})"#),
            ("number", #""-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?"#),
            ("unsigned-number", #"("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?"#),
            ("boolean", #""true" | "false""#),
            ("null", #""null""#),
            ("value", #"object | array | string | number | boolean | null"#),
            ("object", #""{" ws (string ":" " "? value ("," ws string ":" " "? value)*)? ws "}""#),
            ("array", #""[" ws (value ("," ws value)*)? ws "]""#),
        ]

        static let dependencies: [String: [String]] = [
            "string": ["char"], "value": ["object", "array", "string", "number", "boolean", "null"],
            "object": ["ws", "string", "value"], "array": ["ws", "value"],
        ]

        mutating func use(_ primitive: String) -> String {
            guard primitives.insert(primitive).inserted else { return primitive }
            for dependency in Self.dependencies[primitive] ?? [] { _ = use(dependency) }
            return primitive
        }

        /// Adds a rule (or finds an identical one) and returns its name.
        mutating func add(_ body: String, name wanted: String) -> String {
            if let existing = nameOfBody[body], wanted != "root" { return existing }
            var name = wanted
            var suffix = 1
            while usedNames.contains(name) || Self.primitiveBodies.contains(where: { $0.0 == name }) {
                suffix += 1
                name = "\(wanted)-\(suffix)"
            }
            usedNames.insert(name)
            nameOfBody[body] = name
            rules.append((name, body))
            return name
        }

        /// The expression for `schema`: a rule name or an inline expression.
        mutating func rule(for schema: JSONSchema, name: String) -> String {
            let body = expression(for: schema, name: name)
            if name == "root" { return add(body, name: "root") }
            return body
        }

        mutating func expression(for schema: JSONSchema, name: String) -> String {
            switch schema.kind {
            case .any: return use("value")
            case .null: return use("null")
            case .boolean: return use("boolean")
            case .constant(let value): return Self.literal(value.text)
            case .enumeration(let values):
                return add(values.map { Self.literal($0.text) }.joined(separator: " | "), name: name)
            case .anyOf(let options):
                let alternatives = options.enumerated().map { index, option in expression(for: option, name: "\(name)-\(index + 1)") }
                return add(alternatives.joined(separator: " | "), name: name)
            case .string(let rules):
                if let pattern = rules.pattern ?? rules.format.flatMap({ JSONSchema.formatPatterns[$0] }),
                    let inside = PatternGrammar.expression(for: pattern, anyChar: use("char"))
                {
                    return add(#""\"" "# + inside + #" "\"""#, name: name)
                }
                guard rules.minLength > 0 || rules.maxLength != nil else { return use("string") }
                _ = use("char")
                let count = rules.maxLength.map { "{\(rules.minLength),\($0)}" } ?? "{\(rules.minLength),}"
                return add(#""\"" char"# + count + #" "\"""#, name: name)
            case .number(let rules):
                return number(rules, name: name)
            case .array(let items, let minItems, let maxItems):
                let item = named(expression(for: items, name: "\(name)-item"), name: "\(name)-item")
                let comma = #""," "# + use("ws") + " "
                let list: String
                switch (minItems, maxItems) {
                case (_, 0?): list = ""
                case (0, nil): list = "(\(item) (\(comma)\(item))*)?"
                case (0, let most?): list = "(\(item) (\(comma)\(item)){0,\(most - 1)})?"
                case (let least, nil): list = "\(item) (\(comma)\(item)){\(least - 1),}"
                case (let least, let most?): list = "\(item) (\(comma)\(item)){\(least - 1),\(most - 1)}"
                }
                return add(#""[" "# + use("ws") + " " + list + (list.isEmpty ? "" : " ") + use("ws") + #" "]""#, name: name)
            case .object(let properties, let additional):
                guard !properties.isEmpty else { return additional ? use("object") : add(#""{" "# + use("ws") + #" "}""#, name: name) }
                return object(properties, name: name)
            }
        }

        /// A rule name for `expression` (complex expressions get their own rule).
        mutating func named(_ expression: String, name: String) -> String {
            if expression.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { return expression }
            return add(expression, name: name)
        }

        mutating func number(_ rules: JSONSchema.NumberRules, name: String) -> String {
            var low = rules.minimum ?? rules.exclusiveMinimum.map { rules.integer ? ($0 + 1).rounded(.down) : $0 }
            var high = rules.maximum ?? rules.exclusiveMaximum.map { rules.integer ? ($0 - 1).rounded(.up) : $0 }
            if rules.integer {
                low = low.map { $0.rounded(.up) }
                high = high.map { $0.rounded(.down) }
                if let low, let high, high >= low, high - low < Double(JSONGrammar.listedRangeLimit) {
                    let values = stride(from: Int(low), through: Int(high), by: 1).map { Self.literal(String($0)) }
                    return add(values.joined(separator: " | "), name: name)
                }
                return use((low ?? -1) >= 0 ? "natural" : "integer")
            }
            if let low, let high, low >= 0, high <= 1 {
                // A share or a probability: 0, 1, or a fraction between.
                return add(#""0" ("." [0-9]{1,16})? | "1" ("." "0"{1,16})?"#, name: name)
            }
            return use((low ?? -1) >= 0 ? "unsigned-number" : "number")
        }

        /// Properties in order; optional ones may be left out, commas only between members.
        mutating func object(_ properties: [JSONSchema.Property], name: String) -> String {
            let comma = #""," "# + use("ws") + " "
            let members = properties.enumerated().map { index, property in
                Self.literal(JSONValue.string(property.name).text) + #" ":" " "? "#
                    + named(
                        expression(for: property.schema, name: "\(name)-\(Self.ruleName(property.name))"),
                        name: "\(name)-\(Self.ruleName(property.name))")
            }
            // after(i): members i… once one was written (each with its leading comma);
            // first(i): members i… while none was written yet. Empty strings mean "nothing".
            var after = ""
            var first = ""
            for index in properties.indices.reversed() {
                let member = members[index]
                let restAfter = after.isEmpty ? "" : " " + after
                if properties[index].isRequired {
                    first = member + restAfter
                    after = comma + member + restAfter
                } else {
                    first = first.isEmpty ? "(\(member)\(restAfter))?" : "(\(member)\(restAfter) | \(first))"
                    after = "(\(comma)\(member))?" + restAfter
                }
                if index > 0 {
                    after = add(after, name: "\(name)-after-\(index)")
                    first = named(first, name: "\(name)-from-\(index)")
                }
            }
            return add(#""{" "# + use("ws") + " " + first + " " + use("ws") + #" "}""#, name: name)
        }

        static func ruleName(_ text: String) -> String {
            let mapped = text.lowercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "-" }
            let name = String(mapped).split(separator: "-").joined(separator: "-")
            return name.isEmpty ? "x" : String(name.prefix(32))
        }

        /// A GBNF string literal for `text`.
        static func literal(_ text: String) -> String {
            var output = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                default: output.unicodeScalars.append(scalar)
                }
            }
            return output + "\""
        }

        func render(root: String) -> String {
            var lines = rules.map { "\($0.name) ::= \($0.body)" }
            if let rootIndex = rules.firstIndex(where: { $0.name == "root" }), rootIndex > 0 {
                lines.insert(lines.remove(at: rootIndex), at: 0)
            }
            for (name, body) in Self.primitiveBodies where primitives.contains(name) { lines.append("\(name) ::= \(body)") }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
