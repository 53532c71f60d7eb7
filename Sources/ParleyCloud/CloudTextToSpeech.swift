import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore

/// Streams raw 16-bit PCM from an HTTP response as audio chunks.
private func streamPCM(
    _ call: HTTPCall, _ request: HTTPClientRequest, sampleRate: Int,
    into output: AsyncThrowingStream<AudioBuffer, any Error>.Continuation
) async throws {
    let response = try await call.send(request)
    var decoder = PCM16Decoder(sampleRate: sampleRate)
    for try await buffer in call.chunks(response) {
        let chunk = decoder.decode(buffer.readableBytesView)
        if !chunk.isEmpty { output.yield(chunk) }
    }
}

private func requireText(_ text: String) throws {
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw ProviderError.invalidInput("There is no text to speak.")
    }
}

/// OpenAI's `/v1/audio/speech`, streamed as 24 kHz PCM.
public struct OpenAITextToSpeech: TextToSpeechProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    /// The voice when a request names none.
    public let defaultVoice: String
    private let call: HTTPCall

    /// Creates the provider; `model` e.g. "gpt-4o-mini-tts" or "tts-1".
    public init(configuration: SpeechServiceConfiguration, defaultVoice: String = "alloy") {
        self.configuration = configuration
        self.defaultVoice = defaultVoice
        self.identity = ProviderIdentity(
            name: "openai", model: configuration.model,
            isLocal: OpenAILanguageModel.Configuration.isLoopback(configuration.baseURL))
        self.call = HTTPCall(provider: "openai", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        await openAICompatibleAvailability(baseURL: configuration.baseURL, apiKey: configuration.apiKey, name: "openai")
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        struct Body: Encodable {
            var model: String
            var input: String
            var voice: String
            var response_format = "pcm"
            var speed: Double
        }
        let call = self.call
        let configuration = self.configuration
        let body = Body(model: configuration.model, input: text, voice: options.voice ?? defaultVoice, speed: options.rate)
        return .producing { output in
            try requireText(text)
            let request = try call.request(
                join(configuration.baseURL, "/audio/speech"),
                headers: configuration.apiKey.map { [("authorization", "Bearer \($0)")] } ?? [], json: body)
            try await streamPCM(call, request, sampleRate: 24_000, into: output)
        }
    }
}

/// Deepgram Aura text-to-speech: `POST /v1/speak`, raw 24 kHz linear16.
public struct DeepgramTextToSpeech: TextToSpeechProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    private let call: HTTPCall

    /// Creates the provider; `model` is the voice model, e.g. "aura-2-thalia-en".
    public init(configuration: SpeechServiceConfiguration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: "deepgram", model: configuration.model, isLocal: false)
        self.call = HTTPCall(provider: "deepgram", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        configuration.apiKey == nil ? .missingKey(variable: "DEEPGRAM_API_KEY") : .ready
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        struct Body: Encodable { var text: String }
        let call = self.call
        let configuration = self.configuration
        let model = options.customVoice ?? configuration.model
        return .producing { output in
            try requireText(text)
            guard let key = configuration.apiKey else { throw ProviderError.unavailable(provider: "deepgram", .missingKey(variable: "DEEPGRAM_API_KEY")) }
            let url = join(configuration.baseURL, "/v1/speak?model=\(model)&encoding=linear16&sample_rate=24000&container=none")
            let request = try call.request(url, headers: [("authorization", "Token \(key)")], json: Body(text: text))
            try await streamPCM(call, request, sampleRate: 24_000, into: output)
        }
    }
}

/// ElevenLabs streaming text-to-speech: `POST /v1/text-to-speech/{voice}/stream`, 16 kHz PCM.
public struct ElevenLabsTextToSpeech: TextToSpeechProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    /// The voice ID when a request names none.
    public let defaultVoice: String
    private let call: HTTPCall

    public static let defaultBaseURL = "https://api.elevenlabs.io"

    /// Creates the provider; `model` e.g. "eleven_flash_v2_5".
    public init(configuration: SpeechServiceConfiguration, defaultVoice: String = "21m00Tcm4TlvDq8ikWAM") {
        self.configuration = configuration
        self.defaultVoice = defaultVoice
        self.identity = ProviderIdentity(name: "elevenlabs", model: configuration.model, isLocal: false)
        self.call = HTTPCall(provider: "elevenlabs", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        configuration.apiKey == nil ? .missingKey(variable: "ELEVENLABS_API_KEY") : .ready
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        struct Body: Encodable {
            var text: String
            var model_id: String
        }
        let call = self.call
        let configuration = self.configuration
        let voice = options.customVoice ?? defaultVoice
        return .producing { output in
            try requireText(text)
            guard let key = configuration.apiKey else { throw ProviderError.unavailable(provider: "elevenlabs", .missingKey(variable: "ELEVENLABS_API_KEY")) }
            let url = join(configuration.baseURL, "/v1/text-to-speech/\(voice)/stream?output_format=pcm_16000")
            let request = try call.request(url, headers: [("xi-api-key", key)], json: Body(text: text, model_id: configuration.model))
            try await streamPCM(call, request, sampleRate: 16_000, into: output)
        }
    }
}

/// A self-hosted Piper HTTP server: `POST /` with `{"text": …}` (and an optional voice),
/// answered with a WAV file.
public struct PiperHTTPTextToSpeech: TextToSpeechProvider {
    public let baseURL: String
    public let identity: ProviderIdentity
    private let call: HTTPCall

    /// Creates the provider for the server at `baseURL`, e.g. `http://127.0.0.1:5000`.
    public init(baseURL: String, timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.baseURL = baseURL
        self.identity = ProviderIdentity(name: "piper", isLocal: OpenAILanguageModel.Configuration.isLoopback(baseURL))
        self.call = HTTPCall(provider: "piper", timeouts: timeouts)
    }

    public func availability() async -> Availability {
        let probe = HTTPCall(provider: "piper", timeouts: .probe)
        do {
            _ = try await probe.data(try probe.request(join(baseURL, "/voices"), method: .GET), limit: 1 << 20)
            return .ready
        } catch let error as HTTPProviderError where error.kind != .transport && error.kind != .timeout(.connect) {
            return .ready  // it answered
        } catch {
            return .serverUnreachable(url: baseURL, reason: "\(error)")
        }
    }

    public func synthesize(_ text: String, options: SpeechOptions) -> AsyncThrowingStream<AudioBuffer, any Error> {
        struct Body: Encodable {
            var text: String
            var voice: String?
            var length_scale: Double
        }
        let call = self.call
        let url = join(baseURL, "/")
        return .producing { output in
            try requireText(text)
            let body = Body(text: text, voice: options.customVoice, length_scale: 1 / max(0.25, options.rate))
            let data = try await call.data(try call.request(url, json: body))
            do {
                output.yield(try WAV.decode(data, streamed: true))
            } catch {
                throw HTTPProviderError(provider: "piper", kind: .malformedResponse, message: "not a WAV file: \(error)")
            }
        }
    }
}
