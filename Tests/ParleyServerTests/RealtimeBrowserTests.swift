import Foundation
import HTTPTypes
import ParleyCore
@testable import ParleyServer
import ParleyTesting
import Testing

/// What the browser client needs of `/v1/realtime` beyond OpenAI's protocol: the key as a
/// subprotocol, transcripts held for review (`create_response: false`) and sent corrected,
/// partial transcripts, and who answered in `response.done`.
@Suite("realtime for the browser client")
struct RealtimeBrowserTests {
    static var review: [String: Any] {
        [
            "type": "session.update",
            "session": [
                "audio": ["input": ["turn_detection": ["type": "server_vad", "silence_duration_ms": 600, "create_response": false]]],
                "parley": ["partial_transcript_interval_ms": 250],
            ],
        ]
    }

    @Test("the key as the subprotocol openai-insecure-api-key.KEY opens the upgrade, which chooses `realtime`; a wrong one is refused")
    func keyAsSubprotocol() async throws {
        let logs = LogCapture()
        let server = try await TestServer.start(settings: ["PARLEY_API_KEYS": "browser-key-42"], catalog: TestServer.scriptedCatalog(), logger: logs.logger())
        defer { server.stop() }
        let accepted = try await WebSocketUpgrade.request(
            port: server.port, headers: [("Sec-WebSocket-Protocol", "realtime, openai-insecure-api-key.browser-key-42")])
        #expect(accepted.status == 101)
        #expect(accepted.headers["sec-websocket-protocol"] == "realtime")
        let wrong = try await WebSocketUpgrade.request(
            port: server.port, headers: [("Sec-WebSocket-Protocol", "realtime, openai-insecure-api-key.browser-key-43")])
        #expect(wrong.status != 101 && wrong.status >= 400, "status \(wrong.status)")
        let none = try await WebSocketUpgrade.request(port: server.port, headers: [("Sec-WebSocket-Protocol", "realtime")])
        #expect(none.status != 101 && none.status >= 400, "status \(none.status)")
        // The subprotocol is for WebSockets: HTTP endpoints still want the Authorization header.
        expectOpenAIError(
            try await server.send(.GET, "/v1/models", headers: [("sec-websocket-protocol", "openai-insecure-api-key.browser-key-42")]),
            status: 401)
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = "realtime, openai-insecure-api-key.browser-key-42"
        try await RealtimeTestClient.with(server, headers: headers) { client in
            try await client.next("session.created", within: 10)
        }
        #expect(!logs.text.contains("browser-key"), "\(logs.text)")
    }

    @Test("a client that offers no subprotocol gets none chosen")
    func noSubprotocol() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let answer = try await WebSocketUpgrade.request(port: server.port, headers: [])
        #expect(answer.status == 101)
        #expect(answer.headers["sec-websocket-protocol"] == nil)
    }

    @Test("review: the transcript is held; the correction is what the model receives, and both are saved")
    func correctedTranscript() async throws {
        let model = ScriptedLanguageModel(replies: [["Paris", " is the capital."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send(Self.review)
            let updated = try await client.next("session.updated")
            let session = updated["session"] as? [String: Any]
            let detection = ((session?["audio"] as? [String: Any])?["input"] as? [String: Any])?["turn_detection"] as? [String: Any]
            #expect(detection?["create_response"] as? Bool == false)
            #expect((session?["parley"] as? [String: Any])?["partial_transcript_interval_ms"] as? Int == 250)
            try await client.append(question.followed(bySilence: 1.5))
            let partial = try await client.next("conversation.item.input_audio_transcription.delta")
            #expect((partial["parley"] as? [String: Any])?["transcript"] as? String == "hello there")
            let transcript = try await client.next("conversation.item.input_audio_transcription.completed")
            #expect(transcript["transcript"] as? String == "hello there")
            try await Task.sleep(for: .milliseconds(400))
            #expect(await !client.types().contains("response.created"), "answered before the review")
            try await client.send(["type": "parley.transcript.send", "text": "What is the capital of France?"])
            let done = try await client.next("response.done")
            let response = done["response"] as? [String: Any]
            #expect(response?["status"] as? String == "completed")
            let parley = response?["parley"] as? [String: Any]
            #expect(parley?["thread_id"] as? Int != nil, "\(parley ?? [:])")
            #expect((parley?["providers"] as? [String: Any])?["llm"] as? String == "scripted")
            #expect((parley?["latency_ms"] as? [String: Any])?["first_audio"] as? Double != nil)
        }
        let asked = await model.requests.last?.messages.last
        #expect(asked?.role == .user)
        #expect(asked?.text == "What is the capital of France?")
        let store = try await server.runtime.store()
        let thread = try #require(try await store.threads(owner: .local).first).thread.id
        let first = try #require(try await store.messages(in: thread, owner: .local).first)
        #expect(first.text == "What is the capital of France?")
        #expect(first.rawTranscript == "hello there")
        #expect(first.editedText == "What is the capital of France?")
    }

    @Test("review: response.create sends the transcript as heard; discard drops the turn; a decision with nothing to review is an error")
    func sendAsHeardAndDiscard() async throws {
        let model = ScriptedLanguageModel(replies: [["Fine."]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send(Self.review)
            try await client.next("session.updated")
            try await client.send(["type": "parley.transcript.discard", "event_id": "early"])
            let refused = try await client.next("error")
            #expect((refused["error"] as? [String: Any])?["code"] as? String == "no_transcript_to_review")

            try await client.append(question.followed(bySilence: 1.5))
            let first = try await client.next("conversation.item.input_audio_transcription.completed")
            try await client.send(["type": "parley.transcript.discard"])
            let deleted = try await client.next("conversation.item.deleted")
            #expect(deleted["item_id"] as? String == first["item_id"] as? String)

            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("conversation.item.input_audio_transcription.completed")
            try await client.send(["type": "response.create"])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
            let types = await client.types()
            #expect(types.filter { $0 == "response.created" }.count == 1, "\(types)")
        }
        #expect(await model.requests.count == 1)
        let store = try await server.runtime.store()
        let thread = try #require(try await store.threads(owner: .local).first).thread.id
        let messages = try await store.messages(in: thread, owner: .local)
        #expect(messages.map(\.text) == ["hello there", "Fine."])
        #expect(messages.first?.rawTranscript == "hello there" && messages.first?.editedText == nil)
    }

    @Test("review with a manual commit: response.create right after the commit waits for the transcript, then sends it")
    func commitThenCreate() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send([
                "type": "session.update",
                "session": [
                    "audio": [
                        "input": [
                            "turn_detection": [
                                "type": "server_vad", "silence_duration_ms": 10_000, "create_response": false,
                            ]
                        ]
                    ]
                ],
            ])
            try await client.next("session.updated")
            try await client.append(question)
            try await client.next("input_audio_buffer.speech_started")
            try await client.send(["type": "input_audio_buffer.commit"])
            try await client.send(["type": "response.create"])
            try await client.next("conversation.item.input_audio_transcription.completed")
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
        }
    }

    @Test("closing the connection while a transcript awaits review ends the session cleanly")
    func closeDuringReview() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let question = try RealtimeTests.question()
        try await RealtimeTestClient.with(server) { client in
            try await client.send(Self.review)
            try await client.append(question.followed(bySilence: 1.5))
            try await client.next("conversation.item.input_audio_transcription.completed")
        }
        // The server lives on, with nothing saved for the dropped turn.
        #expect(try await server.send(.GET, "/health").status == 200)
        let store = try await server.runtime.store()
        #expect(try await store.threads(owner: .local).isEmpty)
    }

    @Test(
        "the parley settings are checked",
        arguments: [
            #"{"type": "session.update", "session": {"parley": 3}}"#,
            #"{"type": "session.update", "session": {"parley": {"partial_transcript_interval_ms": 5}}}"#,
            #"{"type": "session.update", "session": {"turn_detection": {"type": "server_vad", "create_response": "no"}}}"#,
            #"{"type": "parley.transcript.send", "text": 4}"#,
            #"{"type": "parley.transcript.send", "text": "  "}"#,
        ])
    func invalidSettings(frame: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.sendText(frame)
            let error = try await client.next("error")
            #expect((error["error"] as? [String: Any])?["type"] as? String == "invalid_request_error", "\(error)")
        }
    }
}
