import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// Bad requests get a 4xx in OpenAI's error shape, and the server answers the next request.
@Suite("malformed input: 4xx in OpenAI's shape, and the server lives on")
struct MalformedInputTests {
    static let json = [("content-type", "application/json")]

    @Test(
        "bodies that are not the JSON an endpoint expects",
        arguments: [
            ("/v1/chat/completions", "{\"messages\": [", nil as String?),
            ("/v1/chat/completions", "", nil),
            ("/v1/chat/completions", "[]", nil),
            ("/v1/chat/completions", "{\"model\": \"auto\"}", "messages"),
            ("/v1/chat/completions", "{\"messages\": \"hello\"}", "messages"),
            ("/v1/chat/completions", "{\"messages\": [{\"content\": \"hi\"}]}", "messages[0].role"),
            ("/v1/chat/completions", "{\"messages\": [{\"role\": \"user\", \"content\": 42}]}", nil),
            ("/v1/chat/completions", "\u{00}\u{ff}garbage", nil),
            ("/v1/audio/speech", "{\"voice\": \"alloy\"}", "input"),
            ("/v1/audio/speech", "{\"input\": \"   \"}", "input"),
            ("/v1/audio/speech", "{\"input\": \"hi\", \"response_format\": \"ogg\"}", "response_format"),
            ("/v1/audio/speech", "{\"input\": \"hi\", \"speed\": 9}", "speed"),
        ])
    func badJSON(path: String, body: String, param: String?) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let reply = try await server.send(.POST, path, headers: Self.json, body: Data(body.utf8))
        expectOpenAIError(reply, status: 400, param: param)
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    @Test(
        "uploads that are not a usable multipart form with a WAV file",
        arguments: [
            "no content type", "not multipart", "no boundary", "no closing boundary", "no file", "not a WAV", "truncated WAV",
            "garbage", "unnamed part", "bad response_format",
        ])
    func badUpload(_ problem: String) async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        let wav = WAV.encode(AudioBuffer(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000))
        var form = FormBody()
        form.add("model", "whisper-1")
        var contentType: String? = form.contentType
        var body: Data
        switch problem {
        case "no content type":
            form.add(file: "file", filename: "a.wav", wav)
            body = form.finished
            contentType = nil
        case "not multipart":
            form.add(file: "file", filename: "a.wav", wav)
            body = form.finished
            contentType = "application/json"
        case "no boundary":
            form.add(file: "file", filename: "a.wav", wav)
            body = form.finished
            contentType = "multipart/form-data"
        case "no closing boundary":
            form.add(file: "file", filename: "a.wav", wav)
            body = form.data.dropLast(2)
        case "no file":
            body = form.finished
        case "not a WAV":
            form.add(file: "file", filename: "a.mp3", contentType: "audio/mpeg", Data("ID3\u{03}not really an mp3".utf8))
            body = form.finished
        case "truncated WAV":
            form.add(file: "file", filename: "a.wav", wav.prefix(40))
            body = form.finished
        case "unnamed part":
            body = Data("--\(form.boundary)\r\nContent-Disposition: form-data\r\n\r\nx\r\n--\(form.boundary)--\r\n".utf8)
        case "bad response_format":
            form.add("response_format", "docx")
            form.add(file: "file", filename: "a.wav", wav)
            body = form.finished
        default:
            var generator = SeededGenerator(seed: 42)
            body = Data((0..<5_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let reply = try await server.send(.POST, "/v1/audio/transcriptions", headers: contentType.map { [("content-type", $0)] } ?? [], body: body)
        expectOpenAIError(reply, status: 400)
        #expect(try await server.send(.GET, "/health").status == 200)
    }

    @Test("bodies over the limits get 413, with or without a Content-Length", arguments: [false, true])
    func oversized(chunked: Bool) async throws {
        let server = try await TestServer.scripted { configuration in
            configuration.maxJSONBytes = 1_024
            configuration.maxChatBytes = 2_048
            configuration.maxAudioBytes = 4_096
        }
        defer { server.stop() }
        let text = String(repeating: "a", count: 3_000)
        let chat = try JSONSerialization.data(withJSONObject: ["messages": [["role": "user", "content": text]]])
        expectOpenAIError(
            try await server.send(.POST, "/v1/chat/completions", headers: Self.json, body: chat, chunked: chunked),
            status: 413, code: "request_too_large")
        let speech = try JSONSerialization.data(withJSONObject: ["input": String(text.prefix(1_500))])
        expectOpenAIError(
            try await server.send(.POST, "/v1/audio/speech", headers: Self.json, body: speech, chunked: chunked),
            status: 413, code: "request_too_large")
        var form = FormBody()
        form.add(file: "file", filename: "big.wav", WAV.encode(AudioBuffer(samples: [Float](repeating: 0, count: 48_000), sampleRate: 16_000)))
        expectOpenAIError(
            try await server.send(
                .POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)],
                body: form.finished, chunked: chunked),
            status: 413, code: "request_too_large")
        // Within the limit, the same server answers.
        let small = try JSONSerialization.data(withJSONObject: ["messages": [["role": "user", "content": "hi"]]])
        #expect(try await server.send(.POST, "/v1/chat/completions", headers: Self.json, body: small).status == 200)
    }

    @Test("an unknown path or method is a 404 in OpenAI's shape")
    func unknownPath() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        expectOpenAIError(try await server.send(.GET, "/v1/nothing-here"), status: 404, code: "unknown_url")
        expectOpenAIError(try await server.send(.GET, "/v1/chat/completions"), status: 404, code: "unknown_url")
        // Any name a request may use is answered (it is the fallback chain); one no request could use is not.
        expectOpenAIError(try await server.send(.GET, "/v1/models/" + String(repeating: "x", count: 300)), status: 404, code: "model_not_found", param: "model")
    }

    @Test("a stream of a hundred broken requests in a row leaves the server serving")
    func manyBrokenRequests() async throws {
        let server = try await TestServer.scripted()
        defer { server.stop() }
        var generator = SeededGenerator(seed: 7)
        for round in 0..<100 {
            let length = Int.random(in: 0...600, using: &generator)
            let body = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let path = ["/v1/chat/completions", "/v1/audio/speech", "/v1/audio/transcriptions"][round % 3]
            let contentType = round % 3 == 2 ? "multipart/form-data; boundary=xyz" : "application/json"
            let reply = try await server.send(.POST, path, headers: [("content-type", contentType)], body: body)
            #expect((400..<500).contains(reply.status), "\(path): \(reply.status) \(reply.text)")
            #expect(reply.error != nil)
        }
        let reply = try await server.post("/v1/chat/completions", json: ["messages": [["role": "user", "content": "Capital of France?"]]])
        #expect(reply.status == 200)
    }
}
