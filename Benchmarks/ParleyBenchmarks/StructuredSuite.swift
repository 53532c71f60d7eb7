import Foundation
import ParleyCore
import ParleyLocal
import ParleyModels

// MARK: structured

/// Grammar-constrained against free generation on the on-device models, on the shared test
/// set (Benchmarks/structured/cases.json): decode speed (tokens per second after the first
/// token) and the share of replies that are schema-valid JSON. Both modes get the same
/// prompt, the schema instruction included; only the grammar differs.
func structuredSuite() async throws {
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let data = try Data(contentsOf: root.appendingPathComponent("Benchmarks/structured/cases.json"))
    let cases: [(name: String, prompt: String, schema: JSONSchema)] = try (JSONValue(parsing: data).array ?? []).map { item in
        (item["name"]?.string ?? "?", item["prompt"]?.string ?? "", try JSONSchema(json: item["schema"] ?? .null))
    }
    let paths = ParleyPaths.current()
    let choice = LanguageModelChoice.resolve(setting: nil, folder: paths.models)
    var models = [("SmolLM2-135M", paths.defaultLanguageModel)]
    if choice.path != paths.defaultLanguageModel { models.append((choice.model?.id ?? choice.path.lastPathComponent, choice.path)) }
    print("structured output: \(cases.count) schemas, greedy, each model warmed up first")
    for (label, path) in models where FileManager.default.fileExists(atPath: path.path) {
        let model = LlamaLanguageModel(configuration: .init(modelPath: path.path, contextLength: 2048, threads: ProcessInfo.processInfo.activeProcessorCount))
        try await model.load()
        var rates: [String: [Double]] = ["grammar": [], "free": []]
        var valid: [String: Int] = ["grammar": 0, "free": 0]
        var rejected = 0, proposed = 0
        for item in cases {
            let messages: [ChatMessage] = [.system("You produce accurate, concise structured data.\n\n" + item.schema.instruction), .user(item.prompt)]
            for mode in ["free", "grammar"] {
                let schema = mode == "grammar" ? ResponseSchema(name: item.name, schema: item.schema.json) : nil
                let request = ChatRequest(messages: messages, sampling: SamplingOptions(temperature: 0, maxTokens: 400), responseSchema: schema)
                let clock = ContinuousClock()
                var first: ContinuousClock.Instant?
                var text = ""
                var tokens = 0
                for try await event in model.complete(request) {
                    switch event {
                    case .text(let piece):
                        if first == nil { first = clock.now }
                        text += piece
                    case .finished(_, let usage): tokens = usage.outputTokens
                    case .provider, .toolCall, .toolCallDelta: break
                    }
                }
                if let first, tokens > 1 {
                    let seconds = Double((clock.now - first).components.attoseconds) / 1e18 + Double((clock.now - first).components.seconds)
                    if seconds > 0 { rates[mode, default: []].append(Double(tokens - 1) / seconds) }
                }
                if (try? item.schema.value(in: text)) != nil { valid[mode, default: 0] += 1 }
                if mode == "grammar" {
                    rejected += await model.lastGrammarResamples
                    proposed += tokens
                }
            }
        }
        let constrained = median(rates["grammar"] ?? []), free = median(rates["free"] ?? [])
        print(
            "  \(label): grammar \(String(format: "%.1f", constrained)) tok/s vs free \(String(format: "%.1f", free)) tok/s (ratio \(String(format: "%.2f", free > 0 ? constrained / free : 0)));"
                + " schema-valid \(valid["grammar"] ?? 0)/\(cases.count) with the grammar vs \(valid["free"] ?? 0)/\(cases.count) without;"
                + " the grammar rejected \(rejected) of \(proposed) proposed tokens")
        await model.unload()
    }
}
