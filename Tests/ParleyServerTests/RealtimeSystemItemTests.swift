import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// Items the client puts into the conversation reach the model that answers the next response.
@Suite("realtime: the client's items reach the model")
struct RealtimeSystemItemTests {
    @Test("a system item, then response.create with instructions: the model is given both")
    func systemItemThenInstructions() async throws {
        let model = ScriptedLanguageModel(replies: [["Hello, Ada!"]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "system", "content": [["type": "input_text", "text": "The user's name is Ada."]],
                ],
            ])
            try await client.next("conversation.item.added")
            try await client.send(["type": "response.create", "response": ["instructions": "Greet the user by name."]])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
        }
        let request = try #require(await model.requests.last)
        let texts = request.messages.map { "\($0.role.rawValue): \($0.text)" }
        #expect(request.messages.contains { $0.text.contains("The user's name is Ada.") }, "\(texts)")
        #expect(request.messages.contains { $0.role == .system && $0.text.contains("Greet the user by name.") }, "\(texts)")
    }

    @Test("a session.update that makes a new conversation keeps the client's items, in their places")
    func itemsOutliveANewConversation() async throws {
        let model = ScriptedLanguageModel(replies: [["Hello, Ada!"]])
        let server = try await TestServer.scripted(model: model)
        defer { server.stop() }
        try await RealtimeTestClient.with(server) { client in
            try await client.next("session.created")
            try await client.send([
                "type": "conversation.item.create",
                "item": [
                    "type": "message", "role": "system", "content": [["type": "input_text", "text": "The user's name is Ada."]],
                ],
            ])
            try await client.send([
                "type": "conversation.item.create", "previous_item_id": "root",
                "item": [
                    "type": "message", "role": "user", "content": [["type": "input_text", "text": "I am back."]],
                ],
            ])
            // New instructions make a new conversation (the voice loop takes them at its start).
            try await client.send(["type": "session.update", "session": ["type": "realtime", "instructions": "You are a friendly assistant."]])
            try await client.next("session.updated")
            try await client.send(["type": "response.create", "response": ["instructions": "Greet the user by name."]])
            let done = try await client.next("response.done")
            #expect((done["response"] as? [String: Any])?["status"] as? String == "completed")
        }
        let request = try #require(await model.requests.last)
        let texts = request.messages.map { "\($0.role.rawValue): \($0.text)" }
        #expect(texts == ["system: Greet the user by name.", "user: I am back.", "system: The user's name is Ada."], "\(texts)")
    }
}
