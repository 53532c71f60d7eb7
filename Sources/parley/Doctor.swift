import ArgumentParser
import Foundation
import ParleyCloud
import ParleyCore
import ParleyLocal

/// `parley doctor`: each capability's chain, each provider's availability and why, and what
/// a request would use right now.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each capability's provider chain, why each provider can or cannot serve, and what a request would use now.")

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var common: CommonOptions

    struct Entry: Encodable {
        var provider: String
        var local: Bool
        var configured: Bool
        var available: Bool
        var reason: String
        var remedy: String?
    }

    struct Capability: Encodable {
        var capability: String
        var chain: [Entry]
        var uses: String?
    }

    func run() async throws {
        common.bootstrapLogging()
        let engines = LocalEngines(overrides: common.overrides)
        let settings: Settings
        do { settings = try await Settings.load() } catch { throw fail(error) }
        let cloud = settings.cloud
        let configuredNames = { (providers: [any Provider]) in Set(providers.map(\.identity.description)) }
        let report = [
            await capability("LLM", cloud.allLanguageModels() + [engines.llm],
                             configured: configuredNames(cloud.configuredLanguageModels()).union([engines.llm.identity.description]),
                             hints: ["ollama": "set OLLAMA_HOST (and OLLAMA_MODEL)"]),
            await capability("STT", cloud.allSpeechToText() + [engines.stt],
                             configured: configuredNames(cloud.configuredSpeechToText()).union([engines.stt.identity.description])),
            await capability("TTS", cloud.allTextToSpeech() + [engines.tts],
                             configured: configuredNames(cloud.configuredTextToSpeech()).union([engines.tts.identity.description]),
                             hints: ["piper": "set PIPER_BASE_URL"]),
            await capability("VAD", engines.voiceActivityDetector().detectors,
                             configured: Set(engines.voiceActivityDetector().detectors.map(\.identity.description))),
        ]
        let resources = await SystemResourceMonitor().snapshot()
        let settingsFile = Settings.file(environment: ProcessInfo.processInfo.environment).path
        if json {
            struct Resources: Encodable {
                var available_memory_mb: UInt64?
                var total_memory_mb: UInt64?
                var memory_pressure_percent: Double?
                var thermal_state: String?
            }
            struct Report: Encodable {
                var capabilities: [Capability]
                var resources: Resources
                var settings_file: String
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let document = Report(
                capabilities: report,
                resources: Resources(available_memory_mb: resources.availableMemory.map { $0 >> 20 },
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
        if let budget = settings.budget {
            print(String(format: "Budget: $%.2f a month, alert at $%.2f; charges kept in %@", budget.monthly, budget.alert, settings.database.path))
        }
        for capability in report {
            print("\(capability.capability): uses \(capability.uses ?? "nothing — no provider can serve")")
            for entry in capability.chain {
                let mark = entry.available ? "✓" : "·"
                let place = entry.local ? "on-device/self-hosted" : "cloud"
                let fix = entry.remedy.flatMap { entry.reason.contains($0) ? nil : " → \($0)" } ?? ""
                print("  \(mark) \(entry.provider) [\(place)]: \(entry.reason)\(fix)")
            }
        }
    }

    private func capability(_ name: String, _ providers: [any Provider], configured: Set<String>, hints: [String: String] = [:]) async -> Capability {
        var entries: [Entry] = []
        for provider in providers {
            let id = provider.identity.description
            let isConfigured = configured.contains(id)
            var availability = Availability.unsupported(reason: "not configured")
            var remedy = hints[provider.identity.name]
            if isConfigured || hints[provider.identity.name] == nil {
                availability = commandLineRemedy(await provider.availability(), of: provider)
                remedy = availability.remedy
            }
            entries.append(Entry(provider: id, local: provider.identity.isLocal, configured: isConfigured,
                                 available: isConfigured && availability.isReady,
                                 reason: availability.isReady && !isConfigured ? "not configured" : availability.description, remedy: remedy))
        }
        return Capability(capability: name, chain: entries, uses: entries.first(where: \.available)?.provider)
    }
}
