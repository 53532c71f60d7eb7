// A text turn from Parley in a host app: the on-device language model, with the default model
// in Parley's data directory (ParleyPaths.current()).
import ParleyCore
import ParleyLocal

let engines = LocalEngines()
let request = ChatRequest(messages: [.user("What is the capital of France?")],
                          sampling: SamplingOptions(temperature: 0, maxTokens: 48))
let answer = try await engines.llm.completeText(request).text
print(answer)
