import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime

/// `POST /v1/audio/speech`: OpenAI's speech synthesis (`input`, `voice`, `speed`,
/// `response_format`, `stream_format`) over the runtime's text-to-speech chain.
///
/// - Every format OpenAI sends, mono: `mp3` (the default, as at OpenAI), `opus` (in Ogg),
///   `aac` (ADTS), `flac` and `pcm` (16-bit little-endian, no header) at 24 kHz, `wav` at
///   the voice's own rate. The
///   compressed ones are encoded by ffmpeg in a separate process (`AudioFiles`); without
///   it they are a 400 naming the formats that work, and the default becomes `wav`.
/// - Streamed: the bytes of each sentence go out as soon as it is synthesized (and
///   encoded); a `wav` that is not streamed as events is sent whole, with its true length.
/// - `stream_format: "sse"`: the same bytes, base64, in `speech.audio.delta` events, then
///   `speech.audio.done` with the usage (input tokens estimated at four bytes a token; an
///   on-device voice spends no output tokens).
/// - OpenAI's voice names each mean a distinct voice of the engine that speaks where it has
///   several (``StandardVoice``: espeak-ng's variants); the neural voice has one speaker and
///   takes them all as itself. Any other name goes to the providers as is (`joe` for the
///   neural voice, `en-gb` for espeak-ng).
struct SpeechEndpoint: Sendable {
    let environment: ServerEnvironment

    /// OpenAI's limit on the input.
    static let maxInputCharacters = 4_096

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
        let codec = environment.audioFiles
        let format = try Self.format(body.response_format, encoderInstalled: codec.isAvailable)
        let events: Bool
        switch body.stream_format ?? "audio" {
        case "audio": events = false
        case "sse": events = true
        case let other:
            throw OpenAIError.invalidRequest("Unsupported 'stream_format' \(other): use audio or sse.", param: "stream_format")
        }
        let speed = body.speed ?? 1
        guard (0.25...4).contains(speed) else { throw OpenAIError.invalidRequest("'speed' must be between 0.25 and 4.", param: "speed") }
        let voice = body.voice.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let options = SpeechOptions(voice: voice, rate: speed)

        let runtime = environment.runtime
        let selection = ModelResolution.selection(for: body.model, capability: .textToSpeech, catalog: runtime.catalog)
        let provider = try runtime.textToSpeech(selection)
        // The on-device engine says cheaply why it cannot serve (a missing model); a remote
        // provider's check would cost a round trip, so its own error speaks instead.
        if selection == .local { try await ensureReady([provider]) }
        let input = body.input

        // The headers wait for the first sentence, so that who speaks is known and a failure
        // before any audio has its own status.
        let head: StreamHead<SpokenChunk>
        do {
            head = try await StreamHead.start(deadline: environment.deadline, timeout: environment.timeout) {
                provider.synthesizeAttributed(input, options: options)
            }
        } catch let error as ChainExhaustedError where options.customVoice != nil {
            // A voice of its own naming that no voice here has is the client's to change.
            throw OpenAIError.invalidRequest(
                "No voice here is called \(options.customVoice?.prefix(100) ?? ""): name one of OpenAI's voices (alloy, echo, nova, …) or an installed one. (\(error))",
                param: "voice", code: "invalid_voice")
        }
        // Each chunk names who spoke it: a chain's member, or the provider asked.
        let answered = head.first?.provider
        if let answered { environment.metrics.recordAnswer(.textToSpeech, provider: answered, chain: provider.members.map(\.identity)) }
        var headers = HTTPFields()
        headers.name(answered)

        if format == .wav, !events {
            var audio = head.first?.audio ?? AudioBuffer(samples: [], sampleRate: SpeechFileFormat.sampleRate)
            for try await chunk in head.rest { audio.appendConverting(chunk.audio) }
            headers[.contentType] = format.contentType
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: WAV.encode(audio))))
        }
        let audio = AsyncThrowingStream<AudioBuffer, any Error> { continuation in
            let task = Task {
                do {
                    if let first = head.first { continuation.yield(first.audio) }
                    for try await chunk in head.rest { continuation.yield(chunk.audio) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let encoded = codec.encode(audio, format: format)
        let logger = environment.logger
        if events {
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            let inputTokens = (input.utf8.count + 3) / 4
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    do {
                        for try await chunk in encoded {
                            try await writer.write(
                                ByteBuffer(string: Self.event(["type": "speech.audio.delta", "audio": .string(chunk.base64EncodedString())])))
                        }
                        let usage: JSONValue = ["input_tokens": .number(Double(inputTokens)), "output_tokens": 0, "total_tokens": .number(Double(inputTokens))]
                        try await writer.write(ByteBuffer(string: Self.event(["type": "speech.audio.done", "usage": usage])))
                    } catch {
                        // The status is sent: the error goes out as an event the SDKs raise.
                        logger.warning("speech stream failed: \(error)")
                        try await writer.write(ByteBuffer(string: OpenAIError.from(error).streamEvent))
                    }
                    try await writer.finish(nil)
                })
        }
        headers[.contentType] = format.contentType
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for try await chunk in encoded { try await writer.write(ByteBuffer(bytes: chunk)) }
                try await writer.finish(nil)
            })
    }

    /// The format named by `response_format`: OpenAI's default, mp3, when it is left out,
    /// or wav where no encoder is installed.
    static func format(_ name: String?, encoderInstalled: Bool) throws(OpenAIError) -> SpeechFileFormat {
        guard let name else { return encoderInstalled ? .mp3 : .wav }
        guard let format = SpeechFileFormat(rawValue: name.lowercased()) else {
            let known = SpeechFileFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidRequest("Unsupported 'response_format' \(name): use one of \(known).", param: "response_format")
        }
        guard format.isBuiltIn || encoderInstalled else {
            throw .invalidRequest(
                "'response_format' \(name) needs ffmpeg, which this server does not have: ask for wav or pcm (or install ffmpeg on the server).",
                param: "response_format")
        }
        return format
    }

    /// One server-sent event carrying `object`.
    static func event(_ object: JSONValue) -> String {
        "data: \(object.text)\n\n"
    }
}
