import ParleyCore
import ParleyRuntime

extension ServerEnvironment {
    /// The model that answers `chat` under `selection`: the structured generator when a
    /// response schema asks for JSON (the schema as an instruction too, the answer validated,
    /// repaired or failed over before it is sent), else the language model or chain. The
    /// on-device engine says cheaply why it cannot serve (a missing model); a remote provider's
    /// check would cost a round trip, so its own error speaks instead. A request with images
    /// and no model that reads them is a 400 naming `param`.
    func languageModel(for chat: ChatRequest, selection: ProviderSelection, param: String) async throws -> any LanguageModelProvider {
        let llm: any LanguageModelProvider =
            chat.responseSchema != nil
            ? StructuredLanguageModel(generator: try await runtime.structuredGenerator(selection))
            : try await runtime.languageModel(selection)
        if selection == .local { try await ensureReady([llm]) }
        if chat.hasImages, !llm.capabilities.images {
            throw OpenAIError.invalidRequest(
                "No configured language model reads images; configure one that does (OPENAI_API_KEY, ANTHROPIC_API_KEY) or send text only.",
                param: param)
        }
        return llm
    }
}
