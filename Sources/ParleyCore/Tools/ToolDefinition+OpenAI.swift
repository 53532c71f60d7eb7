/// A tool of a list that could not be read, by its place in the list.
public struct ToolListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why.
    public enum Reason: Sendable, Equatable {
        /// It is not `{"type": "function", …}` with a `name`.
        case notAFunction
        /// Its definition is invalid (name, parameters, or a name already used).
        case definition(ToolDefinitionError)
    }

    /// The tool's index in the list.
    public var index: Int
    /// Why it could not be read.
    public var reason: Reason

    public var description: String {
        switch reason {
        case .notAFunction: "Each tool must be a function tool with a name and an object schema of parameters."
        case .definition(let error): error.description
        }
    }
}

extension ToolDefinition {
    /// Function tools as OpenAI's APIs write them, in either shape: nested, as Chat Completions
    /// has it (`{"type": "function", "function": {"name", "description", "parameters",
    /// "strict"}}`), or flat, as the Responses and Realtime APIs have it (`{"type": "function",
    /// "name", …}`). A tool without `parameters` takes none; names must be unique.
    ///
    /// - Throws: ``ToolListError`` naming the first tool that cannot be read and why.
    public static func openAI(_ items: [JSONValue]) throws(ToolListError) -> [ToolDefinition] {
        var tools: [ToolDefinition] = []
        for (index, item) in items.enumerated() {
            let function = item["function"] ?? item
            guard item["type"]?.string ?? "function" == "function", let name = function["name"]?.string else {
                throw ToolListError(index: index, reason: .notAFunction)
            }
            do throws(ToolDefinitionError) {
                let tool = try ToolDefinition(
                    name: name, description: function["description"]?.string,
                    parameters: function["parameters"] ?? ["type": "object", "properties": .object([:])],
                    strict: function["strict"]?.bool)
                guard !tools.contains(where: { $0.name == name }) else { throw ToolDefinitionError.duplicateName(name) }
                tools.append(tool)
            } catch {
                throw ToolListError(index: index, reason: .definition(error))
            }
        }
        return tools
    }
}
