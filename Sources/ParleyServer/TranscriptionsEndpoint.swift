import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime

/// `POST /v1/audio/transcriptions`: OpenAI's transcription upload (multipart/form-data with
/// `file`, `model`, `response_format` json|text|verbose_json, `language`, `prompt`) over the
/// runtime's speech-to-text chain. The file must be a WAV (any PCM or float encoding, rate
/// and channel count).
struct TranscriptionsEndpoint: Sendable {
    let environment: ServerEnvironment

    /// Bytes a form may carry besides the audio (its other fields and part headers).
    static let formOverhead = 64 * 1024

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/audio/transcriptions") { request, _ in try await respond(to: request) }
    }

    func respond(to request: Request) async throws -> Response {
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
        guard ["json", "text", "verbose_json"].contains(format) else {
            throw OpenAIError.invalidRequest("Invalid 'response_format' \(format): use json, text or verbose_json.", param: "response_format")
        }
        let audio = try WAV.decode(Data(file.data))
        guard audio.duration >= 0.05 else {
            throw OpenAIError.invalidRequest("The audio is too short to transcribe (\(String(format: "%.3f", audio.duration)) s).", param: "file",
                                             code: "audio_too_short")
        }
        var options = TranscriptionOptions()
        if let language = form["language"]?.text.trimmingCharacters(in: .whitespaces), !language.isEmpty { options.language = language }
        if let prompt = form["prompt"]?.text, !prompt.isEmpty { options.prompt = prompt }

        let runtime = environment.runtime
        let selection = ModelResolution.selection(for: form["model"]?.text, capability: .speechToText, catalog: runtime.catalog)
        let stt = try runtime.witnessedSpeechToText(selection)
        // The on-device engine says cheaply why it cannot serve (a missing model); a remote
        // provider's check would cost a round trip, so its own error speaks instead.
        if selection == .local { try await ensureReady([stt.provider]) }
        let provider = stt.provider
        let settled = options
        let transcript = try await withDeadline(environment.deadline, timeout: environment.timeout) {
            try await provider.transcribe(audio, options: settled)
        }
        let answered = stt.witness.provider
        if let answered { environment.metrics.recordAnswer(.speechToText, provider: answered, chain: stt.chain) }

        var headers = HTTPFields()
        headers.name(answered)
        let body: Data
        switch format {
        case "text":
            headers[.contentType] = "text/plain; charset=utf-8"
            body = Data(transcript.text.utf8)
        case "verbose_json":
            headers[.contentType] = "application/json"
            body = try JSONEncoder().encode(Verbose(transcript, duration: audio.duration, language: options.language ?? "en"))
        default:
            headers[.contentType] = "application/json"
            body = try JSONEncoder().encode(["text": transcript.text])
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `verbose_json`: the text with its language, duration and timed segments.
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
        var task = "transcribe"
        var language: String
        var duration: Double
        var text: String
        var segments: [Segment]

        init(_ transcript: Transcript, duration: Double, language: String) {
            self.language = language
            self.duration = duration
            self.text = transcript.text
            let timed = transcript.segments.isEmpty ? [Transcript.Segment(start: 0, end: duration, text: transcript.text)] : transcript.segments
            segments = timed.enumerated().map { Segment(id: $0.offset, start: $0.element.start, end: $0.element.end, text: $0.element.text) }
        }
    }
}
