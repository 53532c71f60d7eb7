// Benchmarks of the provider layer, each against a peer measured in the same run:
//   http   — the OpenAI streaming client's parse rate vs reading the same bytes raw
//   chain  — what a fallback chain adds to a request that needs no fallback, and how long a
//            failover takes for each fault (against real local HTTP servers)
//   realtime — 1, 2, 4 and 8 voice sessions at once through `parley serve`'s WebSocket on the
//            on-device engines: first audio after the end of turn, against one session alone
//   structured — grammar-constrained vs free JSON generation on the on-device models: tokens/s
//            and the share of schema-valid replies (Benchmarks/structured/cases.json)
//   voices — the neural voice and espeak-ng: first audio, real-time factor, memory, and
//            whisper.cpp's word error rate on 30 sentences each speaks
//   ears   — every speech model installed here (whisper.cpp tiny.en, base, Moonshine base, …) on
//            recorded human speech: word error rate, final-transcript time, memory (scripts/ears/recordings.tsv)
//   silero — the Swift Silero VAD network: milliseconds per 32 ms chunk against the real-time
//            budget (also meaningful in a debug build: `swift run parley-benchmarks silero`)
//   smartturn — the audio turn model (Smart Turn v3.2 under ONNX Runtime, one thread): ms per
//            score for the Swift features and the model, on the reference clips
//   earsecho — what the echo cancellers do to the user's words: recorded human speech alone and
//            over a reply's echo, through each canceller, word error rate (EarsEchoSuite.swift)
//   room   — the room rig: self-interruptions by the reply's echo with and without SpeexDSP's
//            echo canceller, backchannels and coughs left uncut, barge-ins cut, ERLE (RoomSuite.swift)
//   wakeverify — the wake word's two stages (the head's score every 80 ms, whisper.cpp's check
//            where it could fire) on train.py's evaluation audio, for cascade.py (Benchmarks/wake_word/run)
// Run with Benchmarks/run --suite http|chain|silero|smartturn|realtime|structured|voices|ears|earsecho|room (release build). Figures are medians.
import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCloud
import ParleyCore
import ParleyLocal
import ParleySilero
import ParleyTestServers
import ParleyTesting

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func measure(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    return (clock.now - start).milliseconds
}

// MARK: http

func httpSuite() async throws {
    let tokens = 50_000
    var text = ""
    for index in 0..<tokens {
        text +=
            "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok\(index % 10) \"},\"finish_reason\":null}]}\n\n"
    }
    text += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":\(tokens)}}\n\ndata: [DONE]\n\n"
    let body = Data(text.utf8)
    let chunks = stride(from: 0, to: body.count, by: 16_384).map { body[$0..<min(body.count, $0 + 16_384)] }.map { Data($0) }
    let server = try await WireServer.start { _ in .stream(contentType: "text/event-stream", chunks: chunks) }
    defer { server.stop() }
    let model = OpenAILanguageModel(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: "k", model: "m"))
    let request = ChatRequest(messages: [.user("go")])

    var raw: [Double] = [], client: [Double] = [], parser: [Double] = []
    for _ in 0..<7 {
        raw.append(
            try await measure {
                var httpRequest = HTTPClientRequest(url: server.baseURL + "/v1/chat/completions")
                httpRequest.method = .POST
                httpRequest.body = .bytes(ByteBuffer(string: "{}"))
                let response = try await HTTPClient.shared.execute(httpRequest, timeout: .seconds(30))
                var bytes = 0
                for try await buffer in response.body { bytes += buffer.readableBytes }
                precondition(bytes == body.count)
            })
        client.append(
            try await measure {
                var count = 0
                for try await event in model.complete(request) { if case .text = event { count += 1 } }
                precondition(count == tokens)
            })
        parser.append(
            await measure {
                var sse = SSEParser()
                var count = 0
                for chunk in chunks { count += sse.feed(chunk).count }
                precondition(count == tokens + 2)
            })
    }
    let rawMs = median(raw), clientMs = median(client), parserMs = median(parser)
    print("http: \(tokens) streamed tokens (\(body.count / 1024) KiB of SSE) from a local server, median of 7")
    print(String(format: "  raw byte read (AsyncHTTPClient)        %8.1f ms  %10.0f tokens/s", rawMs, Double(tokens) / rawMs * 1000))
    print(
        String(
            format: "  OpenAI client (read + parse + decode)  %8.1f ms  %10.0f tokens/s  (%.2f× the raw read)", clientMs, Double(tokens) / clientMs * 1000,
            clientMs / rawMs))
    print(String(format: "  SSE parser alone, in memory            %8.1f ms  %10.0f events/s", parserMs, Double(tokens) / parserMs * 1000))
    print(String(format: "  client cost per token beyond the raw read: %.2f µs", (clientMs - rawMs) / Double(tokens) * 1000))
}

// MARK: chain

func chainSuite() async throws {
    let clock = ContinuousClock()
    let pieces = (0..<32).map { "t\($0) " }
    let request = ChatRequest(messages: [.user("hi")])

    // Overhead on the happy path: the same in-process provider, direct vs through a chain.
    let direct = FaultyLanguageModel(name: "direct", pieces: pieces)
    let chain = LanguageModelChain(
        providers: [FaultyLanguageModel(name: "chained", pieces: pieces)],
        health: ProviderHealth(clock: clock), clock: clock)
    var directTimes: [Double] = [], chainTimes: [Double] = []
    for _ in 0..<50 { _ = try await direct.completeText(request); _ = try await chain.completeText(request) }  // warm-up
    for _ in 0..<500 {
        directTimes.append(try await measure { _ = try await direct.completeText(request) })
        chainTimes.append(try await measure { _ = try await chain.completeText(request) })
    }
    let directMs = median(directTimes), chainMs = median(chainTimes)
    print("chain: a 32-token reply from an in-process provider, median of 500")
    print(String(format: "  provider called directly   %7.3f ms", directMs))
    print(String(format: "  through a fallback chain   %7.3f ms  (+%.3f ms, %.2f×)", chainMs, chainMs - directMs, chainMs / directMs))

    // Failover: time from the request to the fallback's first text, per fault.
    let events = ["data: {\"choices\":[{\"delta\":{\"content\":\"Par\"}}]}\n\n", "data: {\"choices\":[{\"delta\":{\"content\":\"is\"}}]}\n\n"].map {
        Data($0.utf8)
    }
    let faults: [(String, WireServer.Reply?)] = [
        ("refused connection", nil),
        ("HTTP 500", .json(500, #"{"error":{"message":"boom"}}"#)),
        ("HTTP 429 + Retry-After", .json(429, #"{"error":{"message":"slow down"}}"#, headers: ["retry-after": "1"])),
        ("slow first byte (limit 200 ms)", .stream(contentType: "text/event-stream", chunks: [], ending: .stall(keepAlive: nil))),
        ("stalls after 2 tokens (idle 200 ms)", .stream(contentType: "text/event-stream", chunks: events, ending: .stall(keepAlive: nil))),
        ("malformed stream", .stream(contentType: "text/event-stream", chunks: [Data("data: {not json\n\n".utf8)])),
        ("cut mid-stream", .stream(contentType: "text/event-stream", chunks: events, ending: .cut)),
    ]
    print("failover to an in-process fallback: request → fallback's first text, median of 5")
    for (name, reply) in faults {
        var times: [Double] = []
        for _ in 0..<5 {
            var server: WireServer?
            if let reply { server = try await WireServer.start { _ in reply } }
            let base = server.map { $0.baseURL + "/v1" } ?? "http://127.0.0.1:9/v1"
            let cloud = OpenAILanguageModel(
                configuration: .init(
                    baseURL: base, apiKey: "k", model: "m",
                    timeouts: HTTPTimeouts(connect: .seconds(1), firstByte: .milliseconds(200), idle: .milliseconds(200)), name: "cloud"))
            // Availability is checked out of band here, so the figure is the failover itself.
            let chain = LanguageModelChain(
                providers: [AlwaysAvailable(cloud), FaultyLanguageModel(name: "local", pieces: ["Paris."])],
                health: ProviderHealth(clock: clock), clock: clock,
                timeouts: .init(firstOutput: .seconds(5), idle: .milliseconds(200)))
            let start = clock.now
            var first: Duration?
            // The fallback announces itself, then writes (after a cut, only what the listener
            // has not heard yet).
            var fallbackAnswering = false
            for try await event in chain.complete(request) {
                switch event {
                case .provider(let identity): fallbackAnswering = identity.name == "local"
                case .text where fallbackAnswering: first = clock.now - start
                default: break
                }
                if first != nil { break }
            }
            times.append(first.map(\.milliseconds) ?? .nan)
            server?.stop()
        }
        print(String(format: "  %-38@ %8.1f ms", name as NSString, median(times)))
    }
}

/// Reports ready without probing, so the benchmark times the failover, not the probe.
struct AlwaysAvailable: LanguageModelProvider {
    let inner: any LanguageModelProvider
    init(_ inner: any LanguageModelProvider) { self.inner = inner }
    var identity: ProviderIdentity { inner.identity }
    var capabilities: LanguageModelCapabilities { inner.capabilities }
    func availability() async -> Availability { .ready }
    func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> { inner.complete(request) }
}

// MARK: smartturn

func smartTurnSuite() async throws {
    let paths = ParleyPaths.current()
    let folder = paths.testData.appendingPathComponent("smart_turn", isDirectory: true)
    let model = SmartTurnModel(models: paths.models, threads: 1)
    try await model.load()
    #if DEBUG
    let build = "debug build"
    #else
    let build = "release build"
    #endif
    print("smartturn: Smart Turn v3.2, one ONNX Runtime thread, median of 7 scores per clip (the first, warm-up, not counted), \(build)")
    for name in ["complete-capital", "complete-timer", "cut-ocean", "cut-tell"] {
        let samples = try WAV.read(from: folder.appendingPathComponent(name + ".wav")).samples
        _ = try await model.score(of: samples)
        var scores: [SmartTurnModel.Score] = []
        for _ in 0..<7 { scores.append(try await model.score(of: samples)) }
        let features = median(scores.map { $0.features.milliseconds }), inference = median(scores.map { $0.inference.milliseconds })
        print(
            String(
                format: "  %@ (%.2f s): P(complete) %.3f; features %.1f ms, model %.1f ms, total %.1f ms",
                name, Double(samples.count) / 16_000, scores[0].probability, features, inference,
                median(scores.map { ($0.features + $0.inference).milliseconds })))
    }
}

// MARK: silero

func sileroSuite() throws {
    let paths = ParleyPaths.current()
    let audio = try WAV.read(from: paths.testData.appendingPathComponent("vad_pauses.wav"))
    let size = SileroVADModel.chunkSize
    let chunks = stride(from: 0, to: audio.samples.count - size + 1, by: size).map { Array(audio.samples[$0..<($0 + size)]) }
    let budget = Double(size) / 16.0  // ms of audio in one chunk at 16 kHz
    /// Median ms per chunk of five passes, and the sum of a pass's probabilities.
    func measure(_ model: SileroVADModel) -> (ms: Double, checksum: Float) {
        var state = SileroVADModel.State()
        for chunk in chunks.prefix(8) { _ = model.probability(of: chunk, state: &state) }  // warm-up
        var perChunk: [Double] = []
        var checksum: Float = 0
        for _ in 0..<5 {
            state = SileroVADModel.State()
            checksum = 0
            let elapsed = measureSync {
                for chunk in chunks { checksum += model.probability(of: chunk, state: &state) }
            }
            perChunk.append(elapsed / Double(chunks.count))
        }
        return (median(perChunk), checksum)
    }
    #if DEBUG
    let build = "debug build"
    #else
    let build = "release build"
    #endif
    print("silero: \(chunks.count) chunks of \(size) samples (vad_pauses.wav), median of 5 passes, one thread, \(build)")
    let fft = measure(try SileroVADModel(contentsOf: paths.sileroWeights, spectrumByFFT: true))
    let convolution = measure(try SileroVADModel(contentsOf: paths.sileroWeights, spectrumByFFT: false))
    for (name, result) in [("Swift, STFT by FFT (default)", fft), ("Swift, STFT as the basis convolution", convolution)] {
        print(
            String(
                format: "  %@: %.3f ms per %.0f ms chunk, %.0f× real time  (sum of probabilities %.4f)",
                name, result.ms, budget, budget / result.ms, result.checksum))
    }
    // The peer: the official ONNX model under onnxruntime (the test venv's), one thread, from Python.
    let python = paths.home.appendingPathComponent("venv/bin/python").path
    let onnx = paths.home.appendingPathComponent("build/silero_vad.onnx").path
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/silero_reference.py").standardized.path
    guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: onnx) else {
        print("  onnxruntime: not measured (scripts/setup installs the venv and the ONNX model)")
        return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script, "--time", onnx, paths.testData.appendingPathComponent("vad_pauses.wav").path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    guard let peer = Double(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        print("  onnxruntime: the timing script failed")
        return
    }
    print(
        String(
            format: "  onnxruntime 1 thread, from Python: %.3f ms per chunk, %.0f× real time; Swift (FFT) takes %.2f× its time, the convolution %.2f×",
            peer, budget / peer, fft.ms / peer, convolution.ms / peer))
}

func measureSync(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return (clock.now - start).milliseconds
}

let suite = CommandLine.arguments.dropFirst().first ?? "all"
switch suite {
case "http": try await httpSuite()
case "chain": try await chainSuite()
case "silero": try sileroSuite()
case "smartturn": try await smartTurnSuite()
case "realtime": try await realtimeSuite()
case "structured": try await structuredSuite()
case "voices": try await voicesSuite()
case "ears": try await earsSuite()
case "room": try await roomSuite()
case "earsecho": try await earsEchoSuite()
case "wakeverify": try await wakeVerifySuite()
case "all":
    try await httpSuite()
    try await chainSuite()
    try sileroSuite()
default:
    FileHandle.standardError.write(
        Data("usage: parley-benchmarks [http|chain|silero|smartturn|realtime|structured|voices|ears|earsecho|room|wakeverify|all]\n".utf8))
    exit(2)
}
