/// The defaults of what a language model declares beyond answering: a provider that answers
/// alone, in the cloud or another process, with no prompt evaluation or turn scoring of its own.
extension LanguageModelProvider {
    public var runsOnDevice: Bool { false }

    public var promptPrefiller: (any PromptPrefiller)? { nil }

    public var turnPredictor: (any TurnPredictor)? { nil }

    public func members(for request: ChatRequest) -> [any LanguageModelProvider] { [self] }

    public func answerer() async -> any LanguageModelProvider { self }

    public func failover(for request: ChatRequest) -> LanguageModelFailover? { nil }
}
