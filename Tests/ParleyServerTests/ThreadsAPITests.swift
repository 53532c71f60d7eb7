import Foundation
import NIOHTTP1
import ParleyServer
import ParleyStore
import ParleyTesting
import Testing

/// The threads API over real HTTP: CRUD of threads, messages and the stash, each key's own,
/// and errors in OpenAI's shape. No language model runs.
@Suite("threads API")
struct ThreadsAPITests {
    static let png = TestImages.onePixelPNG
    static let pngURL = "data:image/png;base64," + png.base64EncodedString()

    @Test("threads, messages and the stash round-trip over JSON")
    func roundTrip() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let api = Client(server: server)

        let created = try await api.json(
            .POST, "/v1/threads", ["title": "Groceries", "settings": ["system_prompt": "Be brief.", "max_tokens": 64]],
            status: 201)
        let id = try #require(created["id"] as? Int)
        #expect(created["title"] as? String == "Groceries")
        let settings = try #require(created["settings"] as? [String: Any])
        #expect(settings["system_prompt"] as? String == "Be brief.")
        #expect(settings["max_tokens"] as? Int == 64)
        #expect(settings["backend"] as? String == "local")
        #expect(settings.keys.contains("model_preset"))
        #expect((created["created_at"] as? String)?.hasSuffix("Z") == true)

        let user = try await api.json(
            .POST, "/v1/threads/\(id)/messages",
            [
                "role": "user", "text": "milk and eggs", "raw_transcript": "milk and legs", "images": [Self.pngURL],
                "provider": "whisper.cpp", "timings_ms": ["stt": 120.5],
            ], status: 201)
        let mid = try #require(user["id"] as? Int)
        #expect(user["thread_id"] as? Int == id)
        #expect(user["raw_transcript"] as? String == "milk and legs")
        #expect(user["audio_url"] is NSNull)
        #expect(user["audio_path"] == nil)
        let images = try #require(user["images"] as? [[String: Any]])
        #expect(images.count == 1)
        #expect(images.first?["mime_type"] as? String == "image/png")
        #expect(images.first?["data"] as? String == Self.png.base64EncodedString())
        let reply = try await api.json(
            .POST, "/v1/threads/\(id)/messages",
            [
                "role": "assistant", "text": "Noted.", "provider": "llama.cpp",
                "structured_result": ["candidates": ["milk", "eggs"]], "usage": ["input_tokens": 12, "cached_input_tokens": 0, "output_tokens": 3],
            ], status: 201)
        #expect((reply["structured_result"] as? [String: Any])?["candidates"] as? [String] == ["milk", "eggs"])

        let edited = try await api.json(.PATCH, "/v1/threads/\(id)/messages/\(mid)", ["edited_text": "milk and eggs"])
        #expect(edited["edited_text"] as? String == "milk and eggs")
        #expect(edited["raw_transcript"] as? String == "milk and legs")
        #expect(try await api.json(.GET, "/v1/threads/\(id)/messages/\(mid)")["edited_text"] as? String == "milk and eggs")

        let renamed = try await api.json(.PATCH, "/v1/threads/\(id)", ["title": "Shopping", "settings": ["model_preset": "small"]])
        #expect(renamed["title"] as? String == "Shopping")
        #expect((renamed["settings"] as? [String: Any])?["model_preset"] as? String == "small")
        #expect((renamed["settings"] as? [String: Any])?["system_prompt"] as? String == "Be brief.")

        let thread = try await api.json(.GET, "/v1/threads/\(id)")
        #expect(thread["message_count"] as? Int == 2)
        #expect(thread["preview"] as? String == "Noted.")
        let messages = try #require(thread["messages"] as? [[String: Any]])
        #expect(messages.map { $0["text"] as? String } == ["milk and eggs", "Noted."])
        #expect(messages.first?["edited_text"] as? String == "milk and eggs")
        #expect((messages.first?["timings_ms"] as? [String: Any])?["stt"] as? Double == 120.5)

        let list = try await api.json(.GET, "/v1/threads")
        #expect(list["object"] as? String == "list")
        let summaries = try #require(list["data"] as? [[String: Any]])
        #expect(summaries.count == 1)
        #expect((summaries.first?["thread"] as? [String: Any])?["title"] as? String == "Shopping")
        #expect(summaries.first?["message_count"] as? Int == 2)
        #expect(summaries.first?["last_message_preview"] as? String == "Noted.")

        let note = try await api.json(.POST, "/v1/stash", ["text": "buy milk", "message_id": mid], status: 201)
        #expect(note["kind"] as? String == "note")
        #expect(note["thread_id"] as? Int == id)
        let stash = try await api.json(.GET, "/v1/stash")
        #expect((stash["data"] as? [[String: Any]])?.map { $0["text"] as? String } == ["buy milk"])
        let noteID = try #require(note["id"] as? Int)
        #expect(try await api.json(.DELETE, "/v1/stash/\(noteID)")["deleted"] as? Bool == true)
        #expect((try await api.json(.GET, "/v1/stash")["data"] as? [Any])?.isEmpty == true)

        let deleted = try await api.json(.DELETE, "/v1/threads/\(id)")
        #expect(deleted["object"] as? String == "thread.deleted" && deleted["deleted"] as? Bool == true)
        expectOpenAIError(try await server.send(.GET, "/v1/threads/\(id)"), status: 404, code: "thread_not_found")
        #expect((try await api.json(.GET, "/v1/threads")["data"] as? [Any])?.isEmpty == true)
    }

    @Test("a kept recording is served from the message's audio_url, and can be deleted")
    func audio() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let api = Client(server: server)
        let created = try await api.json(.POST, "/v1/threads", [String: Any](), status: 201)
        let id = try #require(created["id"] as? Int)
        let message = try await api.json(.POST, "/v1/threads/\(id)/messages", ["role": "user", "text": "hi"], status: 201)
        let mid = try #require(message["id"] as? Int)
        expectOpenAIError(try await server.send(.GET, "/v1/threads/\(id)/messages/\(mid)/audio"), status: 404, code: "audio_not_found")

        let wav = server.database.deletingLastPathComponent().appendingPathComponent("audio/turn.wav")
        try FileManager.default.createDirectory(at: wav.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("RIFF....WAVEfmt ".utf8).write(to: wav)
        try await server.runtime.store().attachAudio(message: Int64(mid), file: wav, owner: .local)

        let url = try #require(try await api.json(.GET, "/v1/threads/\(id)/messages/\(mid)")["audio_url"] as? String)
        #expect(url == "/v1/threads/\(id)/messages/\(mid)/audio")
        let audio = try await server.send(.GET, url)
        #expect(audio.status == 200)
        #expect(audio.headers["content-type"] == "audio/wav")
        #expect(audio.body == Data("RIFF....WAVEfmt ".utf8))
        #expect(try await api.json(.DELETE, url)["deleted"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: wav.path))
        expectOpenAIError(try await server.send(.GET, url), status: 404, code: "audio_not_found")
    }

    @Test("with two keys, each sees only its own: the other's ids (and the local user's) are 404s and its lists are empty")
    func isolation() async throws {
        let server = try await TestServer.start(settings: ["PARLEY_API_KEYS": "key-a-secret,key-b-secret"])
        defer { server.stop() }
        let alice = Client(server: server, key: "key-a-secret")
        let bob = Client(server: server, key: "key-b-secret")

        let thread = try await alice.json(.POST, "/v1/threads", ["title": "alice's"], status: 201)
        let id = try #require(thread["id"] as? Int)
        let message = try await alice.json(.POST, "/v1/threads/\(id)/messages", ["role": "user", "text": "secret"], status: 201)
        let mid = try #require(message["id"] as? Int)
        let note = try await alice.json(.POST, "/v1/stash", ["text": "hers", "thread_id": id], status: 201)
        let noteID = try #require(note["id"] as? Int)
        // The local user's rows (the command line's), which no key may reach either.
        let store = try await server.runtime.store()
        let local = try await store.createThread(title: "local", settings: ThreadSettings(), owner: .local)
        let localMessage = try await store.append(NewMessage(role: .user, text: "local secret"), to: local.id, owner: .local)
        let localNote = try await store.stash(NewStashItem(kind: "note", text: "local secret"), owner: .local)

        #expect((try await bob.json(.GET, "/v1/threads")["data"] as? [Any])?.isEmpty == true)
        #expect((try await bob.json(.GET, "/v1/stash")["data"] as? [Any])?.isEmpty == true)
        for (thread, message, note) in [(id, mid, noteID), (Int(local.id), Int(localMessage.id), Int(localNote.id))] {
            let trespasses: [(HTTPMethod, String, [String: Any]?, String)] = [
                (.GET, "/v1/threads/\(thread)", nil, "thread_not_found"),
                (.PATCH, "/v1/threads/\(thread)", ["title": "bob's now"], "thread_not_found"),
                (.DELETE, "/v1/threads/\(thread)", nil, "thread_not_found"),
                (.POST, "/v1/threads/\(thread)/messages", ["role": "user", "text": "hi"], "thread_not_found"),
                (.GET, "/v1/threads/\(thread)/messages/\(message)", nil, "thread_not_found"),
                (.PATCH, "/v1/threads/\(thread)/messages/\(message)", ["edited_text": "changed"], "thread_not_found"),
                (.GET, "/v1/threads/\(thread)/messages/\(message)/audio", nil, "thread_not_found"),
                (.DELETE, "/v1/threads/\(thread)/messages/\(message)/audio", nil, "thread_not_found"),
                (.DELETE, "/v1/stash/\(note)", nil, "stash_item_not_found"),
                (.POST, "/v1/stash", ["text": "x", "thread_id": thread], "thread_not_found"),
                (.POST, "/v1/stash", ["text": "x", "message_id": message], "message_not_found"),
            ]
            for (method, path, body, code) in trespasses {
                let reply = try await bob.send(method, path, body)
                expectOpenAIError(reply, status: 404, code: code)
                #expect(!reply.text.contains("secret") && !reply.text.contains("alice"), "\(method) \(path): \(reply.text)")
            }
        }
        let kept = try #require(try await store.thread(local.id, owner: .local))
        #expect(kept.title == "local" && kept.settings == local.settings)
        #expect(try await store.messages(in: local.id, owner: .local).map(\.text) == ["local secret"])
        #expect(try await store.stashItems(owner: .local) == [localNote])
        #expect((try await alice.json(.GET, "/v1/threads")["data"] as? [Any])?.count == 1)

        // Alice can do all of it to her own.
        let hers = try await alice.json(.GET, "/v1/threads/\(id)")
        #expect(hers["title"] as? String == "alice's")
        #expect((hers["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["secret"])
        #expect(try await alice.json(.PATCH, "/v1/threads/\(id)", ["title": "still alice's"])["title"] as? String == "still alice's")
        #expect(try await alice.json(.GET, "/v1/threads/\(id)/messages/\(mid)")["text"] as? String == "secret")
        #expect(try await alice.json(.PATCH, "/v1/threads/\(id)/messages/\(mid)", ["edited_text": "secrets"])["edited_text"] as? String == "secrets")
        expectOpenAIError(try await alice.send(.GET, "/v1/threads/\(id)/messages/\(mid)/audio", nil), status: 404, code: "audio_not_found")
        #expect((try await alice.json(.GET, "/v1/stash")["data"] as? [Any])?.count == 1)
        #expect(try await alice.json(.DELETE, "/v1/stash/\(noteID)")["deleted"] as? Bool == true)
        let bobs = try await bob.json(.POST, "/v1/threads", ["title": "bob's"], status: 201)
        #expect(bobs["id"] as? Int != id)
        #expect(try await alice.json(.DELETE, "/v1/threads/\(id)")["deleted"] as? Bool == true)
        #expect((try await bob.json(.GET, "/v1/threads")["data"] as? [Any])?.count == 1)

        // No key, or a wrong one: 401 before anything is looked up.
        expectOpenAIError(try await server.send(.GET, "/v1/threads"), status: 401, code: "invalid_api_key")
        expectOpenAIError(try await server.send(.GET, "/v1/threads/\(id)"), status: 401, code: "invalid_api_key")
        expectOpenAIError(try await Client(server: server, key: "key-c-secret").send(.GET, "/v1/stash", nil), status: 401)

        // The store keeps the keys' owners, never the keys; the local user sees neither key's threads.
        #expect(try await store.threads(owner: .local).map(\.thread.id) == [local.id])
        #expect(try await store.threads(owner: .apiKey("key-b-secret")).map(\.thread.id) == [Int64(try #require(bobs["id"] as? Int))])
        let raw =
            try String(decoding: Data(contentsOf: server.database), as: UTF8.self)
            + String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: server.database.path + "-wal"))) ?? Data(), as: UTF8.self)
        #expect(raw.contains(try #require(Owner.apiKey("key-b-secret").id)))
        #expect(!raw.contains("key-a-secret") && !raw.contains("key-b-secret"))
    }

    @Test("without keys every request is the local user's, the command line's too")
    func localWithoutKeys() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let local = try await server.runtime.store().createThread(title: "from the CLI", settings: ThreadSettings(), owner: .local)
        let api = Client(server: server, key: "anything")
        let list = try await api.json(.GET, "/v1/threads")
        #expect((list["data"] as? [[String: Any]])?.compactMap { ($0["thread"] as? [String: Any])?["id"] as? Int } == [Int(local.id)])
    }

    @Test("the owner of a key is key- and 16 hex digits of the key's SHA-256")
    func ownerOfKey() {
        #expect(Owner.apiKey("abc") == .key("key-ba7816bf8f01cfea"))
        #expect(Owner.apiKey("") == .key("key-e3b0c44298fc1c14"))
        #expect(Owner.apiKey("key-a-secret") != Owner.apiKey("key-b-secret"))
        #expect(Owner.apiKey("key-a-secret").id?.contains("secret") == false)
    }

    @Test(
        "bodies that are not what a route expects get a 400 that names the field, and the server answers after",
        arguments: [
            ("/v1/threads", "{\"title\": ", nil as String?),
            ("/v1/threads", "[]", nil),
            ("/v1/threads", "{\"title\": 5}", "title"),
            ("/v1/threads", "{\"titel\": \"typo\"}", "titel"),
            ("/v1/threads", "{\"settings\": {\"max_tokens\": \"many\"}}", "settings.max_tokens"),
            ("/v1/threads", "{\"settings\": {\"max_tokens\": 0}}", "settings.max_tokens"),
            ("/v1/threads", "{\"settings\": {\"backend\": \" \"}}", "settings.backend"),
            ("/v1/threads", "{\"settings\": {\"temperature\": 1}}", "settings.temperature"),
            ("MESSAGES", "{\"text\": \"no role\"}", "role"),
            ("MESSAGES", "{\"role\": \"robot\", \"text\": \"x\"}", "role"),
            ("MESSAGES", "{\"role\": \"user\"}", "text"),
            ("MESSAGES", "{\"role\": \"user\", \"text\": \"x\", \"images\": [\"https://example.com/a.png\"]}", "images[0]"),
            ("MESSAGES", "{\"role\": \"user\", \"text\": \"x\", \"images\": [\"data:image/png;base64,\"]}", "images[0]"),
            ("MESSAGES", "{\"role\": \"user\", \"text\": \"x\", \"images\": [42]}", "images[0]"),
            ("MESSAGES", "{\"role\": \"user\", \"text\": \"x\", \"timings_ms\": {\"stt\": \"slow\"}}", "timings_ms.stt"),
            ("/v1/stash", "{}", "text"),
            ("/v1/stash", "{\"text\": \"x\", \"thread_id\": \"one\"}", "thread_id"),
            ("/v1/stash", "{\"text\": \"x\", \"kind\": \"\"}", "kind"),
        ])
    func badBodies(path: String, body: String, param: String?) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let thread = try await Client(server: server).json(.POST, "/v1/threads", [String: Any](), status: 201)
        let id = try #require(thread["id"] as? Int)
        let target = path == "MESSAGES" ? "/v1/threads/\(id)/messages" : path
        let reply = try await server.send(.POST, target, headers: [("content-type", "application/json")], body: Data(body.utf8))
        expectOpenAIError(reply, status: 400, param: param)
        #expect(try await server.send(.GET, "/v1/threads").status == 200)
    }

    @Test("bad PATCH bodies and ids that name nothing")
    func badPatchesAndIDs() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let api = Client(server: server)
        let id = try #require(try await api.json(.POST, "/v1/threads", [String: Any](), status: 201)["id"] as? Int)
        let mid = try #require(try await api.json(.POST, "/v1/threads/\(id)/messages", ["role": "user", "text": "x"], status: 201)["id"] as? Int)
        let other = try #require(try await api.json(.POST, "/v1/threads", [String: Any](), status: 201)["id"] as? Int)

        expectOpenAIError(try await api.send(.PATCH, "/v1/threads/\(id)/messages/\(mid)", [String: Any]()), status: 400, param: "edited_text")
        expectOpenAIError(try await api.send(.PATCH, "/v1/threads/\(id)/messages/\(mid)", ["edited_text": 3]), status: 400, param: "edited_text")
        expectOpenAIError(try await api.send(.PATCH, "/v1/threads/\(id)", ["title": ["nested"]]), status: 400, param: "title")
        expectOpenAIError(try await api.send(.PATCH, "/v1/threads/\(id)", ["settings": ["max_tokens": -1]]), status: 400, param: "settings.max_tokens")

        expectOpenAIError(try await api.send(.GET, "/v1/threads/abc", nil), status: 404, code: "thread_not_found")
        expectOpenAIError(try await api.send(.GET, "/v1/threads/999999", nil), status: 404, code: "thread_not_found")
        expectOpenAIError(try await api.send(.DELETE, "/v1/threads/999999", nil), status: 404, code: "thread_not_found")
        expectOpenAIError(try await api.send(.POST, "/v1/threads/999999/messages", ["role": "user", "text": "x"]), status: 404, code: "thread_not_found")
        expectOpenAIError(try await api.send(.GET, "/v1/threads/\(id)/messages/999999", nil), status: 404, code: "message_not_found")
        expectOpenAIError(try await api.send(.GET, "/v1/threads/\(id)/messages/x", nil), status: 404, code: "message_not_found")
        // A message is found only under its own thread.
        expectOpenAIError(try await api.send(.PATCH, "/v1/threads/\(other)/messages/\(mid)", ["edited_text": "y"]), status: 404, code: "message_not_found")
        expectOpenAIError(try await api.send(.DELETE, "/v1/stash/999999", nil), status: 404, code: "stash_item_not_found")
        expectOpenAIError(
            try await api.send(.POST, "/v1/stash", ["text": "x", "message_id": 999999]), status: 404, code: "message_not_found",
            param: "message_id")

        // A PATCH of nothing changes nothing; null clears the title.
        let unchanged = try await api.json(.PATCH, "/v1/threads/\(id)", [String: Any]())
        #expect(unchanged["id"] as? Int == id)
        _ = try await api.json(.PATCH, "/v1/threads/\(id)", ["title": "named"])
        #expect(try await api.json(.PATCH, "/v1/threads/\(id)", ["title": NSNull()])["title"] is NSNull)
    }

    @Test("bodies over the limit get 413, and the server answers after", arguments: [false, true])
    func oversized(chunked: Bool) async throws {
        let server = try await TestServer.scripted { configuration in
            configuration.maxJSONBytes = 1_024
            configuration.maxChatBytes = 4_096
        }
        defer { server.stop() }
        let api = Client(server: server)
        let id = try #require(try await api.json(.POST, "/v1/threads", [String: Any](), status: 201)["id"] as? Int)
        let json = [("content-type", "application/json")]
        let bigThread = try JSONSerialization.data(withJSONObject: ["title": String(repeating: "t", count: 2_000)])
        expectOpenAIError(
            try await server.send(.POST, "/v1/threads", headers: json, body: bigThread, chunked: chunked),
            status: 413, code: "request_too_large")
        let image = "data:image/png;base64," + TestImages.png(size: 6_000).base64EncodedString()
        let bigMessage = try JSONSerialization.data(withJSONObject: ["role": "user", "text": "x", "images": [image]])
        expectOpenAIError(
            try await server.send(.POST, "/v1/threads/\(id)/messages", headers: json, body: bigMessage, chunked: chunked),
            status: 413, code: "request_too_large")
        // A message with a small image is within the chat limit, which is larger than the JSON one.
        let small = "data:image/png;base64," + TestImages.png(size: 1_500).base64EncodedString()
        _ = try await api.json(.POST, "/v1/threads/\(id)/messages", ["role": "user", "text": "x", "images": [small]], status: 201)
    }
}

/// A client of the threads API: JSON in and out, with a bearer key when given one.
/// A client of the threads API, with a key or without.
struct Client {
    let server: TestServer
    var key: String?

    /// Sends `body` (as JSON, when there is one) and returns the reply.
    func send(_ method: HTTPMethod, _ path: String, _ body: Any?) async throws -> TestServer.Reply {
        var headers: [(String, String)] = key.map { [("authorization", "Bearer \($0)")] } ?? []
        var data: Data?
        if let body {
            headers.append(("content-type", "application/json"))
            data = try JSONSerialization.data(withJSONObject: body)
        }
        return try await server.send(method, path, headers: headers, body: data)
    }

    /// Sends a request, expects `status`, and returns the reply's JSON object.
    func json(
        _ method: HTTPMethod, _ path: String, _ body: Any? = nil, status: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let reply = try await send(method, path, body)
        #expect(reply.status == status, "\(method) \(path): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        return try #require(reply.json, "\(method) \(path): \(reply.text)", sourceLocation: sourceLocation)
    }
}
