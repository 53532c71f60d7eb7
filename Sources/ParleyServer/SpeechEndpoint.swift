import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime

/// `POST /v1/audio/speech`: OpenAI's speech synthesis (`input`, `voice`, `speed`,
/// `response_format` wav or pcm) over the runtime's text-to-speech chain.
///
/// - `wav` (the default here; OpenAI's default, mp3, is not encoded by this server) is a
///   16-bit mono WAV at the voice's own rate, sent whole.
/// - `pcm` is raw 16-bit little-endian mono at 24 kHz, as OpenAI sends it, streamed sentence
///   by sentence as each is synthesized.
///
/// OpenAI's voice names (`alloy`, `nova`, …) mean each provider's default voice; any other
/// name is passed to the providers as is (e.g. `en-gb` for espeak-ng).
struct SpeechEndpoint: Sendable {
    let environment: ServerEnvironment

    /// OpenAI's built-in voices.
    static let openAIVoices: Set<String> = [
        "alloy", "ash", "ballad", "cedar", "coral", "echo", "fable", "marin", "nova", "onyx", "sage", "shimmer", "verse",
    ]
    /// OpenAI's limit on the input.
    static let maxInputCharacters = 4_096
    /// The rate of `pcm` output.
    static let pcmSampleRate = 24_000

    struct Body: Decodable, Sendable {
        var model: String?
        var input: String
        var voice: String?
        var response_format: String?
        var speed: Double?
        var instructions: String?
        var stream_format: String?
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/audio/speech") { request, _ in try await respond(to: request) }
    }

    func respond(to request: Request) async throws -> Response {
        let body = try await request.decodeJSON(Body.self, limit: environment.configuration.maxJSONBytes)
        guard !body.input.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw OpenAIError.invalidRequest("'input' is empty: there is no text to speak.", param: "input")
        }
        guard body.input.count <= Self.maxInputCharacters else {
            throw OpenAIError.invalidRequest("'input' is longer than \(Self.maxInputCharacters) characters.", param: "input")
        }
        let format = body.response_format ?? "wav"
        guard format == "wav" || format == "pcm" else {
            throw OpenAIError.invalidRequest("Unsupported 'response_format' \(format): this server sends wav or pcm.", param: "response_format")
        }
        if let streamFormat = body.stream_format, streamFormat != "audio" {
            throw OpenAIError.invalidRequest("Unsupported 'stream_format' \(streamFormat): this server sends audio.", param: "stream_format")
        }
        let speed = body.speed ?? 1
        guard (0.25...4).contains(speed) else { throw OpenAIError.invalidRequest("'speed' must be between 0.25 and 4.", param: "speed") }
        let voice = body.voice.flatMap { Self.openAIVoices.contains($0.lowercased()) || $0.isEmpty ? nil : $0 }
        let options = SpeechOptions(voice: voice, rate: speed)

        let runtime = environment.runtime
        let selection = ModelResolution.selection(for: body.model, capability: .textToSpeech, catalog: runtime.catalog)
        let tts = try runtime.witnessedTextToSpeech(selection)
        // The on-device engine says cheaply why it cannot serve (a missing model); a remote
        // provider's check would cost a round trip, so its own error speaks instead.
        if selection == .local { try await ensureReady([tts.provider]) }
        let provider = tts.provider
        let input = body.input
        let metrics = environment.metrics

        if format == "wav" {
            let audio = try await withDeadline(environment.deadline, timeout: environment.timeout) {
                try await provider.synthesizeAll(input, options: options)
            }
            if let answered = tts.witness.provider { metrics.recordAnswer(.textToSpeech, provider: answered, chain: tts.chain) }
            var headers = HTTPFields()
            headers[.contentType] = "audio/wav"
            headers.name(tts.witness.provider)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: WAV.encode(audio))))
        }

        // pcm: the headers wait for the first sentence, so that who speaks is known and a
        // failure before any audio has its own status.
        let head = try await StreamHead.start(deadline: environment.deadline, timeout: environment.timeout) {
            provider.synthesize(input, options: options)
        }
        let answered = tts.witness.provider
        if let answered { metrics.recordAnswer(.textToSpeech, provider: answered, chain: tts.chain) }
        var headers = HTTPFields()
        headers[.contentType] = "audio/pcm"
        headers.name(answered)
        let rate = Self.pcmSampleRate
        let response = ResponseBody { writer in
            if let first = head.first { try await writer.write(ByteBuffer(bytes: PCM16.encode(first, rate: rate))) }
            for try await chunk in head.rest { try await writer.write(ByteBuffer(bytes: PCM16.encode(chunk, rate: rate))) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: response)
    }
}
