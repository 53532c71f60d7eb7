/// What a request used, in the units providers bill by.
public struct MeteredUsage: Sendable, Equatable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var audioSeconds: Double
    public var characters: Int

    /// Creates a usage record.
    public init(inputTokens: Int = 0, outputTokens: Int = 0, audioSeconds: Double = 0, characters: Int = 0) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.audioSeconds = audioSeconds
        self.characters = characters
    }

    /// The metered part of a language model's usage (cached input billed as input).
    public init(_ usage: Usage) {
        self.init(inputTokens: usage.inputTokens, outputTokens: usage.outputTokens)
    }
}

/// A provider's prices in US dollars.
public struct Price: Sendable, Equatable, Codable {
    public var perMillionInputTokens: Double
    public var perMillionOutputTokens: Double
    public var perAudioMinute: Double
    public var perMillionCharacters: Double

    /// Creates a price; unset parts are free.
    public init(
        perMillionInputTokens: Double = 0, perMillionOutputTokens: Double = 0,
        perAudioMinute: Double = 0, perMillionCharacters: Double = 0
    ) {
        self.perMillionInputTokens = perMillionInputTokens
        self.perMillionOutputTokens = perMillionOutputTokens
        self.perAudioMinute = perAudioMinute
        self.perMillionCharacters = perMillionCharacters
    }

    /// The cost of `usage` at this price.
    public func cost(of usage: MeteredUsage) -> Double {
        Double(usage.inputTokens) * perMillionInputTokens / 1e6
            + Double(usage.outputTokens) * perMillionOutputTokens / 1e6
            + usage.audioSeconds / 60 * perAudioMinute
            + Double(usage.characters) * perMillionCharacters / 1e6
    }
}

/// Prices by provider name, from configuration. Providers without a price are free.
public struct PriceTable: Sendable, Equatable {
    public var prices: [String: Price]

    /// Creates a table.
    public init(_ prices: [String: Price] = [:]) {
        self.prices = prices
    }

    /// The cost of `usage` on `provider`.
    public func cost(of usage: MeteredUsage, on provider: String) -> Double {
        prices[provider]?.cost(of: usage) ?? 0
    }
}
