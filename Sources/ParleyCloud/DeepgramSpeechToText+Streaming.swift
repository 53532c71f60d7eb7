import Foundation
import HTTPTypes
import Logging
import NIOCore
import ParleyCore
import Synchronization
import WSClient

extension DeepgramSpeechToText {
    /// Deepgram's WebSocket API transcribes while the audio streams.
    public var transcribesLive: Bool { true }

    /// Live transcription over Deepgram's WebSocket API (`/v1/listen` with `interim_results`):
    /// audio goes up as 16-bit PCM binary messages while it arrives, interim results come back
    /// as partial transcripts, and the final transcript is every result Deepgram marked final,
    /// in order. The stream ends with a `CloseStream` message, after which Deepgram sends what
    /// it still holds and closes.
    public func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        let configuration = self.configuration
        let rate = preferredSampleRate
        return .producing { continuation in
            do {
                guard let key = configuration.apiKey else {
                    throw ProviderError.unavailable(provider: "deepgram", .missingKey(variable: "DEEPGRAM_API_KEY"))
                }
                var query =
                    "model=\(configuration.model)&encoding=linear16&sample_rate=\(rate)&channels=1"
                    + "&interim_results=true&smart_format=true&punctuate=true"
                if let language = options.language { query += "&language=\(language)" }
                let url = Self.webSocketURL(configuration.baseURL) + "/v1/listen?" + query
                var headers = HTTPFields()
                if let name = HTTPField.Name("authorization") { headers[name] = "Token \(key)" }
                let results = LiveResults()
                let close = try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
                    logger: Logger(label: "parley.deepgram")
                ) { inbound, outbound, _ in
                    // Audio goes up while results come down.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            var converter = StreamingResampler(from: rate, to: rate)
                            var inputRate = rate
                            for try await frame in frames {
                                if frame.sampleRate != inputRate {
                                    inputRate = frame.sampleRate
                                    converter = StreamingResampler(from: inputRate, to: rate)
                                }
                                let samples = converter.process(frame.samples)
                                guard !samples.isEmpty else { continue }
                                try await outbound.write(.binary(ByteBuffer(bytes: PCM16.encode(samples))))
                            }
                            let rest = converter.finish()
                            if !rest.isEmpty { try await outbound.write(.binary(ByteBuffer(bytes: PCM16.encode(rest)))) }
                            try await outbound.write(.text(#"{"type":"CloseStream"}"#))
                        }
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            if let partial = try results.add(text) { continuation.yield(.partial(partial)) }
                        }
                        group.cancelAll()
                    }
                }
                if let close, close.closeCode != .normalClosure {
                    throw HTTPProviderError(
                        provider: "deepgram", kind: .server(status: 0),
                        message: "the live session closed with \(close.closeCode): \(close.reason ?? "")")
                }
                continuation.yield(.final(Transcript(text: results.finalText)))
            } catch {
                throw Self.liveError(error)
            }
        }
    }

    /// A live session's failure as the stream reports it: provider errors and cancellation as
    /// they are, anything else (WebSocket, TLS) as a transport error.
    static func liveError(_ error: any Error) -> any Error {
        if error is HTTPProviderError || error is ProviderError || error is CancellationError { return error }
        return HTTPProviderError(provider: "deepgram", kind: .transport, message: "\(error)")
    }

    /// The WebSocket form of an HTTP base URL.
    static func webSocketURL(_ base: String) -> String {
        var url = base.hasSuffix("/") ? String(base.dropLast()) : base
        if url.hasPrefix("https://") { url = "wss://" + url.dropFirst("https://".count) }
        if url.hasPrefix("http://") { url = "ws://" + url.dropFirst("http://".count) }
        return url
    }
}

/// The results of a live session: the finals so far and the latest interim. A lock box,
/// shared by the reading task and the stream's end.
private final class LiveResults: Sendable {
    private let finals = Mutex<[String]>([])

    private struct Message: Decodable {
        struct Channel: Decodable {
            struct Alternative: Decodable { var transcript: String }
            var alternatives: [Alternative]
        }
        var type: String
        var channel: Channel?
        var is_final: Bool?
    }

    /// Takes one server message; returns the partial transcript it makes, if any.
    func add(_ text: String) throws -> String? {
        let message: Message
        do {
            message = try JSONDecoder().decode(Message.self, from: Data(text.utf8))
        } catch {
            throw HTTPProviderError(provider: "deepgram", kind: .malformedResponse, message: "unreadable live message: \(text.prefix(200))")
        }
        guard message.type == "Results", let transcript = message.channel?.alternatives.first?.transcript else { return nil }
        return finals.withLock { finals in
            if message.is_final == true {
                if !transcript.isEmpty { finals.append(transcript) }
                return finals.joined(separator: " ")
            }
            return (finals + (transcript.isEmpty ? [] : [transcript])).joined(separator: " ")
        }
    }

    /// Every final result, in order.
    var finalText: String { finals.withLock { $0.joined(separator: " ") } }
}
