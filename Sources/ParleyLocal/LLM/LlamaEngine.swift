import ParleyCore

/// Whether llama.cpp is built into this program: on Linux always (the system library that
/// scripts/setup installs); on Apple platforms only with the `AppleEngines` package trait, which
/// links the ParleyEngines binary target.
enum LlamaEngine {
    #if canImport(CLlama) || canImport(ParleyEngines)
    static let isBuilt = true
    #else
    static let isBuilt = false
    #endif

    /// Why a llama.cpp provider is unavailable where the engine is not built.
    static let notBuiltReason = "llama.cpp is not built for this platform (an app enables Parley's AppleEngines trait for it)"
}

#if !(canImport(CLlama) || canImport(ParleyEngines))
// Where llama.cpp is not built (an Apple app without the AppleEngines trait), no model loads:
// every initializer throws, so the providers report themselves unavailable and chains answer
// with the next provider (Apple's own model, or a cloud one). The members mirror the real
// classes' so that the code around them compiles unchanged; none of them runs.

/// Stand-in for llama.cpp's loaded model (see LlamaModelHandle.swift).
final class LlamaModelHandle {
    init(path: String) throws(LlamaError) { throw .modelLoadFailed(path: path) }
    var description: String { "not built" }
}

/// Stand-in for a llama.cpp context (see LlamaSession.swift).
final class LlamaSession {
    private(set) var cachedTokens: [Int32] = []
    let contextLength: Int
    var modelDescription: String { "not built" }
    var templateHasToolCalls: Bool { false }
    private(set) var callOpeningTokens: Set<Int32> = []

    init(modelPath: String, contextLength: Int, threads: Int) throws(LlamaError) { throw .modelLoadFailed(path: modelPath) }

    func useThreads(_ threads: Int) {}
    func formatPrompt(_ messages: [ChatMessage]) throws(LlamaError) -> String { throw .chatTemplateUnavailable }
    func tokenize(_ text: String, addingStart: Bool = true) throws(LlamaError) -> [Int32] { throw .tokenizationFailed }
    func load(prompt: [Int32]) throws(LlamaError) -> Int { throw .decodeFailed(code: -1) }
    func keepCommonPrefix(with prompt: [Int32]) -> Int { 0 }
    func saveMemory(to path: String) -> Bool { false }
    func restoreMemory(from path: String, capacity: Int) -> [Int32]? { nil }
    func sharedPrefix(with prompt: [Int32]) -> Int { 0 }
    func evaluate(_ tokens: [Int32]) throws(LlamaError) { throw .decodeFailed(code: -1) }
    func endOfTurnProbability() -> Double { 0 }
    func sentenceEndProbability() -> Double { 0 }
    func probability(ofAnyOf tokens: Set<Int32>) -> Double { 0 }
    func firstTokens(of words: [String]) -> Set<Int32> { [] }
    func sample(with sampler: LlamaSampler) -> Int32 { 0 }
    func evaluate(_ token: Int32, drafts: [Int32], sampler: LlamaSampler) throws(LlamaError) -> [Int32] { throw .decodeFailed(code: -1) }
    func isControl(_ token: Int32) -> Bool { false }
    func isEndOfGeneration(_ token: Int32) -> Bool { true }
    func bytes(of token: Int32, special: Bool = false) -> [UInt8] { [] }
    func makeSampler(_ options: SamplingOptions, banning banned: Set<Int32>) throws(LlamaError) -> LlamaSampler { throw .grammarRejected }
    func makeSampler(_ options: SamplingOptions, grammar: JSONGrammar? = nil) throws(LlamaError) -> LlamaSampler { throw .grammarRejected }
}

/// Stand-in for a llama.cpp sampler chain (see LlamaSession.swift).
final class LlamaSampler {
    private(set) var resamples = 0
    var hasGrammar: Bool { false }
    private init() {}
}

/// Stand-in for a llama.cpp embedding context (see LlamaEmbeddingSession.swift).
final class LlamaEmbeddingSession {
    let batchTokens = 0
    let batchSequences = 0
    let dimensions = 0
    let tokensPerText = 0
    var modelDescription: String { "not built" }

    init(modelPath: String, threads: Int, tokensPerText: Int, batchSequences: Int = 16) throws(LlamaError) {
        throw .modelLoadFailed(path: modelPath)
    }

    func useThreads(_ threads: Int) {}
    func tokenize(_ text: String) throws(LlamaError) -> [Int32] { throw .tokenizationFailed }
    func embed(_ texts: [[Int32]]) throws(LlamaError) -> [[Float]] { throw .embeddingUnavailable }
}
#endif
