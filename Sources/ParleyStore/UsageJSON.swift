import ParleyCore

/// Token usage as written to the database and to exports, with snake_case keys.
struct UsageJSON: Codable, Equatable, Sendable {
    var inputTokens: Int
    var cachedInputTokens: Int
    var outputTokens: Int

    init(_ usage: Usage) {
        inputTokens = usage.inputTokens
        cachedInputTokens = usage.cachedInputTokens
        outputTokens = usage.outputTokens
    }

    var usage: Usage {
        Usage(inputTokens: inputTokens, cachedInputTokens: cachedInputTokens, outputTokens: outputTokens)
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case cachedInputTokens = "cached_input_tokens"
        case outputTokens = "output_tokens"
    }
}
