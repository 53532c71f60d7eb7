import Foundation
import ParleyCore
import ParleyTestServers
import Testing
@testable import ParleyCloud

/// Structured output on the wire: each provider sends the schema as its API documents, the
/// generator validates what comes back, repairs it once, and falls over when it stays wrong.
@Suite("Structured output over each provider's wire format")
struct StructuredOutputWireTests {
    static let city = JSONSchema.object([
        .init("city", .string(minLength: 1)),
        .init("country", .string()),
        .init("population", .integer(minimum: 0)),
    ])

    static func request(_ schema: JSONSchema = city) -> StructuredRequest {
        StructuredRequest(messages: [.user("The largest city of France, please.")], schema: schema, name: "city")
    }

    static func generator(_ providers: [any LanguageModelProvider]) -> StructuredGenerator<ContinuousClock> {
        StructuredGenerator(providers: providers, health: ProviderHealth(clock: ContinuousClock()))
    }

    /// An OpenAI stream whose content arrives in `pieces`.
    static func openAIStream(_ pieces: [String]) -> WireServer.Reply {
        let events =
            pieces.map { piece in
                (String?.none, #"{"choices":[{"index":0,"delta":{"content":\#(JSONValue.string(piece).text)},"finish_reason":null}]}"#)
            } + [(nil, #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":30,"completion_tokens":12}}"#), (nil, "[DONE]")]
        return .stream(contentType: "text/event-stream", chunks: chunked(sse(events), size: 13))
    }

    /// Anthropic's stream for a forced tool whose input arrives as `pieces`.
    static func anthropicToolStream(_ pieces: [String]) -> WireServer.Reply {
        var events: [(String?, String)] = [
            (
                "message_start",
                #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":40,"output_tokens":1}}}"#
            ),
            ("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"city","input":{}}}"#),
        ]
        events += pieces.map { piece in
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":\#(JSONValue.string(piece).text)}}"#
            )
        }
        events += [
            ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            ("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}"#),
            ("message_stop", #"{"type":"message_stop"}"#),
        ]
        return .stream(contentType: "text/event-stream", chunks: chunked(sse(events), size: 17))
    }

    @Test("Anthropic: the schema is a forced tool's input_schema, and the streamed tool input is the value")
    func anthropicForcedTool() async throws {
        let server = try await WireServer.start { _ in
            Self.anthropicToolStream(["", #"{"city": "Pa"#, #"ris", "country": "France", "#, #""population": 2102650}"#])
        }
        defer { server.stop() }
        let model = AnthropicLanguageModel(configuration: .init(baseURL: server.baseURL, apiKey: "sk-ant-test", model: "claude-test"))
        var partials: [JSONValue] = []
        var result: StructuredResult?
        for try await update in Self.generator([model]).stream(Self.request()) {
            switch update {
            case .partial(let value): partials.append(value)
            case .completed(let done): result = done
            default: break
            }
        }
        let value = try #require(result?.value)
        #expect(value == .object(["city": "Paris", "country": "France", "population": .number(2_102_650)]))
        #expect(result?.provider.name == "anthropic")
        #expect(partials.contains(.object(["city": "Pa"])), "the value streams as partial JSON")
        let body = try #require(await server.requests.first?.json)
        let tools = try #require(body["tools"] as? [[String: Any]])
        #expect(tools.count == 1)
        #expect(tools[0]["name"] as? String == "city")
        let schema = try #require(tools[0]["input_schema"] as? [String: Any])
        #expect(schema["type"] as? String == "object")
        #expect((schema["required"] as? [String]) == ["city", "country", "population"])
        let choice = try #require(body["tool_choice"] as? [String: Any])
        #expect(choice["type"] as? String == "tool" && choice["name"] as? String == "city")
        #expect((body["system"] as? String)?.contains("JSON schema") == true, "the schema is also an instruction")
    }

    @Test("Anthropic: a schema whose root is not an object is wrapped for the tool and unwrapped in the reply")
    func anthropicWrapped() async throws {
        let server = try await WireServer.start { _ in Self.anthropicToolStream([#"{"value": ["Paris", "#, #""Lyon"]}"#]) }
        defer { server.stop() }
        let model = AnthropicLanguageModel(configuration: .init(baseURL: server.baseURL, apiKey: "sk-ant-test", model: "claude-test"))
        let list = JSONSchema.array(of: .string(), minItems: 1, maxItems: 3)
        let result = try await Self.generator([model]).generate(Self.request(list))
        #expect(result.value == .array(["Paris", "Lyon"]))
        let body = try #require(await server.requests.first?.json)
        let schema = try #require((body["tools"] as? [[String: Any]])?.first?["input_schema"] as? [String: Any])
        #expect(((schema["properties"] as? [String: Any])?["value"] as? [String: Any])?["type"] as? String == "array")
    }

    @Test("OpenAI: response_format json_schema, strict only when the schema allows it")
    func openAIStrict() async throws {
        let server = try await WireServer.start { _ in Self.openAIStream([#"{"city":"Paris","country":"France","population":2102650}"#]) }
        defer { server.stop() }
        let model = OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test"))
        _ = try await Self.generator([model]).generate(Self.request())
        var optional = Self.city
        if case .object(var properties, _) = optional.kind {
            properties[2].isRequired = false
            optional.kind = .object(properties)
        }
        _ = try await Self.generator([model]).generate(Self.request(optional))
        let bodies = await server.requests.compactMap(\.json)
        #expect(bodies.count == 2)
        let formats = bodies.compactMap { $0["response_format"] as? [String: Any] }
        #expect(formats.map { $0["type"] as? String } == ["json_schema", "json_schema"])
        let schemas = formats.compactMap { $0["json_schema"] as? [String: Any] }
        #expect(schemas.map { $0["strict"] as? Bool } == [true, false])
        #expect(schemas.map { $0["name"] as? String } == ["city", "city"])
        #expect((schemas[0]["schema"] as? [String: Any])?["additionalProperties"] as? Bool == false)
    }

    @Test("an answer that breaks the schema is sent back once with what is wrong, and the corrected one is used")
    func repairRound() async throws {
        let server = try await WireServer.start { recorded in
            let messages = recorded.json?["messages"] as? [[String: Any]] ?? []
            // First answer: a fenced value missing a member; the repair round gets it right.
            return messages.count <= 2
                ? Self.openAIStream(["```json\n", #"{"city":"Paris","population":-5}"#, "\n```"])
                : Self.openAIStream([#"{"city":"Paris","country":"France","population":2102650}"#])
        }
        defer { server.stop() }
        let model = OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test"))
        var repairs: [[String]] = []
        var result: StructuredResult?
        for try await update in Self.generator([model]).stream(Self.request()) {
            if case .repairing(_, let complaints) = update { repairs.append(complaints) }
            if case .completed(let done) = update { result = done }
        }
        #expect(result?.repaired == true)
        #expect(result?.value["country"] == "France")
        #expect(repairs == [["$.country: is required but missing", "$.population: expected at least 0, got -5"]])
        let second = try #require(await server.requests.compactMap(\.json).last)
        let messages = try #require(second["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "user"])
        let complaint = try #require(messages.last?["content"] as? String)
        #expect(complaint.contains("$.country: is required but missing"))
    }

    @Test("a provider whose answers stay invalid falls over to the next, which serves")
    func failover() async throws {
        let prose = try await WireServer.start { _ in Self.openAIStream(["Paris is the largest city of France."]) }
        defer { prose.stop() }
        let line =
            #"{"message":{"role":"assistant","content":"{\"city\":\"Paris\",\"country\":\"France\",\"population\":2102650}"},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":9}"#
        let ollama = try await WireServer.start { recorded in
            recorded.path == "/api/tags"
                ? .json(200, #"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}"#)
                : .stream(contentType: "application/x-ndjson", chunks: [Data((line + "\n").utf8)])
        }
        defer { ollama.stop() }
        let first = OpenAILanguageModel(configuration: .init(baseURL: prose.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test"))
        let second = OllamaLanguageModel(configuration: .init(host: ollama.baseURL, model: "llama3.2"))
        var discarded: [String] = []
        var result: StructuredResult?
        for try await update in Self.generator([first, second]).stream(Self.request()) {
            if case .discarded(let provider, _) = update { discarded.append(provider.name) }
            if case .completed(let done) = update { result = done }
        }
        #expect(discarded == ["openai"])
        #expect(result?.provider.name == "ollama")
        #expect(result?.attempts.first?.reason.contains("broke the schema") == true)
        #expect(await prose.requests.filter { $0.path.hasSuffix("/chat/completions") }.count == 2, "one answer and one repair round")
        let format = try #require(await ollama.requests.last?.json?["format"] as? [String: Any])
        #expect(format["type"] as? String == "object")
    }

    @Test("when every provider fails, the error names each and why")
    func exhausted() async throws {
        let prose = try await WireServer.start { _ in Self.openAIStream(["Sorry, I cannot."]) }
        defer { prose.stop() }
        let model = OpenAILanguageModel(configuration: .init(baseURL: prose.baseURL + "/v1", apiKey: "sk-test", model: "gpt-test"))
        let keyless = AnthropicLanguageModel(configuration: .init(apiKey: nil))
        do {
            _ = try await Self.generator([keyless, model]).generate(Self.request())
            Issue.record("expected a failure")
        } catch let error as StructuredGenerationError {
            #expect(error.attempts.map(\.provider) == ["anthropic (claude-3-5-haiku-latest)", "openai (gpt-test)"])
            #expect(error.description.contains("the reply is not JSON"))
        }
    }
}
