import Foundation
import ParleyCore
import ParleyRuntime
@testable import ParleyServer
import ParleyTesting
import Testing

/// How an OpenAI request becomes the ``ChatRequest`` a provider sees (on a test double).
@Suite("chat requests: OpenAI's fields as Parley reads them")
struct ChatTranslationTests {
    @Test("image_url data URLs become image parts; system and developer messages lead; sampling fields carry over")
    func translation() async throws {
        let model = ScriptedLanguageModel(replies: [["It is a cat."]], supportsImages: true)
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let png = TestImages.onePixelPNG
        let reply = try await server.post(
            "/v1/chat/completions",
            json: [
                "model": "gpt-4o-mini",
                "messages": [
                    ["role": "system", "content": "Be brief."],
                    [
                        "role": "user",
                        "content": [
                            ["type": "text", "text": "What is this?"],
                            ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(png.base64EncodedString())", "detail": "low"]],
                        ],
                    ],
                    ["role": "assistant", "content": NSNull()],
                    ["role": "developer", "content": "Answer in English."],
                    ["role": "user", "content": "And now?"],
                ],
                "temperature": 0.5, "top_p": 0.8, "max_completion_tokens": 77, "stop": "END", "seed": 7,
            ])
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.headers["x-parley-provider"] == "scripted")
        let request = try #require(await model.requests.first)
        #expect(request.messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(request.messages[0].text == "Be brief.\n\nAnswer in English.")
        #expect(request.messages[1].parts == [.text("What is this?"), .image(data: png, mimeType: "image/png")])
        #expect(request.messages[2].text == "")
        #expect(request.sampling.temperature == 0.5 && request.sampling.topP == 0.8)
        #expect(request.sampling.maxTokens == 77 && request.sampling.stop == ["END"] && request.sampling.seed == 7)
        #expect(request.task == .vision)
    }

    @Test("json_schema response formats reach the provider as a schema, with the schema as an instruction")
    func schema() async throws {
        let model = ScriptedLanguageModel(replies: [["{\"city\":\"Paris\"}"]], capabilities: LanguageModelCapabilities(jsonSchema: true))
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let reply = try await server.post(
            "/v1/chat/completions",
            json: [
                "messages": [["role": "user", "content": "Capital of France as JSON"]],
                "response_format": [
                    "type": "json_schema",
                    "json_schema": [
                        "name": "capital", "schema": ["type": "object", "properties": ["city": ["type": "string"]]], "strict": true,
                    ],
                ],
            ])
        #expect(reply.status == 200, "\(reply.text)")
        let request = try #require(await model.requests.first)
        #expect(request.responseSchema?.name == "capital")
        #expect(request.responseSchema?.schema["properties"]?["city"]?["type"] == .string("string"))
        #expect(request.task == .structuredOutput)
        #expect(request.messages.first?.text.contains("It must follow this JSON schema") == true)
    }

    @Test("an answer that breaks the schema is repaired before the client sees it")
    func schemaRepair() async throws {
        let model = ScriptedLanguageModel(
            replies: [["The capital is Paris."], ["{\"city\": ", "\"Paris\"}"]],
            capabilities: LanguageModelCapabilities(jsonSchema: true))
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let body =
            #"{"messages": [{"role": "user", "content": "Capital of France?"}], "stream": true, "response_format": {"type": "json_schema", "json_schema": {"name": "capital", "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}}"#
        let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
        #expect(reply.status == 200)
        let content = reply.text.split(separator: "\n").filter { $0.hasPrefix("data: {") }.compactMap { line -> String? in
            let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            return ((json?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String
        }.joined()
        #expect(content == #"{"city":"Paris"}"#, "the client gets only the valid value: \(reply.text)")
        #expect(await model.requests.count == 2)
    }

    @Test(
        "what cannot be honoured is a 400 naming the field",
        arguments: [
            (#"{"messages": []}"#, "messages"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "n": 2}"#, "n"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "temperature": 3}"#, "temperature"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 0}"#, "max_tokens"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "stop": ["a", "b", "c", "d", "e"]}"#, "stop"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]}"#, "tools[0]"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "a b"}}]}"#, "tools[0].function"),
            (#"{"messages": [{"role": "user", "content": "hi"}], "tool_choice": "required"}"#, "tool_choice"),
            (#"{"messages": [{"role": "tool", "content": "hi"}]}"#, "messages[0].tool_call_id"),
            (#"{"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "hi"}]}"#, "messages[1].tool_call_id"),
            (#"{"messages": [{"role": "function", "content": "hi"}]}"#, "messages[0].role"),
            (#"{"messages": [{"role": "system", "content": ""}]}"#, "messages"),
            (#"{"messages": [{"role": "user", "content": [{"type": "input_audio"}]}]}"#, "messages[0].content[0]"),
            (
                #"{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}"#,
                "messages[0].content[0]"
            ),
            (
                #"{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,!!!"}}]}]}"#,
                "messages[0].content[0]"
            ),
            (#"{"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "yaml"}}"#, "response_format"),
        ])
    func refused(body: String, param: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
        expectOpenAIError(reply, status: 400, param: param)
    }

    @Test("instructions alone are a request, as OpenAI takes them: the model speaks first")
    func systemOnly() async throws {
        let model = ScriptedLanguageModel(replies: [["Hello, Ada!"]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let reply = try await server.post("/v1/chat/completions", json: ["messages": [["role": "system", "content": "Greet the user, Ada, by name."]]])
        #expect(reply.status == 200, "\(reply.text)")
        let sent = await model.requests.first?.messages
        #expect(sent?.map(\.role) == [.system] && sent?.first?.text == "Greet the user, Ada, by name.")
    }

    @Test("the model name picks the provider: auto and unknown names are the chain, catalog names select one")
    func modelNames() {
        let catalog = ProviderCatalog.standard
        #expect(ModelResolution.selection(for: "auto", capability: .languageModel, catalog: catalog) == .auto)
        #expect(ModelResolution.selection(for: "gpt-4o-mini", capability: .languageModel, catalog: catalog) == .auto)
        #expect(ModelResolution.selection(for: nil, capability: .languageModel, catalog: catalog) == .auto)
        #expect(ModelResolution.selection(for: "local", capability: .languageModel, catalog: catalog) == .local)
        #expect(ModelResolution.selection(for: "ollama", capability: .languageModel, catalog: catalog) == .named("ollama"))
        #expect(ModelResolution.selection(for: "ollama/llama3.2:1b", capability: .languageModel, catalog: catalog) == .named("ollama", model: "llama3.2:1b"))
        #expect(ModelResolution.selection(for: "meta/llama", capability: .languageModel, catalog: catalog) == .auto)
    }
}
