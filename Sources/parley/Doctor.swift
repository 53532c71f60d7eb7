import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime

/// `parley doctor`: each capability's chain, each provider's availability and why, and what
/// a request would use right now.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each capability's provider chain, why each provider can or cannot serve, and what a request would use now.")

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() async throws {
        common.bootstrapLogging()
        let runtime: Runtime<ContinuousClock>
        do { runtime = try await common.runtime() } catch { throw fail(error) }
        let settings = runtime.settings
        let report = await runtime.report().map { capability in
            var capability = capability
            capability.chain = capability.chain.map { entry in
                // A missing on-device model: the command line's own remedy.
                var entry = entry
                if let remedy = entry.remedy,
                    case .missingModel(_, let hint) = commandLineRemedy(.missingModel(path: "", hint: remedy), provider: entry.provider),
                    hint != remedy
                {
                    entry.reason = entry.reason.replacingOccurrences(of: remedy, with: hint)
                    entry.remedy = hint
                }
                return entry
            }
            return capability
        }
        let embeddings = await runtime.embeddingReport()
        let resources = await DeviceServices.resources()
        let settingsFile = settings.file.path
        if json {
            struct Resources: Encodable {
                var available_memory_mb: UInt64?
                var total_memory_mb: UInt64?
                var memory_pressure_percent: Double?
                var thermal_state: String?
            }
            struct Report: Encodable {
                var capabilities: [CapabilityReport]
                var embeddings: [ProviderReport]
                var resources: Resources
                var settings_file: String
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let document = Report(
                capabilities: report,
                embeddings: embeddings,
                resources: Resources(
                    available_memory_mb: resources.availableMemory.map { $0 >> 20 },
                    total_memory_mb: resources.totalMemory.map { $0 >> 20 },
                    memory_pressure_percent: resources.memoryPressure,
                    thermal_state: resources.thermalState?.description),
                settings_file: settingsFile)
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
            return
        }
        var machine = "Machine: "
        if let available = resources.availableMemory, let total = resources.totalMemory {
            machine += "\(available >> 20) MB of \(total >> 20) MB memory free"
        }
        if let pressure = resources.memoryPressure { machine += String(format: ", memory pressure %.1f%%", pressure) }
        if let thermal = resources.thermalState { machine += ", thermal state \(thermal)" }
        print(machine)
        print("Settings: environment, then \(settingsFile)\(FileManager.default.fileExists(atPath: settingsFile) ? "" : " (none)")")
        if let choice = runtime.languageModelChoice {
            print("On-device language model: \(choice.path.lastPathComponent) — \(choice.reason) (parley models list)")
        }
        if let choice = runtime.speechModelChoice {
            print("On-device ears: \(choice.model?.id ?? choice.path.lastPathComponent) — \(choice.reason)")
        }
        if let budget = settings.budget {
            print(String(format: "Budget: $%.2f a month, alert at $%.2f; charges kept in %@", budget.monthly, budget.alert, runtime.databaseURL.path))
        }
        let chains =
            report.map { ("\($0.capability)", $0.chain, $0.uses) }
            + [("Embeddings", embeddings, embeddings.first(where: \.available)?.provider)]
        for (capability, chain, uses) in chains {
            print("\(capability): uses \(uses ?? "nothing — no provider can serve")")
            for entry in chain {
                let mark = entry.available ? "✓" : "·"
                let place = entry.placement.rawValue
                let fix = entry.remedy.flatMap { entry.reason.contains($0) ? nil : " → \($0)" } ?? ""
                print("  \(mark) \(entry.provider) [\(place)]: \(entry.reason)\(fix)")
            }
        }
    }
}
