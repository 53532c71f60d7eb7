import Foundation
import ParleyCore

/// Which providers each task prefers, in order (MirrorBuddy's AD-1).
///
/// Names are a provider's name (`anthropic`, `openai`, `ollama`, or an OpenAI-compatible
/// server's name), its full description (`openai (gpt-4o-mini)`), or `on-device` for the
/// in-process llama.cpp model. Providers a task does not list follow its listed ones, so a
/// task still gets done when none of its favourites is configured.
public struct TaskPolicy: Sendable, Equatable {
    /// Preferred providers per task.
    public var orders: [TaskKind: [String]]

    /// Creates a policy.
    public init(orders: [TaskKind: [String]]) {
        self.orders = orders
    }

    /// The defaults: mind maps and task breakdowns on the model best at structure
    /// (Anthropic, then OpenAI, then on-device); simplification on-device first (the text
    /// may be a student's own), then Anthropic; extraction, summaries and resolve on the
    /// cloud models, then Ollama, then on-device; images (homework photographed) to OpenAI,
    /// then Anthropic, then Ollama's vision models.
    public static let standard = TaskPolicy(orders: [
        .vision: ["openai", "anthropic", "ollama", "on-device"],
        .mindMap: ["anthropic", "openai", "on-device"],
        .taskBreakdown: ["anthropic", "openai", "on-device"],
        .simplification: ["on-device", "anthropic"],
        .entityExtraction: ["openai", "anthropic", "ollama", "on-device"],
        .summary: ["openai", "anthropic", "ollama", "on-device"],
        .resolve: ["openai", "anthropic", "ollama", "on-device"],
        .structuredOutput: ["openai", "anthropic", "ollama", "on-device"],
    ])

    /// The standard policy with the orders in `text` replacing its own, e.g.
    /// `mind_map=openai,on-device; simplification=on-device` (the `PARLEY_TASK_ORDER` setting).
    ///
    /// - Throws: ``TaskPolicyError`` naming an unknown task or an empty order.
    public init(parsing text: String, base: TaskPolicy = .standard) throws(TaskPolicyError) {
        var orders = base.orders
        for entry in text.split(whereSeparator: { $0 == ";" || $0 == "\n" }) {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let task = TaskKind(rawValue: parts[0]) else {
                throw TaskPolicyError(entry: String(entry).trimmingCharacters(in: .whitespaces))
            }
            let names = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw TaskPolicyError(entry: String(entry)) }
            orders[task] = names
        }
        self.init(orders: orders)
    }

    /// `providers` in the order `task` prefers, with the rules that made it.
    public func order(for task: TaskKind, among providers: [any LanguageModelProvider]) -> (providers: [any LanguageModelProvider], rules: [String]) {
        guard let preferred = orders[task] ?? orders[.structuredOutput] else {
            return (providers, ["\(task.rawValue): the configured order"])
        }
        var ordered: [any LanguageModelProvider] = []
        var taken = Set<Int>()
        for name in preferred {
            for (index, provider) in providers.enumerated() where !taken.contains(index) && Self.matches(provider.identity, name) {
                ordered.append(provider)
                taken.insert(index)
            }
        }
        let rest = providers.indices.filter { !taken.contains($0) }.map { providers[$0] }
        var rule = "\(task.rawValue) prefers \(preferred.joined(separator: " → "))"
        let missing = preferred.filter { name in !providers.contains { Self.matches($0.identity, name) } }
        if !missing.isEmpty { rule += " (not configured: \(missing.joined(separator: ", ")))" }
        if !rest.isEmpty { rule += ", then \(rest.map(\.identity.description).joined(separator: ", "))" }
        return (ordered + rest, [rule])
    }

    static func matches(_ identity: ProviderIdentity, _ name: String) -> Bool {
        if name == "on-device" { return identity.name == "llama.cpp" }
        return identity.name == name || identity.description == name
    }
}

/// A task order that cannot be read.
public struct TaskPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The entry that is wrong.
    public var entry: String

    public var description: String {
        "Cannot read the task order \"\(entry)\": write TASK=PROVIDER,PROVIDER (tasks: "
            + TaskKind.allCases.map(\.rawValue).joined(separator: ", ") + "; providers: anthropic, openai, ollama, on-device, …)."
    }
}
