import Crypto
import Foundation
import ParleyTestServers
import ParleyTestLanes
import Testing

@Suite("parley models pull hf.co/…", .onDeviceEngines)
struct HubCLITests {
    @Test("a gated GGUF is refused without HF_TOKEN, pulled with it from HF_ENDPOINT, and listed among the other files")
    func pullsFromTheHub() async throws {
        let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let sha = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let hub = try await HubServer.start()
        defer { hub.stop() }
        hub.add(repository: "someone/Tiny-GGUF", files: ["Tiny-Q4_K_M.gguf": data, "Tiny-Q8_0.gguf": Data(count: 10)], gated: true)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hub-cli-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["PARLEY_HOME": home.path, "HF_ENDPOINT": hub.baseURL, "HF_TOKEN": ""]

        let refused = try await CLI.run(["models", "pull", "hf.co/someone/Tiny-GGUF", "--quiet"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("set HF_TOKEN"))

        let pulled = try await CLI.run(
            ["models", "pull", "hf.co/someone/Tiny-GGUF", "--quiet"],
            environment: environment.merging(["HF_TOKEN": hub.token]) { $1 })
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let file = home.appendingPathComponent("models/Tiny-Q4_K_M.gguf")
        #expect(try Data(contentsOf: file) == data)
        #expect(pulled.stdout.contains("verified (SHA-256 \(sha), hf.co/someone/Tiny-GGUF/Tiny-Q4_K_M.gguf at "))
        #expect(!(pulled.stdout + pulled.stderr).contains(hub.token))

        let list = try await CLI.run(["models", "list"], environment: environment)
        #expect(list.stdout.contains("other file: \(file.path)"))

        let bad = try await CLI.run(["models", "pull", "hf.co/someone"], environment: environment)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("not a hub reference"))
    }
}
