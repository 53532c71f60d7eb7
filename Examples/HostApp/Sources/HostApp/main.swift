// A text turn from Parley in a host app: the whole assistant from ParleyRuntime — settings from
// the environment and config.json, the provider chain (cloud → self-hosted → on-device), and the
// on-device model in Parley's data directory when nothing else is configured.
import ParleyCore
import ParleyRuntime

let runtime = try await Runtime.load()
let llm = try await runtime.languageModel()
let request = ChatRequest(
    messages: [.user("What is the capital of France?")],
    sampling: SamplingOptions(temperature: 0, maxTokens: 48))
print(try await llm.completeText(request).text)
