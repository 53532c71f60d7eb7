import Foundation
import Testing
@testable import ParleyCore

@Suite("The conversation message")
struct ConversationMessageTests {
    static let photo = ImageAttachment(data: Data([0x89, 0x50, 0x4E, 0x47]), mimeType: "image/png")

    static let spoken = ConversationMessage(
        role: .user, text: "What's in this picture?", rawTranscript: "what's in this pitcher", editedText: "What's in this picture?",
        images: [photo], imageReferences: ["https://example.com/map.png"], provider: "whisper.cpp", timingsMs: ["stt": 120.5])

    static let structured = ConversationMessage(
        role: .assistant, text: #"{"city":"Paris"}"#, provider: "openai (gpt-4o-mini)", timingsMs: ["llm_total": 310],
        usage: Usage(inputTokens: 12, cachedInputTokens: 4, outputTokens: 6), interrupted: true, fullReply: #"{"city":"Paris"}"#,
        structuredResult: .object(["city": .string("Paris")]))

    @Test("the journal's spellings still build a message")
    func journalEntrySpellings() {
        let user = JournalEntry(
            role: .user, text: "hi", rawTranscript: "hi", editedText: nil, provider: "stt",
            timingsMs: ["stt": 1], audio: AudioBuffer(samples: [0.1], sampleRate: 16_000))
        let reply = JournalEntry(
            role: .assistant, text: "hello", provider: "llm", timingsMs: [:],
            usage: Usage(outputTokens: 1), interrupted: false, fullReply: nil)
        #expect(user.audio?.samples == [0.1])
        #expect(reply.usage == Usage(outputTokens: 1))
        #expect(user.images.isEmpty && reply.structuredResult == nil)
    }

    @Test("encodes with snake_case keys and decodes to the same message", arguments: [spoken, structured])
    func codableRoundTrip(message: ConversationMessage) throws {
        let data = try JSONEncoder().encode(message)
        #expect(try JSONDecoder().decode(ConversationMessage.self, from: data) == message)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "role", "text", "raw_transcript", "edited_text", "typed_text", "images", "image_references",
                "provider", "timings_ms", "usage", "interrupted", "full_reply", "structured_result",
            ])
    }

    @Test("images travel as base64 with their media type; usage and results as JSON")
    func jsonShape() throws {
        let spoken = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.spoken)) as? [String: Any])
        let images = try #require(spoken["images"] as? [[String: Any]])
        #expect(images.first?["data"] as? String == "iVBORw==")
        #expect(images.first?["mime_type"] as? String == "image/png")
        #expect(spoken["structured_result"] is NSNull)
        let reply = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.structured)) as? [String: Any])
        #expect((reply["structured_result"] as? [String: Any])?["city"] as? String == "Paris")
        let usage = try #require(reply["usage"] as? [String: Any])
        #expect(Set(usage.keys) == ["input_tokens", "cached_input_tokens", "output_tokens"])
    }

    @Test("audio is not encoded, and a minimal object decodes with empty values")
    func audioAndDefaults() throws {
        var message = Self.spoken
        message.audio = AudioBuffer(samples: [0, 0.5], sampleRate: 16_000)
        let decoded = try JSONDecoder().decode(ConversationMessage.self, from: JSONEncoder().encode(message))
        #expect(decoded.audio == nil)
        let minimal = try JSONDecoder().decode(ConversationMessage.self, from: Data(#"{"role":"user","text":"hi"}"#.utf8))
        #expect(minimal == ConversationMessage(role: .user, text: "hi"))
    }

    @Test("as model input: the corrected text, then the images")
    func chatMessage() {
        #expect(Self.spoken.chatMessage == ChatMessage(role: .user, parts: [.text("What's in this picture?"), Self.photo.part]))
        var corrected = ConversationMessage(role: .user, text: "wreck a nice beach")
        corrected.editedText = "recognize speech"
        #expect(corrected.chatMessage == .user("recognize speech"))
        let pictureOnly = ConversationMessage(role: .user, text: "", images: [Self.photo])
        #expect(pictureOnly.chatMessage.parts == [Self.photo.part])
    }

    @Test("as model input: an assistant's calls (no text part when it wrote none) and a tool's result")
    func toolChatMessages() throws {
        let call = ToolCall(id: "call_1", name: "weather", arguments: #"{"city":"Lyon"}"#)
        #expect(ConversationMessage(role: .assistant, text: "", toolCalls: [call]).chatMessage == .assistant(toolCalls: [call]))
        #expect(ConversationMessage(role: .assistant, text: "Checking.", toolCalls: [call]).chatMessage == .assistant("Checking.", toolCalls: [call]))
        let failed = ConversationMessage(role: .tool, text: "timed out", toolCallID: "call_1", toolName: "weather", isToolError: true)
        #expect(failed.chatMessage == .tool(callID: "call_1", name: "weather", content: "timed out", isError: true))
        #expect(failed.isToolExchange && !ConversationMessage(role: .assistant, text: "hi").isToolExchange)
        let decoded = try JSONDecoder().decode(ConversationMessage.self, from: JSONEncoder().encode(failed))
        #expect(decoded == failed)
    }
}
