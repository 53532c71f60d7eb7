import Foundation
import ParleyCore
import ParleySilero
import ParleyTestLanes
import ParleyTesting
import Testing
@testable import ParleyLocal

/// Echo cancellation on real audio: SpeexDSP and WebRTC against espeak-ng's voice coming back through a
/// room made by sox, and the conversation in that room (Silero, whisper.cpp tiny.en), with and
/// without the canceller.
@Suite("Echo in a room, on real audio", .serialized, .onDeviceEngines)
struct RoomEchoTests {
    static let stt = WhisperSpeechToText(modelPath: TestEnvironment.paths.defaultWhisperModel.path, threads: 2)
    static let reply = [
        "The largest ocean on Earth is the Pacific Ocean.", " It covers about a third of the surface of the planet,",
        " and it is deeper than any other ocean.",
    ]
    let voice = EspeakTextToSpeech()

    /// `text` in espeak-ng's `voice` at 16 kHz.
    func spoken(_ text: String, voice name: String = "en-us") async throws -> [Float] {
        var options = SpeechOptions()
        options.voice = name
        var audio = AudioBuffer(samples: [], sampleRate: 22_050)
        for try await chunk in voice.synthesize(text, options: options) { audio.appendConverting(chunk) }
        return audio.resampled(to: 16_000).samples
    }

    static func energy(_ samples: ArraySlice<Float>) -> Double { samples.reduce(0) { $0 + Double($1 * $1) } }

    @Test(
        "each canceller takes the reply's echo out of the microphone and leaves the user's words",
        arguments: ["SpeexDSP", "WebRTC", "WebRTC then SpeexDSP"])
    func cancelsEcho(engine: String) async throws {
        let room = try RoomAcoustics.sox(noiseLevel: 0.0005)
        let far = try await spoken(Self.reply.joined())
        let user = try await spoken("Stop. Wait. Tell me something else.", voice: "en-us+f3")
        let userStart = far.count / 2
        var echo = RoomEcho(room)
        let heardEcho = echo.hear(far)
        var microphone = heardEcho
        for (index, sample) in user.enumerated() where userStart + index < microphone.count { microphone[userStart + index] += sample }
        let canceller: any EchoCanceller =
            switch engine {
            case "WebRTC": try WebRTCEchoCanceller(sampleRate: 16_000)
            case "SpeexDSP": try SpeexEchoCanceller(sampleRate: 16_000)
            default: try HandoverEchoCanceller(first: try WebRTCEchoCanceller(sampleRate: 16_000), then: try SpeexEchoCanceller(sampleRate: 16_000))
            }
        let cleaned = await canceller.cancelling(microphone, speaker: far)
        // After a second to converge, before the user speaks.
        let measured = 16_000..<userStart
        let erle = 10 * log10(Self.energy(heardEcho[measured]) / Self.energy(cleaned[measured]))
        print("\(engine) ERLE on the reply's echo: \(erle) dB")
        #expect(erle > 10, "ERLE \(erle) dB")
        let span = userStart..<min(cleaned.count, userStart + user.count + 8_000)
        let words = try await Self.stt.transcribe(AudioBuffer(samples: Array(cleaned[span]), sampleRate: 16_000), options: .init()).text
        // WebRTC's suppressor takes a little of the user with the echo ("something ends" once).
        #expect(words.lowercased().contains("tell me something"), "heard: \(words)")
    }

    /// A conversation in the room; the canceller (when `cancelling`) has heard the room before,
    /// on a greeting, as it has on a session's earlier replies.
    func conversation(over: [RoomRig.Line], cancelling: Bool, seconds: Double = 30) async throws -> RoomOutcome {
        let vad = SileroVoiceActivityDetector(weightsPath: try TestEnvironment.require(TestEnvironment.paths.sileroWeights).path)
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultWhisperModel)
        let llm = ScriptedLanguageModel(replies: [Self.reply, ["Sure, here is something else."]])
        return try await RoomRun.run(
            vad: vad, stt: Self.stt, llm: llm, tts: voice, acoustics: try RoomAcoustics.sox(),
            question: try await spoken("What is the largest ocean on Earth?", voice: "en-us+f3"), over: over,
            canceller: cancelling ? try SpeexEchoCanceller(sampleRate: 16_000) : nil, interruption: InterruptionRules(language: "en"),
            maximumSeconds: seconds, warmUp: try await spoken("Hello, I am Parley. Ask me anything you like, I am listening."))
    }

    @Test("the reply's own echo interrupts it without the canceller, never with it, and is never saved")
    func echoAlone() async throws {
        // Without the canceller the reply keeps cutting itself and answering its own echo: 20 s of it.
        let without = try await conversation(over: [], cancelling: false, seconds: 20)
        let with = try await conversation(over: [], cancelling: true)
        print(
            "room: self-interruptions without cancellation \(without.selfInterruptions), with \(with.selfInterruptions); ERLE \(with.erle ?? 0) dB; saved without: \(without.savedUserTurns)"
        )
        #expect(without.selfInterruptions >= 1, "the rig's echo should be loud enough to be heard: \(without)")
        #expect(with.selfInterruptions == 0, "\(with)")
        #expect(with.savedUserTurns.count == 1, "\(with.savedUserTurns)")
    }

    @Test("with the canceller, \"Stop, wait\" over the reply still cuts it and is answered")
    func bargeInHeard() async throws {
        let line = RoomRig.Line(samples: try await spoken("Stop. Wait. Tell me something else.", voice: "en-us+f3"), start: .intoReply(2.5), overReply: true)
        let outcome = try await conversation(over: [line], cancelling: true)
        #expect(outcome.cuts == 1, "\(outcome)")
        #expect(outcome.selfInterruptions == 0, "\(outcome)")
        #expect(outcome.savedUserTurns.count == 2, "\(outcome.savedUserTurns)")
        #expect(outcome.savedUserTurns.last?.lowercased().contains("something else") == true, "\(outcome.savedUserTurns)")
    }
}
