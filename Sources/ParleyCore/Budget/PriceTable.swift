/// What a request used, in the units providers bill by.
public struct MeteredUsage: Sendable, Equatable {
    /// Tokens read (the prompt).
    public var inputTokens: Int
    /// Tokens written.
    public var outputTokens: Int
    /// Seconds of audio heard or spoken.
    public var audioSeconds: Double
    /// Characters of text spoken.
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
    /// Dollars per million prompt tokens.
    public var perMillionInputTokens: Double
    /// Dollars per million tokens written.
    public var perMillionOutputTokens: Double
    /// Dollars per minute of audio.
    public var perAudioMinute: Double
    /// Dollars per million characters spoken.
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
    /// The prices, by provider name.
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
