import ArgumentParser
import Foundation

/// `parley bench`: measures the pipeline against the engines called directly.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure per-stage timings against the engines called directly.")

    func run() async throws {
        throw ValidationError("parley bench is not available in this build yet; see Benchmarks/README.md.")
    }
}
