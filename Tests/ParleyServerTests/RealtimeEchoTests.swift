import Foundation
import Logging
import ParleyCore
import ParleyRuntime
import ParleyTesting
import Testing
@testable import ParleyServer

/// `session.parley.echo_cancellation`: the response audio a session sends is the reference that
/// takes its echo out of the audio the client appends (SpeexDSP and WebRTC, on real speech).
@Suite("realtime: echo cancellation")
struct RealtimeEchoTests {
    /// espeak-ng's voice (22,050 Hz), as the response's audio.
    func speech(_ text: String) throws -> AudioBuffer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "--stdout", text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try WAV.decode(data, streamed: true)
    }

    @Test(
        "the response audio sent through the session's output cancels its echo in appended 24 kHz audio",
        arguments: EchoEngine.allCases)
    func responseAudioIsTheReference(engine: EchoEngine) async throws {
        let reply = try speech("The largest ocean on Earth is the Pacific Ocean. It covers about a third of the surface of the planet.")
        let echo = RealtimeEcho(engine: engine, logger: Logger(label: "test"))
        let output = RealtimeOutput(echo: echo) { _ in }
        await output.beginReply()
        for offset in stride(from: 0, to: reply.samples.count, by: 2_205) { await output.play(reply.slice(offset..<(offset + 2_205))) }
        // The client plays it; its microphone (24 kHz) hears it back through a room.
        var room = RoomEcho(try RoomAcoustics.sox(sampleRate: 24_000, length: 0.12, noiseLevel: 0.0005))
        let heard = room.hear(reply.resampled(to: 24_000).samples)
        var cleaned: [Float] = []
        for offset in stride(from: 0, to: heard.count, by: 2_400) {
            let frame = AudioBuffer(samples: Array(heard[offset..<min(heard.count, offset + 2_400)]), sampleRate: 24_000)
            cleaned += await echo.clean(frame).samples
        }
        let measured = 36_000..<min(heard.count, cleaned.count)
        let before = heard[measured].reduce(0) { $0 + Double($1 * $1) }, after = cleaned[measured].reduce(0) { $0 + Double($1 * $1) }
        let erle = 10 * log10(before / after)
        print("realtime echo cancellation, \(engine.rawValue), 24 kHz: ERLE \(erle) dB")
        #expect(erle > 10, "ERLE \(erle) dB")
    }

}
