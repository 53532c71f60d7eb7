import Foundation
import ParleyCloud
import ParleyCore
import ParleyTesting
import Testing

extension OnDeviceServerTests {
    /// `POST /v1/chat/completions` answered by the on-device model (installed by scripts/setup).
    @Suite("chat completions on the on-device model")
    struct ChatCompletions {
        static var question: [String: Any] {
            [
                "model": "auto",
                "messages": [
                    ["role": "system", "content": "You are a helpful assistant."],
                    ["role": "user", "content": "What is the capital of France?"],
                ],
                "temperature": 0, "max_tokens": 48,
            ]
        }

        @Test("Parley's own OpenAI client streams the right answer from the server")
        func parleyClient() async throws {
            let server = try await TestServer.onDevice.value
            let client = OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "unused", model: "auto"))
            var pieces: [String] = []
            var finish: FinishReason?
            var usage = Usage()
            for try await event in client.complete(
                ChatRequest(
                    messages: [.system("You are a helpful assistant."), .user("What is the capital of France?")],
                    sampling: SamplingOptions(temperature: 0, maxTokens: 48)))
            {
                switch event {
                case .text(let piece): pieces.append(piece)
                case .finished(let reason, let reported): (finish, usage) = (reason, reported)
                case .provider, .toolCall, .toolCallDelta: break
                }
            }
            #expect(pieces.joined().contains("Paris"), "reply: \(pieces.joined())")
            #expect(pieces.count > 1, "the reply came in one piece")
            #expect(finish == .stop)
            #expect(usage.outputTokens > 0 && usage.inputTokens > 0)
        }

        @Test("a json_schema response format gives valid JSON with the schema's members in their order")
        func structured() async throws {
            let server = try await TestServer.onDevice.value
            let body =
                #"{"model": "auto", "temperature": 0, "max_tokens": 100, "messages": [{"role": "user", "content": "Maria is 34 and lives in Lisbon."}], "response_format": {"type": "json_schema", "json_schema": {"name": "person", "strict": true, "schema": {"type": "object", "additionalProperties": false, "required": ["zeta_name", "age", "alpha_city"], "properties": {"zeta_name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120}, "alpha_city": {"type": "string"}}}}}}"#
            let reply = try await server.send(.POST, "/v1/chat/completions", headers: [("content-type", "application/json")], body: Data(body.utf8))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["x-parley-provider"] == "llama.cpp")
            let message = try #require(((reply.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String)
            let value = try JSONValue(parsing: message)
            #expect(value.object?.keys == ["zeta_name", "age", "alpha_city"], "\(message)")
            #expect(value["age"]?.number.map { (0...120).contains($0) } == true)
        }

        @Test("a whole completion in OpenAI's shape, naming the provider that answered")
        func wholeCompletion() async throws {
            let server = try await TestServer.onDevice.value
            let reply = try await server.post("/v1/chat/completions", json: Self.question)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["x-parley-provider"] == "llama.cpp")
            let json = try #require(reply.json)
            #expect(json["object"] as? String == "chat.completion")
            #expect((json["id"] as? String)?.hasPrefix("chatcmpl-") == true)
            #expect(json["created"] is Int)
            let choice = try #require((json["choices"] as? [[String: Any]])?.first)
            let message = try #require(choice["message"] as? [String: Any])
            #expect(message["role"] as? String == "assistant")
            #expect((message["content"] as? String)?.contains("Paris") == true, "\(reply.text)")
            #expect(choice["finish_reason"] as? String == "stop")
            let usage = try #require(json["usage"] as? [String: Any])
            #expect((usage["completion_tokens"] as? Int ?? 0) > 0)
            #expect(usage["total_tokens"] as? Int == (usage["prompt_tokens"] as? Int ?? 0) + (usage["completion_tokens"] as? Int ?? 0))
        }

        @Test("instructions alone: the on-device model answers from the system text, on chat completions and Responses")
        func instructionsOnly() async throws {
            let server = try await TestServer.onDevice.value
            let system = "The user's name is Ada. Greet the user by name."
            let chat = try await server.post(
                "/v1/chat/completions",
                json: [
                    "model": "auto", "temperature": 0, "max_tokens": 24, "messages": [["role": "system", "content": system]],
                ])
            #expect(chat.status == 200, "\(chat.text)")
            #expect(chat.headers["x-parley-provider"] == "llama.cpp")
            let message = ((chat.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            #expect(message?.contains("Ada") == true, "\(chat.text)")
            let responses = try await server.post(
                "/v1/responses",
                json: [
                    "model": "auto", "temperature": 0, "max_output_tokens": 24, "store": false,
                    "input": [["role": "system", "content": system]],
                ])
            #expect(responses.status == 200, "\(responses.text)")
            #expect(responses.text.contains("Ada"), "\(responses.text)")
        }

        @Test("a stream: a role chunk, content chunks, a finish chunk, a usage chunk, then [DONE]")
        func streamShape() async throws {
            let server = try await TestServer.onDevice.value
            var body = Self.question
            body["stream"] = true
            body["stream_options"] = ["include_usage": true]
            let reply = try await server.post("/v1/chat/completions", json: body)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/event-stream")
            #expect(reply.headers["x-parley-provider"] == "llama.cpp")
            let payloads = events(in: reply.text)
            #expect(payloads.last == "[DONE]")
            let chunks = payloads.dropLast().compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
            #expect(chunks.count == payloads.count - 1, "every event but the last is JSON")
            #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
            func delta(_ chunk: [String: Any]) -> [String: Any]? { ((chunk["choices"] as? [[String: Any]])?.first)?["delta"] as? [String: Any] }
            #expect(delta(chunks[0])?["role"] as? String == "assistant")
            let text = chunks.compactMap { delta($0)?["content"] as? String }.joined()
            #expect(text.contains("Paris"), "reply: \(text)")
            let finishes = chunks.compactMap { ($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String }
            #expect(finishes == ["stop"])
            let usage = try #require(chunks.last?["usage"] as? [String: Any])
            #expect((chunks.last?["choices"] as? [Any])?.isEmpty == true)
            #expect((usage["completion_tokens"] as? Int ?? 0) > 0)
        }

        @Test("max_completion_tokens cuts the reply with finish_reason length")
        func lengthLimit() async throws {
            let server = try await TestServer.onDevice.value
            var body = Self.question
            body["max_tokens"] = nil
            body["max_completion_tokens"] = 2
            body["messages"] = [["role": "user", "content": "Write a long story about a dragon."]]
            let reply = try await server.post("/v1/chat/completions", json: body)
            #expect(reply.status == 200, "\(reply.text)")
            let choice = try #require((reply.json?["choices"] as? [[String: Any]])?.first)
            #expect(choice["finish_reason"] as? String == "length")
            #expect(((reply.json?["usage"] as? [String: Any])?["completion_tokens"] as? Int ?? 0) <= 2)
        }

        @Test("content as an array of text parts is read like a string")
        func textParts() async throws {
            let server = try await TestServer.onDevice.value
            var body = Self.question
            body["model"] = "local"
            body["messages"] = [["role": "user", "content": [["type": "text", "text": "What is the capital"], ["type": "text", "text": " of France?"]]]]
            let reply = try await server.post("/v1/chat/completions", json: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["x-parley-provider"] == "llama.cpp")
            let message = ((reply.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            #expect(message?.contains("Paris") == true, "\(reply.text)")
        }

        @Test("a cut-short image is a 400 saying so")
        func truncatedImage() async throws {
            let server = try await TestServer.onDevice.value
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).base64EncodedString()
            let reply = try await server.post(
                "/v1/chat/completions",
                json: [
                    "model": "auto",
                    "messages": [
                        [
                            "role": "user",
                            "content": [
                                ["type": "text", "text": "What is in the picture?"],
                                ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(png)"]],
                            ],
                        ]
                    ],
                ])
            expectOpenAIError(reply, status: 400, param: "messages[0].content[1]")
            #expect(reply.text.contains("is cut short"))
        }

        @Test("an image with no model that sees is answered from its text, read by Tesseract")
        func imageReadAsText() async throws {
            let server = try await TestServer.onDevice.value
            let page = RenderedPage(title: "The Water Cycle", paragraphs: ["Water evaporates from the oceans and rises as vapour."])
            let reply = try await server.post(
                "/v1/chat/completions",
                json: [
                    "model": "auto", "max_tokens": 24, "temperature": 0,
                    "messages": [
                        [
                            "role": "user",
                            "content": [
                                ["type": "text", "text": "What is the title of this page?"],
                                ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(try page.png().base64EncodedString())"]],
                            ],
                        ]
                    ],
                ])
            #expect(reply.status == 200, "\(reply.text)")
            let content = try #require(((reply.json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String)
            #expect(content.lowercased().contains("water cycle"), "answer: \(content)")
        }
    }
}
