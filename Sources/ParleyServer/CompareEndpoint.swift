import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime
import ParleyData

/// `POST /v1/parley/compare`: one prompt, recording or sentence through every configured
/// provider of a capability at once (the provider test view of the personal-AI app; the page's
/// "Compare providers" and `parley compare` use it).
///
/// `{"capability": "chat", "prompt": "…", "max_tokens": 128}`, `{"capability": "transcription",
/// "audio": "<base64 audio file>"}` or `{"capability": "speech", "text": "…"}` →
/// `{"object": "parley.comparison", "capability", "results": [{"entry", "provider", "placement",
/// "outcome", "detail", "output", "first_ms", "total_ms", "cost", "audio"}]}`, `audio` a base64
/// WAV of each voice. Every provider is asked on its own, not as a chain; one that cannot be
/// asked is listed with the reason.
struct CompareEndpoint: Sendable {
    let environment: ServerEnvironment

    struct Body: Decodable, Sendable {
        var capability: String
        var prompt: String?
        var text: String?
        var audio: String?
        var max_tokens: Int?

        enum CodingKeys: String, CodingKey { case capability, prompt, text, audio, max_tokens }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            capability = try container.decode(String.self, forKey: .capability)
            prompt = try container.decodeIfPresent(String.self, forKey: .prompt)
            text = try container.decodeIfPresent(String.self, forKey: .text)
            audio = try container.decodeIfPresent(String.self, forKey: .audio)
            max_tokens = try container.decodeIfPresent(Int.self, forKey: .max_tokens)
        }
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/parley/compare") { request, context in try await respond(to: request, owner: context.owner) }
    }

    func respond(to request: Request, owner: Owner) async throws -> Response {
        let body = try await request.decodeJSON(Body.self, limit: environment.configuration.maxAudioBytes * 4 / 3 + 4_096)
        let runtime = environment.runtime
        let results: [ProviderComparison]
        switch body.capability {
        case "chat":
            guard let prompt = body.prompt, !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw OpenAIError.invalidRequest("'prompt' is required to compare language models.", param: "prompt")
            }
            let limit = body.max_tokens ?? 128
            guard (1...4_096).contains(limit) else { throw OpenAIError.invalidRequest("'max_tokens' must be from 1 to 4096.", param: "max_tokens") }
            results = await runtime.compareLanguageModels(prompt: prompt, maxTokens: limit)
            for usage in results.compactMap(\.usage) { environment.admission.charge(owner, usage: usage) }
        case "transcription":
            guard let encoded = body.audio, let data = Data(base64Encoded: encoded), !data.isEmpty else {
                throw OpenAIError.invalidRequest("'audio' must be an audio file, base64-encoded.", param: "audio")
            }
            let audio = try await environment.decodeAudio(data)
            results = await runtime.compareSpeechToText(audio: audio)
        case "speech":
            guard let text = body.text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw OpenAIError.invalidRequest("'text' is required to compare voices.", param: "text")
            }
            guard text.count <= SpeechEndpoint.maxInputCharacters else {
                throw OpenAIError.invalidRequest("'text' is longer than \(SpeechEndpoint.maxInputCharacters) characters.", param: "text")
            }
            results = await runtime.compareTextToSpeech(text: text)
        default:
            throw OpenAIError.invalidRequest("'capability' must be chat, transcription or speech.", param: "capability")
        }
        let document: JSONValue = [
            "object": "parley.comparison", "capability": .string(body.capability),
            "results": .array(results.map(Self.json)),
        ]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document.text)))
    }

    static func json(_ result: ProviderComparison) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        return [
            "entry": .string(result.entry), "provider": .string(result.provider), "placement": .string(result.placement),
            "outcome": .string(result.outcome.rawValue), "detail": result.detail.map(JSONValue.string) ?? .null,
            "output": result.output.map(JSONValue.string) ?? .null, "first_ms": number(result.firstMilliseconds),
            "total_ms": number(result.totalMilliseconds), "cost": number(result.cost),
            "audio": result.audio.map { .string($0.base64EncodedString()) } ?? .null,
        ]
    }
}
