import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime

/// `POST /v1/audio/transcriptions` and `POST /v1/audio/translations`: OpenAI's audio uploads
/// (multipart/form-data) over the runtime's speech-to-text chain.
///
/// - `file`: whatever browsers and phones record — WAV (read in process), WebM/Opus, Ogg,
///   MP3, M4A/AAC, FLAC, AIFF, CAF (through ffmpeg, `AudioFiles`) — told from its bytes,
///   up to ``ServerConfiguration/maxAudioSeconds``.
/// - `response_format`: `json`, `text`, `srt`, `vtt`, `verbose_json` (segments, and words
///   with `timestamp_granularities[]=word`).
/// - `stream=true` (transcriptions): server-sent `transcript.text.delta` events, one per
///   segment as the transcript is written, then `transcript.text.done`.
/// - `language` and `prompt` go to the engine; translations write English whatever was
///   spoken (where the engine translates: a multilingual Whisper, OpenAI).
struct TranscriptionsEndpoint: Sendable {
    let environment: ServerEnvironment

    /// Bytes a form may carry besides the audio (its other fields and part headers).
    static let formOverhead = 64 * 1024
    /// The formats a transcript is written in.
    static let formats = ["json", "text", "srt", "verbose_json", "vtt"]

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/audio/transcriptions") { request, _ in try await respond(to: request, translate: false) }
        router.post("/v1/audio/translations") { request, _ in try await respond(to: request, translate: true) }
    }

    func respond(to request: Request, translate: Bool) async throws -> Response {
        let form: MultipartForm
        do {
            let boundary = try MultipartForm.boundary(contentType: request.headers[.contentType])
            let body = try await request.collectBody(limit: environment.configuration.maxAudioBytes + Self.formOverhead)
            form = try MultipartForm.parse(Array(body.readableBytesView), boundary: boundary)
        } catch let failure as MultipartForm.Failure {
            throw OpenAIError.invalidRequest(failure.description, code: "invalid_multipart")
        }
        guard let file = form["file"], file.filename != nil || !file.data.isEmpty else {
            throw OpenAIError.invalidRequest("Missing required parameter: 'file'.", param: "file", code: "missing_required_parameter")
        }
        let format = form["response_format"]?.text.trimmingCharacters(in: .whitespaces) ?? "json"
        guard Self.formats.contains(format) else {
            throw OpenAIError.invalidRequest("Invalid 'response_format' \(format): use \(Self.formats.joined(separator: ", ")).", param: "response_format")
        }
        let granularities = Set(
            form.parts.filter { $0.name == "timestamp_granularities[]" || $0.name == "timestamp_granularities" }
                .map { $0.text.trimmingCharacters(in: .whitespaces) })
        if let unknown = granularities.subtracting(["word", "segment"]).first {
            throw OpenAIError.invalidRequest("Invalid 'timestamp_granularities[]' \(unknown): use word or segment.", param: "timestamp_granularities")
        }
        let stream = try Self.flag(form["stream"]?.text, name: "stream")
        if stream, translate {
            throw OpenAIError.invalidRequest("'stream' is for transcriptions; translations answer whole.", param: "stream")
        }
        if stream, format != "json", format != "text" {
            throw OpenAIError.invalidRequest("A streamed transcript is sent as events: use response_format json or text with 'stream'.", param: "stream")
        }
        let audio = try await environment.decodeAudio(Data(file.data))
        guard audio.duration >= 0.05 else {
            throw OpenAIError.invalidRequest(
                "The audio is too short to transcribe (\(String(format: "%.3f", audio.duration)) s).", param: "file",
                code: "audio_too_short")
        }
        // `language`: a code, or `auto` to detect it; without it the server's
        // (`parley serve --language`), else English.
        var options = TranscriptionOptions(language: (environment.configuration.language ?? .english).transcriptionLanguage)
        if let language = form["language"]?.text.trimmingCharacters(in: .whitespaces), !language.isEmpty {
            do {
                options.language = try LanguageSetting(parsing: language).transcriptionLanguage
            } catch {
                throw OpenAIError.invalidRequest("Invalid 'language': \(error.description)", param: "language", code: "invalid_language")
            }
        }
        if let prompt = form["prompt"]?.text, !prompt.isEmpty { options.prompt = prompt }
        options.wordTimestamps = format == "verbose_json" && granularities.contains("word")
        options.translate = translate
        if translate { options.language = nil }

        let runtime = environment.runtime
        let selection = ModelResolution.selection(for: form["model"]?.text, capability: .speechToText, catalog: runtime.catalog)
        let provider = try runtime.speechToText(selection)
        // The on-device engine says cheaply why it cannot serve (a missing model); a remote
        // provider's check would cost a round trip, so its own error speaks instead.
        if selection == .local { try await ensureReady([provider]) }
        let settled = options
        let transcript = try await withDeadline(environment.deadline, timeout: environment.timeout) {
            try await provider.transcribe(audio, options: settled)
        }
        // A chain names the member that transcribed; a single provider is the one asked.
        let answered = transcript.provider ?? provider.identity
        environment.metrics.recordAnswer(.speechToText, provider: answered, chain: provider.members.map(\.identity))

        var headers = HTTPFields()
        headers.name(answered)
        let timed = TimedTranscript(transcript, duration: audio.duration)
        if stream {
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            var events = ""
            for (index, segment) in timed.segments.enumerated() where !segment.text.isEmpty {
                let delta = index == 0 ? segment.text : " " + segment.text
                events += SpeechEndpoint.event(["type": "transcript.text.delta", "delta": .string(delta)])
            }
            events += SpeechEndpoint.event(["type": "transcript.text.done", "text": .string(transcript.text)])
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: events)))
        }
        let body: Data
        switch format {
        case "text":
            headers[.contentType] = "text/plain; charset=utf-8"
            body = Data((transcript.text + "\n").utf8)
        case "srt":
            headers[.contentType] = "text/plain; charset=utf-8"
            body = Data(timed.srt.utf8)
        case "vtt":
            headers[.contentType] = "text/vtt; charset=utf-8"
            body = Data(timed.vtt.utf8)
        case "verbose_json":
            headers[.contentType] = "application/json"
            let verbose = Verbose(
                timed, task: translate ? "translate" : "transcribe",
                language: translate ? "english" : Self.languageName(transcript.language ?? options.language),
                words: options.wordTimestamps, segments: granularities.isEmpty || granularities.contains("segment"))
            body = try JSONEncoder().encode(verbose)
        default:
            headers[.contentType] = "application/json"
            body = try JSONEncoder().encode(["text": transcript.text])
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A form field that is a boolean (`true`/`false`, absent: false).
    static func flag(_ text: String?, name: String) throws(OpenAIError) -> Bool {
        switch text?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "false", "0": return false
        case "true", "1": return true
        case let other?: throw .invalidRequest("'\(name)' must be true or false, not \(other.prefix(20)).", param: name)
        }
    }

    /// The language's English name, as OpenAI's `verbose_json` gives it.
    static func languageName(_ code: String?) -> String {
        guard let code, !code.isEmpty else { return "english" }
        return Locale(identifier: "en").localizedString(forLanguageCode: code)?.lowercased() ?? code
    }

    /// `verbose_json`: the text with its language, duration, timed segments and words.
    struct Verbose: Encodable {
        struct Segment: Encodable {
            var id: Int
            var seek = 0
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int] = []
            var temperature = 0.0
        }
        struct Word: Encodable {
            var word: String
            var start: Double
            var end: Double
        }
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]?
        var words: [Word]?

        init(_ timed: TimedTranscript, task: String, language: String, words: Bool, segments: Bool) {
            self.task = task
            self.language = language
            self.duration = timed.duration
            self.text = timed.text
            self.segments =
                segments ? timed.segments.enumerated().map { Segment(id: $0.offset, start: $0.element.start, end: $0.element.end, text: $0.element.text) } : nil
            self.words = words ? timed.words.map { Word(word: $0.text, start: $0.start, end: $0.end) } : nil
        }
    }
}
