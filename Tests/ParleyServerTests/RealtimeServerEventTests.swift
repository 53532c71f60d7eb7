import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// The realtime server events, typed: each encodes to the bytes the untyped events were sent
/// as (fields in their order, then `type` and `event_id`), with beta names as an option.
@Suite("realtime server events, typed")
struct RealtimeServerEventTests {
    static let spokenItem = RealtimeItem.message(
        id: "item_2", role: "user", status: "completed",
        content: [.audio(kind: "input_audio", transcript: nil)])
    static let spokenJSON =
        #"{"id":"item_2","object":"realtime.item","type":"message","role":"user","status":"completed","content":[{"type":"input_audio","transcript":null}]}"#

    @Test("representative events encode byte for byte as before")
    func bytes() throws {
        let cases: [(RealtimeServerEvent, String)] = [
            (
                .speechStarted(.init(audioStartMs: 1_250, itemID: "item_1")),
                #"{"audio_start_ms":1250,"item_id":"item_1","type":"input_audio_buffer.speech_started","event_id":"event_9"}"#
            ),
            (.inputAudioBufferCleared, #"{"type":"input_audio_buffer.cleared","event_id":"event_9"}"#),
            (
                .inputAudioBufferCommitted(.init(previousItemID: nil, itemID: "item_2")),
                #"{"previous_item_id":null,"item_id":"item_2","type":"input_audio_buffer.committed","event_id":"event_9"}"#
            ),
            (
                .itemAdded(.init(previousItemID: "item_1", item: Self.spokenItem)),
                #"{"previous_item_id":"item_1","item":"# + Self.spokenJSON + #","type":"conversation.item.added","event_id":"event_9"}"#
            ),
            (.itemDone(.init(item: Self.spokenItem)), #"{"item":"# + Self.spokenJSON + #","type":"conversation.item.done","event_id":"event_9"}"#),
            (
                .itemDone(.init(previousItemID: nil, item: .functionCallOutput(id: "item_5", callID: "call_1", output: "42"))),
                #"{"previous_item_id":null,"item":{"id":"item_5","object":"realtime.item","type":"function_call_output","call_id":"call_1","output":"42"},"type":"conversation.item.done","event_id":"event_9"}"#
            ),
            (
                .itemTruncated(.init(itemID: "item_3", audioEndMs: 800)),
                #"{"item_id":"item_3","content_index":0,"audio_end_ms":800,"type":"conversation.item.truncated","event_id":"event_9"}"#
            ),
            (
                .transcriptionDelta(.init(itemID: "item_2", delta: " there", parley: .init(transcript: "hello there"))),
                #"{"item_id":"item_2","content_index":0,"delta":" there","parley":{"transcript":"hello there"},"type":"conversation.item.input_audio_transcription.delta","event_id":"event_9"}"#
            ),
            (
                .outputAudioTranscriptDelta(.init(.init(responseID: "resp_1", itemID: "item_3"), delta: "Par\"is\n")),
                #"{"response_id":"resp_1","item_id":"item_3","output_index":0,"content_index":0,"delta":"Par\"is\n","type":"response.output_audio_transcript.delta","event_id":"event_9"}"#
            ),
            (
                .contentPartAdded(.init(.init(responseID: "resp_1", itemID: "item_3"), part: .reply("", textOnly: true))),
                #"{"response_id":"resp_1","item_id":"item_3","output_index":0,"content_index":0,"part":{"type":"text","text":""},"type":"response.content_part.added","event_id":"event_9"}"#
            ),
            (
                .functionCallArgumentsDone(.init(responseID: "resp_1", itemID: "item_4", outputIndex: 1, callID: "call_1", name: "add", arguments: "{}")),
                #"{"response_id":"resp_1","item_id":"item_4","output_index":1,"call_id":"call_1","name":"add","arguments":"{}","type":"response.function_call_arguments.done","event_id":"event_9"}"#
            ),
            (
                .outputItemAdded(
                    .init(
                        responseID: "resp_1", outputIndex: 1,
                        item: .functionCall(id: "item_4", status: "in_progress", name: "add", callID: "call_1", arguments: ""))),
                #"{"response_id":"resp_1","output_index":1,"item":{"id":"item_4","object":"realtime.item","type":"function_call","status":"in_progress","name":"add","call_id":"call_1","arguments":""},"type":"response.output_item.added","event_id":"event_9"}"#
            ),
            (
                .error(.init(RealtimeProtocolError(code: "invalid_value", message: "No.", param: "session.voice"), eventID: nil)),
                #"{"error":{"type":"invalid_request_error","code":"invalid_value","message":"No.","param":"session.voice","event_id":null},"type":"error","event_id":"event_9"}"#
            ),
            (.responsePaused(.init(responseID: nil, itemID: "item_7")), #"{"item_id":"item_7","type":"parley.response.paused","event_id":"event_9"}"#),
            (
                .responsePaused(.init(responseID: "resp_1", itemID: "item_7")),
                #"{"response_id":"resp_1","item_id":"item_7","type":"parley.response.paused","event_id":"event_9"}"#
            ),
            (
                .responseResumed(.init(itemID: "item_7", transcript: nil, responseID: "resp_1")),
                #"{"item_id":"item_7","transcript":null,"response_id":"resp_1","type":"parley.response.resumed","event_id":"event_9"}"#
            ),
            (
                .rateLimitsUpdated(.init(rateLimits: [["name": "requests", "limit": 60, "remaining": 59, "reset_seconds": 0.5]])),
                #"{"rate_limits":[{"name":"requests","limit":60,"remaining":59,"reset_seconds":0.5}],"type":"rate_limits.updated","event_id":"event_9"}"#
            ),
        ]
        for (event, expected) in cases {
            #expect(event.text(eventID: "event_9") == expected)
        }
    }

    @Test("a response: in progress, out of band, and done with usage and Parley's extension")
    func responses() {
        let reply = RealtimeItem.message(id: "item_3", role: "assistant", status: "completed", content: [.reply("Paris.", textOnly: false, output: true)])
        var response = RealtimeResponse(id: "resp_1", status: "in_progress", output: [], outputModalities: ["audio"], conversationID: "sess_1", metadata: nil)
        #expect(
            RealtimeServerEvent.responseCreated(.init(response: response)).text(eventID: "e")
                == #"{"response":{"id":"resp_1","object":"realtime.response","status":"in_progress","output":[],"output_modalities":["audio"],"conversation_id":"sess_1","metadata":null},"type":"response.created","event_id":"e"}"#
        )
        var outOfBand = response
        outOfBand.conversationID = nil
        outOfBand.metadata = ["topic": "summary"]
        #expect(
            RealtimeServerEvent.responseCreated(.init(response: outOfBand)).text(eventID: "e")
                == #"{"response":{"id":"resp_1","object":"realtime.response","status":"in_progress","output":[],"output_modalities":["audio"],"conversation_id":null,"metadata":{"topic":"summary"}},"type":"response.created","event_id":"e"}"#
        )
        response.status = "completed"
        response.output = [reply]
        response.usage = RealtimeResponse.Usage(Usage(inputTokens: 10, outputTokens: 3))
        response.parley = RealtimeResponse.ParleyTurn(
            threadID: 7, providers: ["llm": "scripted"], latencyMs: ["first_audio": 120], timingsMs: [:], interrupted: false, endOfTurn: nil,
            replyStartedEarly: false, tools: [.init(name: "clock", arguments: "{}", output: "12:00", isError: false, ms: 3)])
        let done = RealtimeServerEvent.responseDone(.init(response: response)).text(eventID: "e")
        #expect(
            done
                == #"{"response":{"id":"resp_1","object":"realtime.response","status":"completed","output":[{"id":"item_3","object":"realtime.item","type":"message","role":"assistant","status":"completed","content":[{"type":"output_audio","transcript":"Paris."}]}],"output_modalities":["audio"],"conversation_id":"sess_1","metadata":null,"usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13},"parley":{"thread_id":7,"providers":{"llm":"scripted"},"latency_ms":{"first_audio":120},"timings_ms":{},"interrupted":false,"end_of_turn":null,"reply_started_early":false,"tools":[{"name":"clock","arguments":"{}","output":"12:00","is_error":false,"ms":3}]}},"type":"response.done","event_id":"e"}"#
        )
    }

    @Test("beta clients get the beta names of renamed events, and no conversation.item.done")
    func betaNames() {
        let ref = RealtimeServerEvent.ContentRef(responseID: "resp_1", itemID: "item_3")
        let renamed: [(RealtimeServerEvent, String)] = [
            (.itemAdded(.init(previousItemID: nil, item: Self.spokenItem)), "conversation.item.created"),
            (.outputTextDelta(.init(ref, delta: "a")), "response.text.delta"),
            (.outputTextDone(.init(ref, text: "a")), "response.text.done"),
            (.outputAudioDelta(.init(ref, delta: "AAA=")), "response.audio.delta"),
            (.outputAudioDone(ref), "response.audio.done"),
            (.outputAudioTranscriptDelta(.init(ref, delta: "a")), "response.audio_transcript.delta"),
            (.outputAudioTranscriptDone(.init(ref, transcript: "a")), "response.audio_transcript.done"),
            (.speechStarted(.init(audioStartMs: 0, itemID: "item_1")), "input_audio_buffer.speech_started"),
        ]
        for (event, name) in renamed {
            let text = event.text(eventID: "e", beta: true) ?? ""
            #expect(text.contains(#""type":"\#(name)""#), "\(text)")
        }
        #expect(RealtimeServerEvent.itemDone(.init(item: Self.spokenItem)).text(eventID: "e", beta: true) == nil)
        #expect(RealtimeServerEvent.itemDone(.init(item: Self.spokenItem)).text(eventID: "e", beta: false) != nil)
    }

    @Test("snake case: an underscore where a lower-case letter or digit meets an upper-case one")
    func snakeCase() {
        #expect(OrderedJSONEncoder.snakeCase("previousItemID") == "previous_item_id")
        #expect(OrderedJSONEncoder.snakeCase("audioStartMs") == "audio_start_ms")
        #expect(OrderedJSONEncoder.snakeCase("type") == "type")
        #expect(OrderedJSONEncoder.snakeCase("isError") == "is_error")
    }

    @Test("no JSON literal builds an outgoing event in the realtime connection")
    func noUntypedEvents() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/ParleyServer/Realtime")
        for name in ["RealtimeConnection.swift", "RealtimeProtocol.swift"] {
            let url = folder.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let source = try String(contentsOf: url, encoding: .utf8)
            for untyped in [#"send(""#, ".object([", "JSONObject", "\"type\": "] {
                #expect(!source.contains(untyped), "\(name) builds an event from JSON: \(untyped)")
            }
        }
    }
}
