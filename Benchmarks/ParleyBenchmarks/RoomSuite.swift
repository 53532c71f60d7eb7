// The room rig (issue 46, item 6): a conversation on the on-device ears (Silero VAD, whisper.cpp
// tiny.en) in a simulated room (ParleyTesting's RoomRig: the reply comes back into the
// microphone from the speaker through a sox-made room with a delay and noise), in real time:
//   - the reply alone: self-interruptions (its own echo pausing or cutting it) with SpeexDSP's
//     echo canceller and without, and echo saved as a user turn;
//   - backchannels and coughs said over the reply (canceller on): how many leave it uncut and
//     save nothing;
//   - "stop, wait…" barge-ins (canceller on): how many cut it and are answered;
//   - ERLE of SpeexDSP (with and without its residual echo suppressor) and of WebRTC's audio
//     processing (its suppression levels, with and without its noise suppressor) on the reply's echo.
// ROOM_CANCELLER=webrtc runs the conversations with WebRTC's canceller instead of SpeexDSP's (at
// ROOM_WEBRTC_SUPPRESSION=low|moderate|high, high by default as Parley runs it), and
// ROOM_CANCELLER=webrtc-then-speex with WebRTC's handing over to SpeexDSP's (HandoverEchoCanceller).
// ROOM_RUNS=N runs of the reply alone each way (default 2). The conversations over 20 s (without a
// canceller the reply keeps cutting itself and answering its own echo) or 30 s.
import Foundation
import ParleyCore
import ParleyLocal
import ParleySilero
import ParleyTesting

private let reply = [
    "The largest ocean on Earth is the Pacific Ocean.", " It covers about a third of the surface of the planet,",
    " and it is deeper than any other ocean.",
]
private let voices = ["en-us+f3", "en-gb+m3", "en-us+m7", "en+f2", "en-us+f4"]

private func spoken(_ text: String, voice: String, tts: EspeakTextToSpeech) async throws -> [Float] {
    var options = SpeechOptions()
    options.voice = voice
    var audio = AudioBuffer(samples: [], sampleRate: 22_050)
    for try await chunk in tts.synthesize(text, options: options) { audio.appendConverting(chunk) }
    return audio.resampled(to: 16_000).samples
}

/// A cough: a burst of low-passed noise, fast attack and quick decay (`double`: two of them).
private func cough(seed: UInt64, double: Bool) -> [Float] {
    var generator = SeededGenerator(seed: seed)
    var samples: [Float] = []
    for burst in 0..<(double ? 2 : 1) {
        var low: Float = 0
        let length = 4_800
        for index in 0..<length {
            let white = Float.random(in: -1...1, using: &generator)
            low += 0.35 * (white - low)
            let t = Float(index) / 16_000
            let envelope = min(1, t / 0.01) * exp(-t / 0.08)
            samples.append(0.5 * low * envelope)
        }
        if burst == 0, double { samples += [Float](repeating: 0, count: 2_400) }
    }
    return samples
}

func roomSuite() async throws {
    let paths = ParleyPaths.current()
    let runs = Int(ProcessInfo.processInfo.environment["ROOM_RUNS"] ?? "") ?? 2
    let stt = WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: 2)
    try await stt.load()
    let tts = EspeakTextToSpeech()
    let room = try RoomAcoustics.sox()
    let rules = InterruptionRules(language: "en")
    let cancellerName = ProcessInfo.processInfo.environment["ROOM_CANCELLER"] ?? "speex"
    let suppression =
        [WebRTCEchoCanceller.Suppression.low, .moderate, .high].first {
            "\($0)" == ProcessInfo.processInfo.environment["ROOM_WEBRTC_SUPPRESSION"]
        } ?? .high
    // ROOM_HANDOVER: the seconds of the speaker SpeexDSP's hears before it takes over from
    // WebRTC's in webrtc-then-speex (the canceller's own default when unset).
    let handover = ProcessInfo.processInfo.environment["ROOM_HANDOVER"].flatMap(Double.init)
    func makeCanceller() throws -> any EchoCanceller {
        switch cancellerName {
        case "webrtc": try WebRTCEchoCanceller(sampleRate: 16_000, suppression: suppression)
        case "webrtc-then-speex":
            if let handover {
                try HandoverEchoCanceller(
                    first: try WebRTCEchoCanceller(sampleRate: 16_000, suppression: suppression), then: try SpeexEchoCanceller(sampleRate: 16_000),
                    handover: handover)
            } else {
                try HandoverEchoCanceller(
                    first: try WebRTCEchoCanceller(sampleRate: 16_000, suppression: suppression), then: try SpeexEchoCanceller(sampleRate: 16_000))
            }
        default: try SpeexEchoCanceller(sampleRate: 16_000)
        }
    }
    print(
        "echo canceller in the conversations: "
            + (cancellerName == "speex" ? "SpeexDSP (residual echo suppressor on)" : "\(cancellerName) (WebRTC's at \(suppression) suppression)"))
    let greeting = try await spoken("Hello, I am Parley. Ask me anything you like, I am listening.", voice: "en-us", tts: tts)
    func conversation(_ over: [RoomRig.Line], cancelling: Bool, voice: String, warm: Bool = true) async throws -> RoomOutcome {
        let vad = SileroVoiceActivityDetector(weightsPath: paths.sileroWeights.path)
        let llm = ScriptedLanguageModel(replies: [reply, ["Sure, here is something else."]])
        return try await RoomRun.run(
            vad: vad, stt: stt, llm: llm, tts: tts, acoustics: room,
            question: try await spoken("What is the largest ocean on Earth?", voice: voice, tts: tts), over: over,
            canceller: cancelling ? try makeCanceller() : nil, interruption: rules,
            maximumSeconds: cancelling ? 30 : 20, warmUp: warm ? greeting : nil)
    }

    // ROOM_OVER_ONLY=1: only the speech over the reply (backchannels, coughs, barge-ins).
    if ProcessInfo.processInfo.environment["ROOM_OVER_ONLY"] == nil {
        // ERLE, offline: the reply's echo through the room, after a second to converge.
        let far = try await spoken(reply.joined(), voice: "en-us", tts: tts)
        var path = RoomEcho(RoomAcoustics(sampleRate: 16_000, impulse: room.impulse, noiseLevel: 0.0005))
        let echo = path.hear(far)
        // Double talk: the user says a line over the second half of the echo; what the canceller
        // leaves of it is transcribed.
        let userLines = [
            ("Stop. Wait. Tell me something else.", "en-us+f3"), ("Hold on, what about the Atlantic?", "en-gb+m3"),
            ("Sorry, can you tell me about rivers instead?", "en-us+m7"),
        ]
        var overTalk: [(words: String, samples: [Float])] = []
        for (text, voice) in userLines { overTalk.append((text, try await spoken(text, voice: voice, tts: tts))) }
        let userStart = far.count / 2
        func erle(of make: () throws -> any EchoCanceller, _ name: String) async throws {
            var enhancement = 0.0, heard: [String] = []
            for (index, line) in ([nil] + overTalk.map { Optional($0) }).enumerated() {
                let canceller = try make()
                var microphone = echo
                if let line {
                    for (offset, sample) in line.samples.enumerated() where userStart + offset < microphone.count { microphone[userStart + offset] += sample }
                }
                let cleaned = await canceller.cancelling(microphone, speaker: far)
                if index == 0 {
                    let range = 16_000..<min(echo.count, cleaned.count)
                    let before = echo[range].reduce(0) { $0 + Double($1 * $1) }, after = cleaned[range].reduce(0) { $0 + Double($1 * $1) }
                    enhancement = 10 * log10(before / max(after, 1e-12))
                } else if let line {
                    let span = userStart..<min(cleaned.count, userStart + line.samples.count + 8_000)
                    let text = try await stt.transcribe(AudioBuffer(samples: Array(cleaned[span]), sampleRate: 16_000), options: .init()).text
                    heard.append(text.trimmingCharacters(in: .whitespaces))
                }
            }
            let words = zip(overTalk, heard).map { spoken, heard in
                let said = Set(spoken.words.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
                let got = Set(heard.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
                return (said.intersection(got).count, said.count)
            }
            print(
                String(
                    format: "ERLE %@: %.1f dB over the reply's echo; words of the user over it heard: %d of %d", name, enhancement,
                    words.reduce(0) { $0 + $1.0 }, words.reduce(0) { $0 + $1.1 }) + " \(heard)")
        }
        for suppress in [false, true] {
            try await erle(
                of: { try SpeexEchoCanceller(sampleRate: 16_000, suppressesResidualEcho: suppress) },
                "SpeexDSP" + (suppress ? " + residual echo suppressor" : ""))
        }
        for suppression in [WebRTCEchoCanceller.Suppression.low, .moderate, .high] {
            for noise in [0, 2] {
                do {
                    try await erle(
                        of: { try WebRTCEchoCanceller(sampleRate: 16_000, suppression: suppression, noiseSuppression: noise) },
                        "WebRTC, \(suppression) suppression" + (noise > 0 ? ", noise suppression \(noise)" : ""))
                } catch {
                    print("WebRTC's echo canceller: \(error)")
                }
            }
        }
        if ProcessInfo.processInfo.environment["ROOM_ERLE_ONLY"] != nil { return }

        // A fresh canceller that has heard only the chime `parley talk --echo-cancellation` plays on start.
        do {
            var selfInterruptions = 0, cuts = 0, savedEcho = 0
            for run in 0..<runs {
                let vad = SileroVoiceActivityDetector(weightsPath: paths.sileroWeights.path)
                let llm = ScriptedLanguageModel(replies: [reply, ["Sure, here is something else."]])
                let outcome = try await RoomRun.run(
                    vad: vad, stt: stt, llm: llm, tts: tts, acoustics: room,
                    question: try await spoken("What is the largest ocean on Earth?", voice: voices[run % voices.count], tts: tts), over: [],
                    canceller: try makeCanceller(), interruption: rules, maximumSeconds: 30,
                    warmUp: ReadyChime.samples(sampleRate: 16_000))
                selfInterruptions += outcome.selfInterruptions
                cuts += outcome.cuts
                savedEcho += outcome.savedUserTurns.count - 1
                print(
                    "  reply alone, cancelling, warmed by the ready chime, run \(run + 1): \(outcome.selfInterruptions) self-interruptions (\(outcome.pauses) pauses, \(outcome.cuts) cuts), saved \(outcome.savedUserTurns)"
                )
            }
            print(
                "reply alone with echo cancellation (warmed by the \(ReadyChime.duration) s ready chime only): \(selfInterruptions) self-interruptions in \(runs) replies, \(cuts) cuts, \(savedEcho) echo turns saved"
            )
        }
        if ProcessInfo.processInfo.environment["ROOM_CHIME_ONLY"] != nil { return }

        for (cancelling, warm) in [(false, false), (true, false), (true, true)] {
            var selfInterruptions = 0, savedEcho = 0, erles: [Double] = []
            for run in 0..<runs {
                let outcome = try await conversation([], cancelling: cancelling, voice: voices[run % voices.count], warm: warm)
                selfInterruptions += outcome.selfInterruptions
                savedEcho += outcome.savedUserTurns.count - 1
                if let erle = outcome.erle { erles.append(erle) }
                print(
                    "  reply alone, \(cancelling ? (warm ? "cancelling, warm" : "cancelling, cold") : "no cancellation"), run \(run + 1): \(outcome.selfInterruptions) self-interruptions, \(outcome.cuts) cuts, saved \(outcome.savedUserTurns)"
                )
            }
            print(
                "reply alone \(cancelling ? "with" : "without") echo cancellation\(cancelling ? (warm ? " (warm: the canceller heard a greeting first)" : " (cold: first sound it hears)") : ""): \(selfInterruptions) self-interruptions in \(runs) replies, \(savedEcho) echo turns saved"
                    + (erles.isEmpty ? "" : String(format: ", in-loop ERLE median %.1f dB", median(erles))))
        }
    }

    let backchannels: [(String, [Float]?)] = [
        ("Mm-hmm.", nil), ("Yeah.", nil), ("Okay.", nil), ("Right.", nil), ("Uh-huh.", nil),
        ("Sure.", nil), ("Mm.", nil), ("I see.", nil),
        ("(cough)", cough(seed: 1, double: false)), ("(cough cough)", cough(seed: 2, double: true)),
    ]
    var uncut = 0, resumed = 0
    for (index, (text, sound)) in backchannels.enumerated() {
        let voice = voices[index % voices.count]
        var samples: [Float]
        if let sound { samples = sound } else { samples = try await spoken(text, voice: voice, tts: tts) }
        let outcome = try await conversation([RoomRig.Line(samples: samples, start: .intoReply(2.5), overReply: true)], cancelling: true, voice: voice)
        let ok = outcome.cuts == 0 && outcome.savedUserTurns.count == 1
        if ok { uncut += 1 }
        if outcome.resumes > 0 { resumed += 1 }
        print(
            "  over the reply: \(text) (\(voice)): \(outcome.pauses) pauses, \(outcome.resumes) resumes, \(outcome.cuts) cuts, saved \(outcome.savedUserTurns)")
    }
    print(
        "backchannels and coughs over the reply (cancelling): \(uncut) of \(backchannels.count) left it uncut with nothing saved (\(resumed) paused and resumed)"
    )

    let bargeIns = [
        "Stop. Wait. Tell me something else.", "Wait, stop. I have another question.", "Stop, stop. That's enough, thank you.",
        "Hold on. Wait a second, what about the Atlantic?", "Sorry, stop. Can you tell me about rivers instead?",
        "Wait. Stop talking please.", "No, stop. I asked about something else.", "Stop. Wait. How deep is it?",
        "Hang on, stop there. What is the smallest ocean?", "Okay stop. Tell me a joke instead.",
    ]
    var cut = 0
    for (index, text) in bargeIns.enumerated() {
        let voice = voices[index % voices.count]
        let line = RoomRig.Line(samples: try await spoken(text, voice: voice, tts: tts), start: .intoReply(2.5), overReply: true)
        let outcome = try await conversation([line], cancelling: true, voice: voice)
        let ok = outcome.cuts == 1 && outcome.savedUserTurns.count == 2
        if ok { cut += 1 }
        print("  barge-in: \(text) (\(voice)): \(outcome.cuts) cuts, \(outcome.selfInterruptions) self-interruptions, saved \(outcome.savedUserTurns)")
    }
    print("barge-ins over the reply (cancelling): \(cut) of \(bargeIns.count) cut it and were answered")
}
