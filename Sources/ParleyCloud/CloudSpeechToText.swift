import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore

/// Settings every HTTP speech provider shares.
public struct SpeechServiceConfiguration: Sendable, Equatable {
    public var baseURL: String
    public var apiKey: String?
    /// The model (or voice, for TTS).
    public var model: String
    public var timeouts: HTTPTimeouts

    /// Creates a configuration.
    public init(baseURL: String, apiKey: String?, model: String, timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.model = model
        self.timeouts = timeouts
    }
}

/// OpenAI's `/v1/audio/transcriptions` (multipart upload), also served by OpenAI-compatible
/// servers.
public struct OpenAISpeechToText: SpeechToTextProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    public let preferredSampleRate = 16_000
    private let call: HTTPCall

    /// Creates the provider; `model` e.g. "whisper-1" or "gpt-4o-mini-transcribe".
    public init(configuration: SpeechServiceConfiguration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(
            name: "openai", model: configuration.model,
            isLocal: OpenAILanguageModel.Configuration.isLoopback(configuration.baseURL))
        self.call = HTTPCall(provider: "openai", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        await openAICompatibleAvailability(baseURL: configuration.baseURL, apiKey: configuration.apiKey, name: "openai")
    }

    /// Transcribes (or, with ``TranscriptionOptions/translate``, translates into English
    /// through `/audio/translations`); word times are asked for with `verbose_json` (which
    /// whisper-1 writes) only when they are wanted.
    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        var form = MultipartForm()
        form.add(name: "model", value: configuration.model)
        form.add(name: "response_format", value: options.wordTimestamps ? "verbose_json" : "json")
        if options.wordTimestamps {
            form.add(name: "timestamp_granularities[]", value: "word")
            form.add(name: "timestamp_granularities[]", value: "segment")
        }
        if let language = options.language, !options.translate { form.add(name: "language", value: language) }
        if let prompt = options.prompt { form.add(name: "prompt", value: prompt) }
        form.add(name: "file", filename: "audio.wav", contentType: "audio/wav", data: WAV.encode(audio.resampled(to: preferredSampleRate)))
        let path = options.translate ? "/audio/translations" : "/audio/transcriptions"
        var request = try call.request(
            join(configuration.baseURL, path),
            headers: configuration.apiKey.map { [("authorization", "Bearer \($0)")] } ?? [])
        request.headers.add(name: "content-type", value: form.contentType)
        request.body = .bytes(ByteBuffer(data: form.finished()))
        struct Timed: Decodable { var start: Double; var end: Double; var text: String?; var word: String? }
        struct Reply: Decodable { var text: String; var segments: [Timed]?; var words: [Timed]? }
        let reply = try await call.json(Reply.self, request)
        return Transcript(
            text: reply.text.trimmingCharacters(in: .whitespacesAndNewlines),
            segments: (reply.segments ?? []).map { .init(start: $0.start, end: $0.end, text: ($0.text ?? "").trimmingCharacters(in: .whitespaces)) },
            words: (reply.words ?? []).map { .init(start: $0.start, end: $0.end, text: $0.word ?? $0.text ?? "") })
    }
}

/// Deepgram pre-recorded transcription: `POST /v1/listen` with the WAV as the body.
public struct DeepgramSpeechToText: SpeechToTextProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    public let preferredSampleRate = 16_000
    private let call: HTTPCall

    public static let defaultBaseURL = "https://api.deepgram.com"

    /// Creates the provider; `model` e.g. "nova-3".
    public init(configuration: SpeechServiceConfiguration) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: "deepgram", model: configuration.model, isLocal: false)
        self.call = HTTPCall(provider: "deepgram", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        configuration.apiKey == nil ? .missingKey(variable: "DEEPGRAM_API_KEY") : .ready
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        guard let key = configuration.apiKey else { throw ProviderError.unavailable(provider: "deepgram", .missingKey(variable: "DEEPGRAM_API_KEY")) }
        var query = "model=\(configuration.model)&smart_format=true&punctuate=true"
        if let language = options.language { query += "&language=\(language)" }
        var request = try call.request(join(configuration.baseURL, "/v1/listen?\(query)"), headers: [("authorization", "Token \(key)")])
        request.headers.add(name: "content-type", value: "audio/wav")
        request.body = .bytes(ByteBuffer(data: WAV.encode(audio.resampled(to: preferredSampleRate))))
        struct Reply: Decodable {
            struct Results: Decodable {
                struct Channel: Decodable {
                    struct Alternative: Decodable { var transcript: String }
                    var alternatives: [Alternative]
                }
                var channels: [Channel]
            }
            var results: Results
        }
        let reply = try await call.json(Reply.self, request)
        return Transcript(text: reply.results.channels.first?.alternatives.first?.transcript ?? "")
    }
}

/// AssemblyAI: upload the audio, create a transcript, poll until it is `completed` or `error`.
public struct AssemblyAISpeechToText: SpeechToTextProvider {
    public let configuration: SpeechServiceConfiguration
    public let identity: ProviderIdentity
    public let preferredSampleRate = 16_000
    /// Time between polls.
    public let pollInterval: Duration
    /// Polls before giving up.
    public let maxPolls: Int
    private let call: HTTPCall
    private let pause: @Sendable (Duration) async throws -> Void

    public static let defaultBaseURL = "https://api.assemblyai.com"

    /// Creates the provider. `pause` waits between polls (injectable for tests).
    public init(
        configuration: SpeechServiceConfiguration, pollInterval: Duration = .milliseconds(500), maxPolls: Int = 600,
        pause: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.identity = ProviderIdentity(name: "assemblyai", model: configuration.model, isLocal: false)
        self.pollInterval = pollInterval
        self.maxPolls = maxPolls
        self.pause = pause
        self.call = HTTPCall(provider: "assemblyai", timeouts: configuration.timeouts)
    }

    public func availability() async -> Availability {
        configuration.apiKey == nil ? .missingKey(variable: "ASSEMBLYAI_API_KEY") : .ready
    }

    public func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript {
        guard let key = configuration.apiKey else { throw ProviderError.unavailable(provider: "assemblyai", .missingKey(variable: "ASSEMBLYAI_API_KEY")) }
        let auth = [("authorization", key)]
        var upload = try call.request(join(configuration.baseURL, "/v2/upload"), headers: auth)
        upload.headers.add(name: "content-type", value: "application/octet-stream")
        upload.body = .bytes(ByteBuffer(data: WAV.encode(audio.resampled(to: preferredSampleRate))))
        struct Uploaded: Decodable { var upload_url: String }
        let audioURL = try await call.json(Uploaded.self, upload).upload_url

        struct Create: Encodable {
            var audio_url: String
            var speech_model: String?
            var language_code: String?
        }
        struct Job: Decodable {
            var id: String
            var status: String
            var text: String?
            var error: String?
        }
        var job = try await call.json(
            Job.self,
            call.request(
                join(configuration.baseURL, "/v2/transcript"), headers: auth,
                json: Create(audio_url: audioURL, speech_model: configuration.model, language_code: options.language)))
        for _ in 0..<maxPolls {
            switch job.status {
            case "completed":
                return Transcript(text: job.text ?? "")
            case "error":
                throw HTTPProviderError(provider: "assemblyai", kind: .badRequest(status: 200), message: job.error ?? "transcription failed")
            default:
                try await pause(pollInterval)
                job = try await call.json(Job.self, call.request(join(configuration.baseURL, "/v2/transcript/\(job.id)"), method: .GET, headers: auth))
            }
        }
        throw HTTPProviderError(provider: "assemblyai", kind: .timeout(.firstByte), message: "the transcript was not ready after \(maxPolls) polls")
    }
}
