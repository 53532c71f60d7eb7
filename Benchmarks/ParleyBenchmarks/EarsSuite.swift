import Foundation
import ParleyCore
import ParleyLocal
import ParleyTesting

// ears — the on-device transcribers side by side in one run, on recorded human speech with
// reference transcripts (the test data of PyPI packages, scripts/ears/recordings.tsv): word
// error rate, and the time from a whole utterance to its final transcript, for Moonshine base
// on sherpa-onnx and whisper.cpp tiny.en as Parley runs it (encoder sized to the clip).

struct EarRun {
    var name: String
    var errors = 0
    var words = 0
    var exact = 0
    var times: [Double] = []        // ms per transcription, every run
    var audio = 0.0                 // seconds transcribed, every run
    var load = 0.0                  // ms
    var memory = 0                  // bytes the process grew by while loading and transcribing
    var misheard: [String] = []
}

func earsSuite() async throws {
    let paths = ParleyPaths.current()
    let environment = ProcessInfo.processInfo.environment
    let runs = max(1, Int(environment["EARS_RUNS"] ?? "") ?? 3)
    let threads = max(1, Int(environment["EARS_THREADS"] ?? "") ?? 2)
    guard let recordings = RealRecording.all(in: RealRecording.folder(testData: paths.testData)) else {
        print("ears: the recordings are missing from \(RealRecording.folder(testData: paths.testData).path): run scripts/setup")
        return
    }
    let clips = try recordings.map { try WAV.read(from: $0.file) }
    let whisper = WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: threads)
    let moonshine = MoonshineSpeechToText(files: MoonshineModelFiles(folder: paths.models, name: paths.moonshineModelName),
                                          cache: paths.speechCache, threads: threads)
    for engine in [whisper, moonshine] as [any SpeechToTextProvider] {
        let availability = await engine.availability()
        guard availability.isReady else {
            print("ears: \(engine.identity) is not ready (\(availability)): run scripts/setup")
            return
        }
    }
    let clock = ContinuousClock()
    var results = [EarRun(name: "whisper.cpp tiny.en"), EarRun(name: "Moonshine base (sherpa-onnx)")]
    // Each loads and warms up on the first clip; the memory figure is the process's growth.
    for index in results.indices {
        let before = residentMemory().now
        let start = clock.now
        if index == 0 { try await whisper.load() } else { try await moonshine.load() }
        results[index].load = (clock.now - start).milliseconds
        _ = try await (index == 0 ? whisper as any SpeechToTextProvider : moonshine).transcribe(clips[0], options: TranscriptionOptions())
        results[index].memory = residentMemory().now - before
    }
    for run in 0..<runs {
        for (number, (recording, clip)) in zip(recordings, clips).enumerated() {
            // Alternate which engine goes first, so neither always runs on a warmer machine.
            let order = (number + run) % 2 == 0 ? [0, 1] : [1, 0]
            for index in order {
                let engine: any SpeechToTextProvider = index == 0 ? whisper : moonshine
                let start = clock.now
                let heard = try await engine.transcribe(clip, options: TranscriptionOptions()).text
                results[index].times.append((clock.now - start).milliseconds)
                results[index].audio += clip.duration
                guard run == 0 else { continue }
                let said = RealRecording.words(recording.reference)
                let errors = wordErrors(RealRecording.words(heard), said)
                results[index].errors += errors
                results[index].words += said.count
                if errors == 0 { results[index].exact += 1 } else { results[index].misheard.append("\(recording.name): \"\(heard)\" (\(errors))") }
            }
        }
    }

    let seconds = clips.reduce(0) { $0 + $1.duration }
    print(String(format: "ears: %d recordings of human speech (%.0f s; %@), %d run%@, %d thread%@; WER after RealRecording.words normalisation",
                 recordings.count, seconds, Set(recordings.map(\.package)).sorted().joined(separator: ", "), runs, runs == 1 ? "" : "s",
                 threads, threads == 1 ? "" : "s"))
    print("  transcriber                      WER              exact    final transcript p50 / p95 / mean     RTF     load     memory")
    for run in results {
        print("  " + run.name.padding(toLength: 30, withPad: " ", startingAt: 0) + String(format: "  %5.1f%% (%3d/%3d)  %2d/%2d    %5.0f / %5.0f / %5.0f ms        %.3f  %5.0f ms  %4.0f MB",
                     Double(run.errors) / Double(max(1, run.words)) * 100, run.errors, run.words, run.exact, recordings.count,
                     percentile(run.times, 0.5), percentile(run.times, 0.95), run.times.reduce(0, +) / Double(max(1, run.times.count)),
                     run.times.reduce(0, +) / 1000 / max(run.audio, 0.001), run.load, Double(run.memory) / 1_000_000))
    }
    let (tiny, candidate) = (results[0], results[1])
    let tinyRate = Double(tiny.errors) / Double(max(1, tiny.words)), candidateRate = Double(candidate.errors) / Double(max(1, candidate.words))
    let reduction = tinyRate > 0 ? (tinyRate - candidateRate) / tinyRate : 0
    let tinyMean = tiny.times.reduce(0, +) / Double(max(1, tiny.times.count))
    let candidateMean = candidate.times.reduce(0, +) / Double(max(1, candidate.times.count))
    let wins = reduction >= 0.3 && percentile(candidate.times, 0.5) <= percentile(tiny.times, 0.5) && candidateMean <= tinyMean
    print(String(format: "  Moonshine vs tiny.en: WER %+.0f%% (relative), final transcript p50 %+.0f ms, mean %+.0f ms → %@",
                 -reduction * 100, percentile(candidate.times, 0.5) - percentile(tiny.times, 0.5), candidateMean - tinyMean,
                 wins ? "better ears: WER at least 30% lower and no slower" : "not the default (needs WER at least 30% lower and no slower)"))
    for run in results where !run.misheard.isEmpty {
        print("  misheard (\(run.name)):")
        for line in run.misheard { print("    \(line)") }
    }
}
