// realtime — N voice sessions at once on the on-device engines, through an in-process
// `parley serve` and its WebSocket: each streams the spoken question in real time, and the
// client times the first audio of the reply after the server's end of turn. The peer is one
// session alone, measured in the same run.
import Foundation
import HTTPTypes
import Logging
import NIOCore
import ParleyCore
import ParleyRuntime
import ParleyServer
import WSClient

/// What one realtime session saw.
struct RealtimeSessionResult: Sendable {
    var transcript = ""
    var reply = ""
    var status = ""
    /// From `input_audio_buffer.speech_stopped` to the first `response.output_audio.delta`.
    var firstAudio: Double?
    /// From `speech_stopped` to the final transcript.
    var transcription: Double?
}

/// One session: streams `chunks` (base64 PCM, 100 ms each) at real-time pace, then waits
/// for the reply to be done.
func realtimeSession(port: Int, chunks: [String]) async throws -> RealtimeSessionResult {
    var logger = Logger(label: "parley.bench.realtime")
    logger.logLevel = .critical
    let result = ResultBox()
    _ = try await WebSocketClient.connect(
        url: "ws://127.0.0.1:\(port)/v1/realtime", configuration: .init(maxFrameSize: 16 << 20),
        logger: logger
    ) { inbound, outbound, _ in
        let reader = Task { () -> RealtimeSessionResult in
            var seen = RealtimeSessionResult()
            var stopped: ContinuousClock.Instant?
            for try await message in inbound.messages(maxSize: 16 << 20) {
                guard case .text(let text) = message,
                    let event = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                else { continue }
                let now = ContinuousClock.now
                switch event["type"] as? String {
                case "input_audio_buffer.speech_stopped": stopped = now
                case "conversation.item.input_audio_transcription.completed":
                    seen.transcript = event["transcript"] as? String ?? ""
                    if let stopped { seen.transcription = (now - stopped).milliseconds }
                case "response.output_audio.delta":
                    if seen.firstAudio == nil, let stopped { seen.firstAudio = (now - stopped).milliseconds }
                case "response.output_audio_transcript.delta":
                    seen.reply += event["delta"] as? String ?? ""
                case "response.done":
                    seen.status = ((event["response"] as? [String: Any])?["status"] as? String) ?? "?"
                    return seen
                default: break
                }
            }
            return seen
        }
        // REALTIME_PARTIALS_MS: ask for partial transcripts (a Parley extension) every so often.
        if let interval = ProcessInfo.processInfo.environment["REALTIME_PARTIALS_MS"].flatMap(Int.init) {
            try await outbound.write(.text(#"{"type":"session.update","session":{"parley":{"partial_transcript_interval_ms":\#(interval)}}}"#))
        }
        var tick = ContinuousClock.now
        for chunk in chunks {
            try await outbound.write(.text(#"{"type":"input_audio_buffer.append","audio":"\#(chunk)"}"#))
            tick += .milliseconds(100)
            try await Task.sleep(until: tick)
        }
        await result.set(try await reader.value)
        try? await outbound.close(.normalClosure, reason: nil)
    }
    return await result.value
}

actor ResultBox {
    var value = RealtimeSessionResult()
    func set(_ result: RealtimeSessionResult) { value = result }
}

func realtimeSuite() async throws {
    print("realtime: N sessions at once, each streaming the spoken question in real time (on-device engines)")
    let paths = ParleyPaths.current()
    let question = try WAV.decode(Data(contentsOf: paths.sampleQuestion)).resampled(to: 24_000)
    let audio = question.samples + [Float](repeating: 0, count: 24_000 * 3 / 2)
    let chunks = stride(from: 0, to: audio.count, by: 2_400).map { start in
        Data(PCM16.encode(Array(audio[start..<min(audio.count, start + 2_400)]))).base64EncodedString()
    }
    let database = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID())/parley.sqlite")
    defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
    let environment = ProcessInfo.processInfo.environment.filter { !RuntimeSettings.names.contains($0.key) }
    let runtime = Runtime(
        settings: RuntimeSettings(values: environment.merging(["PARLEY_DATABASE": database.path]) { $1 }),
        catalog: .standard)
    var quiet = Logger(label: "parley.bench.server")
    quiet.logLevel = .critical
    let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
    let server = try ParleyServer(runtime: runtime, configuration: ServerConfiguration(port: 0, probeInterval: nil), logger: quiet) { port in
        portSink.yield(port)
        portSink.finish()
    }
    let serving = Task { try await server.run() }
    defer { serving.cancel() }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { return }

    _ = try await realtimeSession(port: port, chunks: chunks)  // warm-up: the models load
    var alone: Double?
    for count in [1, 2, 4, 8] {
        let results = try await withThrowingTaskGroup(of: RealtimeSessionResult.self) { group in
            for _ in 0..<count { group.addTask { try await realtimeSession(port: port, chunks: chunks) } }
            var all: [RealtimeSessionResult] = []
            for try await result in group { all.append(result) }
            return all
        }
        let firstAudio = results.compactMap(\.firstAudio)
        let completed = results.filter { $0.status == "completed" }.count
        let right = results.filter { $0.transcript.lowercased().contains("france") && $0.reply.contains("Paris") }.count
        let p50 = median(firstAudio), worst = firstAudio.max() ?? 0
        if count == 1 { alone = p50 }
        print(
            String(
                format:
                    "  %d session%@: first audio after end of turn p50 %.0f ms, max %.0f ms (%.1f× one session alone); transcription p50 %.0f ms; %d/%d completed, %d/%d heard France and answered Paris",
                count, count == 1 ? " " : "s", p50, worst, alone.map { p50 / $0 } ?? 1, median(results.compactMap(\.transcription)),
                completed, count, right, count))
    }
}
