import Foundation
import HTTPTypes
@testable import ParleyServer
import ParleyTesting
import Testing

/// The relay's one-pass recognition of plain chat bodies must never take a body the decoder
/// would refuse or read otherwise: what it recognizes decodes, without a stream, a schema or
/// images, into a request the endpoint accepts, with the same model.
@Suite("Plain chat bodies recognized without decoding")
struct PlainChatBodyTests {
    static let plain = [
        #"{"model": "openai/fake", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 64}"#,
        #"{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi\n\"there\" \u00e9\/"}],"model":"gpt-4o-mini","temperature":0.7,"top_p":1,"stream":false,"user":"u-1","max_completion_tokens":12}"#,
        " \n{ \"messages\" : [ { \"content\" : \"a\" , \"role\" : \"assistant\" } , {\"role\": \"developer\", \"content\": \"\"} ] }\t",
        #"{"model": "auto", "messages": [{"role": "user", "content": "x"}], "temperature": 0, "top_p": 1e-3}"#,
        #"{"model": "m", "messages": [{"role": "system", "content": "Greet the user by name."}, {"role": "developer", "content": ""}]}"#,
    ]

    static let other = [
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": true}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "response_format": {"type": "json_object"}}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "n": 1}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi", "name": "a"}]}"#,
        #"{"model": "m\u0041", "messages": [{"role": "user", "content": "Hi"}]}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Grüß dich"}]}"#,
        #"{"model": "m", "messages": [{"role": "system", "content": ""}, {"role": "developer", "content": ""}]}"#,
        #"{"model": "m", "messages": [{"content": "Hi"}]}"#,
        #"{"model": "m", "messages": []}"#,
        #"{"model": "m", "model": "n", "messages": [{"role": "user", "content": "Hi"}]}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}],}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 01}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "temperature": .5}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "temperature": +1}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"#,
        "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"a\tb\"}]}",
        #"{"model": "m", "messages": [{"role": "user", "content": "\x"}]}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "\ud83d"}]}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}]} x"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "temperature": 3}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "top_p": 0}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 0}"#,
        #"{"model": "m", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1.5}"#,
        #"{"model": "m", "messages": [{"role": "robot", "content": "Hi"}]}"#,
        #"{"model": null, "messages": [{"role": "user", "content": "Hi"}]}"#,
        #"[{"role": "user", "content": "Hi"}]"#,
    ]

    @Test("plain bodies are recognized, with their model")
    func recognized() throws {
        #expect(PlainChatBody(Array(Self.plain[0].utf8)) == PlainChatBody(model: "openai/fake"))
        #expect(PlainChatBody(Array(Self.plain[1].utf8)) == PlainChatBody(model: "gpt-4o-mini", temperature: 0.7, namesUser: true))
        #expect(PlainChatBody(Array(Self.plain[2].utf8)) == PlainChatBody(model: nil))
        for body in Self.plain { try Self.agrees(Array(body.utf8)) }
    }

    @Test("bodies of any other kind, valid or not, are left to the decoder")
    func other() {
        for body in Self.other {
            #expect(PlainChatBody(Array(body.utf8)) == nil, "\(body)")
        }
    }

    @Test("whatever a mangled body turns into, it is recognized only when the decoder reads it the same")
    func mangled() throws {
        var random = Random(seed: 0x5EED)
        let alphabet = Array(#"{}[]":,\ 0123456789.eE+-tfnulrsu"#.utf8) + [0x0A, 0xC3, 0x01]
        var recognized = 0
        for round in 0..<6_000 {
            var bytes = Array(Self.plain[round % Self.plain.count].utf8)
            for _ in 0..<(1 + random.next(3)) {
                let at = random.next(bytes.count)
                switch random.next(3) {
                case 0: bytes[at] = alphabet[random.next(alphabet.count)]
                case 1: bytes.insert(alphabet[random.next(alphabet.count)], at: at)
                default: if bytes.count > 1 { bytes.remove(at: at) }
                }
            }
            if PlainChatBody(bytes) != nil {
                recognized += 1
                try Self.agrees(bytes)
            }
        }
        // Enough mangled bodies stay plain (a changed letter in the content, a space) to test.
        #expect(recognized > 300, "recognized \(recognized)")
    }

    /// `bytes` is recognized, and decodes into what the relay on the event loop requires.
    static func agrees(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        let plain = try #require(PlainChatBody(bytes), "\(text)", sourceLocation: sourceLocation)
        let request = try #require(
            try? JSONDecoder().decode(ChatCompletionRequest.self, from: Data(bytes)),
            "recognized, but does not decode: \(text)", sourceLocation: sourceLocation)
        let chat = try #require(try? request.chatRequest(), "recognized, but refused: \(text)", sourceLocation: sourceLocation)
        #expect(
            request.model == plain.model && request.temperature == plain.temperature && !request.streams && chat.responseSchema == nil && !chat.hasImages,
            "\(text)", sourceLocation: sourceLocation)
        // Both readings take the same route: the rules live in ChatRoute alone.
        for caching in [false, true] {
            for headers in [HTTPFields(), [.parleyPrivate: "yes"]] {
                let fast = ChatRoute.of(plain, headers: headers, caching: caching, catalog: .standard)
                let decoded = ChatRoute.of(
                    request, chat: chat, owner: .local, headers: headers, caching: caching, catalog: .standard,
                    onDeviceModel: "model.gguf")
                if let fast {
                    #expect(fast == decoded, "\(text)", sourceLocation: sourceLocation)
                } else {
                    #expect(
                        decoded.cacheKey != nil, "the plain reading left it to the cache, the decoded one did not: \(text)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("a route is decided once: built-in tools, the cache, a schema and images keep a request from the relay")
    func routes() throws {
        func route(_ json: String, caching: Bool = true, headers: HTTPFields = HTTPFields()) throws -> ChatRoute {
            let request = try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(json.utf8))
            return ChatRoute.of(
                request, chat: try request.chatRequest(), owner: .local, headers: headers, caching: caching,
                catalog: .standard, onDeviceModel: "model.gguf")
        }
        let user = #""messages": [{"role": "user", "content": "Hi"}]"#
        #expect(try route("{\(user)}").way == .relay)
        #expect(try route("{\(user), \"temperature\": 0}").cacheKey != nil)
        #expect(try route("{\(user), \"temperature\": 0}", caching: false).way == .relay)
        #expect(try route("{\(user), \"temperature\": 0}", headers: [.parleyPrivate: "1"]).way == .relay)
        #expect(try route("{\(user), \"temperature\": 0, \"user\": \"u\"}").way == .relay)
        #expect(try route("{\(user), \"temperature\": 0, \"parley\": {\"builtin_tools\": true}}").way == .parley(.builtinTools))
        #expect(
            try route(
                #"{"messages": [{"role": "user", "content": "Hi"}], "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}}}"#
            ).way
                == .parley(.responseSchema))
        let png = "data:image/png;base64," + TestImages.onePixelPNG.base64EncodedString()
        #expect(
            try route(#"{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "\#(png)"}}]}]}"#).way
                == .parley(.images))
    }

    /// A small seeded generator (xorshift64*), for mangling the same way in every run.
    struct Random {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 0x2545F4914F6CDD1D) >> 33) % bound
        }
    }
}
