// earsecho — what the echo cancellers do to the user's own words (issue 46): the recorded human
// speech of the ears set (scripts/ears/recordings.tsv) transcribed by whisper.cpp tiny.en as it
// reaches the conversation
//   - alone, and through each canceller with the speaker silent (a user speaking before any reply:
//     a canceller should leave the words as they are);
//   - over a reply's echo (espeak-ng through the room rig's sox room, with noise; the user starts
//     `EARS_ECHO_START` seconds, default 2, into the reply, as a barge-in does), with no canceller
//     and through each canceller, fresh at the reply's start, fed 100 ms at a time
//     (EARS_ECHO_VARIANTS=1 adds WebRTC's moderate and low suppression, alone and handing over, and
//     the handover after 3 s instead of 1.5 s).
// Word error rate after RealRecording.words normalisation; the words under the echo are the ones
// a barge-in hands on as the user's next turn.
import Foundation
import ParleyCore
import ParleyLocal
import ParleyTesting

func earsEchoSuite() async throws {
    let paths = ParleyPaths.current()
    let environment = ProcessInfo.processInfo.environment
    let start = max(0, Double(environment["EARS_ECHO_START"] ?? "") ?? 2)
    guard let recordings = RealRecording.all(in: RealRecording.folder(testData: paths.testData)) else {
        print("earsecho: the recordings are missing from \(RealRecording.folder(testData: paths.testData).path): run scripts/setup")
        return
    }
    let rate = 16_000
    let clips = try recordings.map { try WAV.read(from: $0.file).resampled(to: rate).samples }
    let stt = WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: 2)
    try await stt.load()
    let tts = EspeakTextToSpeech()
    var options = SpeechOptions()
    options.voice = "en-us"
    var replyAudio = AudioBuffer(samples: [], sampleRate: 22_050)
    let replyText =
        "The largest ocean on Earth is the Pacific Ocean. It covers about a third of the surface of the planet, and it is deeper than any other ocean."
    for try await chunk in tts.synthesize(replyText, options: options) { replyAudio.appendConverting(chunk) }
    let reply = replyAudio.resampled(to: rate).samples
    let room = try RoomAcoustics.sox()

    var cancellers: [(name: String, make: () throws -> any EchoCanceller)] = [
        ("SpeexDSP (talk's standard)", { try SpeexEchoCanceller(sampleRate: rate) }),
        ("WebRTC", { try WebRTCEchoCanceller(sampleRate: rate) }),
        (
            "WebRTC then SpeexDSP (realtime's standard)",
            { try HandoverEchoCanceller(first: try WebRTCEchoCanceller(sampleRate: rate), then: try SpeexEchoCanceller(sampleRate: rate)) }
        ),
    ]
    // EARS_ECHO_VARIANTS=1: WebRTC's lower suppression levels too, alone and handing over, and
    // the handover after 3 s (the standard before 2026-12-06's 1.5 s).
    if environment["EARS_ECHO_VARIANTS"] != nil {
        cancellers.append(
            (
                "WebRTC then SpeexDSP after 3 s",
                {
                    try HandoverEchoCanceller(
                        first: try WebRTCEchoCanceller(sampleRate: rate), then: try SpeexEchoCanceller(sampleRate: rate), handover: 3)
                }
            ))
        for level in [WebRTCEchoCanceller.Suppression.moderate, .low] {
            cancellers.append(("WebRTC, \(level) suppression", { try WebRTCEchoCanceller(sampleRate: rate, suppression: level) }))
            cancellers.append(
                (
                    "WebRTC (\(level)) then SpeexDSP",
                    {
                        try HandoverEchoCanceller(
                            first: try WebRTCEchoCanceller(sampleRate: rate, suppression: level), then: try SpeexEchoCanceller(sampleRate: rate))
                    }
                ))
        }
    }
    struct Tally {
        var errors = 0
        var words = 0
        var exact = 0
        var worst: [(Int, String)] = []
    }
    var rows: [String: Tally] = [:]
    var order: [String] = []
    func score(_ row: String, heard: String, recording: RealRecording) {
        if rows[row] == nil { order.append(row) }
        let said = RealRecording.words(recording.reference)
        let errors = wordErrors(RealRecording.words(heard), said)
        rows[row, default: Tally()].errors += errors
        rows[row, default: Tally()].words += said.count
        if errors == 0 { rows[row, default: Tally()].exact += 1 } else { rows[row, default: Tally()].worst.append((errors, "\(recording.name): \"\(heard)\"")) }
    }
    func transcribe(_ samples: [Float]) async throws -> String {
        try await stt.transcribe(AudioBuffer(samples: samples, sampleRate: rate), options: TranscriptionOptions(language: "en")).text
            .trimmingCharacters(in: .whitespaces)
    }
    /// `microphone` through a fresh canceller, 100 ms at a time, with `speaker` as its reference.
    func cancelled(_ microphone: [Float], speaker: [Float], by canceller: any EchoCanceller) async -> [Float] {
        let cleaned = await canceller.cancelling(microphone, speaker: speaker)
        // The part-frame the canceller kept back, as silence.
        return Array((cleaned + [Float](repeating: 0, count: max(0, microphone.count - cleaned.count))).prefix(microphone.count))
    }

    for (recording, clip) in zip(recordings, clips) {
        // The user alone, with a second of room noise before the words (as a canceller starts).
        let lead = rate
        var quiet = RoomEcho(RoomAcoustics(sampleRate: rate, impulse: room.impulse, noiseLevel: 0.0005))
        var alone = quiet.hear([Float](repeating: 0, count: lead + clip.count + rate / 2))
        for (index, sample) in clip.enumerated() { alone[lead + index] += sample }
        let aloneSpan = lead..<alone.count
        score("alone, no canceller", heard: try await transcribe(Array(alone[aloneSpan])), recording: recording)
        let silent = [Float](repeating: 0, count: alone.count)
        for (name, make) in cancellers {
            let cleaned = await cancelled(alone, speaker: silent, by: try make())
            score("alone, \(name)", heard: try await transcribe(Array(cleaned[aloneSpan])), recording: recording)
        }

        // The user over the reply's echo: the reply plays from 0 (again from its start if the
        // words outlast it), the user starts `start` seconds in.
        let userStart = Int(start * Double(rate))
        let length = userStart + clip.count + rate / 2
        var speaker: [Float] = []
        while speaker.count < length { speaker += reply }
        speaker = Array(speaker.prefix(length))
        var path = RoomEcho(RoomAcoustics(sampleRate: rate, impulse: room.impulse, noiseLevel: 0.0005))
        var microphone = path.hear(speaker)
        for (index, sample) in clip.enumerated() { microphone[userStart + index] += sample }
        let span = userStart..<length
        score("over the echo, no canceller", heard: try await transcribe(Array(microphone[span])), recording: recording)
        for (name, make) in cancellers {
            let cleaned = await cancelled(microphone, speaker: speaker, by: try make())
            score("over the echo, \(name)", heard: try await transcribe(Array(cleaned[span])), recording: recording)
        }
    }

    print(
        "earsecho: \(recordings.count) recordings of human speech through the echo cancellers, whisper.cpp tiny.en; "
            + "over the echo: an espeak-ng reply through a sox room (noise 0.0005), the user from \(start) s into it")
    print("  condition                                                      WER               exact")
    for row in order {
        guard let tally = rows[row] else { continue }
        print(
            "  " + row.padding(toLength: 60, withPad: " ", startingAt: 0)
                + String(
                    format: "  %5.1f%% (%3d/%3d)   %2d/%2d", Double(tally.errors) / Double(max(1, tally.words)) * 100, tally.errors, tally.words,
                    tally.exact, recordings.count))
    }
    for row in order {
        guard let tally = rows[row], !tally.worst.isEmpty else { continue }
        print("  worst (\(row)):")
        for (_, line) in tally.worst.sorted(by: { $0.0 > $1.0 }).prefix(3) { print("    \(line)") }
    }
}
