import Foundation
import ParleyCore
import ParleyLocal
import ParleyModels
import ParleyTesting

// ears — the on-device transcribers side by side in one run, on recorded human speech with
// reference transcripts (the test data of PyPI packages, scripts/ears/recordings.tsv): word
// error rate, the time from a whole utterance to its final transcript, and memory, for every
// speech model installed here: whisper.cpp tiny.en as Parley runs it (encoder sized to the
// clip, the baseline), the multilingual Whisper base forced to English, Moonshine base on
// sherpa-onnx, and any other whisper.cpp model of the catalog that has been pulled (base.en,
// small.en, large-v3-turbo). `EARS_RUNS`, `EARS_THREADS` set the runs and threads.

struct EarRun {
    var name: String
    var errors = 0
    var words = 0
    var exact = 0
    var times: [Double] = []  // ms per transcription, every run
    var audio = 0.0  // seconds transcribed, every run
    var load = 0.0  // ms
    var memory = 0  // bytes the process grew by while loading and transcribing
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
    // Every engine hears English (the language given, as `parley talk` gives it).
    var engines: [(name: String, engine: any SpeechToTextProvider)] = [
        ("whisper.cpp tiny.en", WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: threads))
    ]
    if FileManager.default.fileExists(atPath: paths.multilingualWhisperModel.path) {
        engines.append(("whisper.cpp base (multilingual, en)", WhisperSpeechToText(modelPath: paths.multilingualWhisperModel.path, threads: threads)))
    }
    let library = ModelLibrary(folder: paths.models)
    for model in ModelCatalog.standard.models
    where model.speech?.engine == .whisper && model.id != "whisper-tiny.en"
        && library.state(of: model) == .installed
    {
        engines.append(
            (
                "whisper.cpp \(model.id.replacingOccurrences(of: "whisper-", with: ""))",
                WhisperSpeechToText(modelPath: library.path(of: model).path, threads: threads)
            ))
    }
    engines.append(
        (
            "Moonshine base (sherpa-onnx)",
            MoonshineSpeechToText(
                files: MoonshineModelFiles(folder: paths.models, name: paths.moonshineModelName),
                cache: paths.speechCache, threads: threads)
        ))
    for (name, engine) in engines {
        let availability = await engine.availability()
        guard availability.isReady else {
            print("ears: \(name) is not ready (\(availability)): run scripts/setup")
            return
        }
    }
    let english = TranscriptionOptions(language: "en")
    let clock = ContinuousClock()
    var results = engines.map { EarRun(name: $0.name) }
    // Each loads and warms up on the first clip; the memory figure is the process's growth.
    for (index, (_, engine)) in engines.enumerated() {
        let before = residentMemory().now
        let start = clock.now
        _ = try await engine.transcribe(clips[0], options: english)
        results[index].load = (clock.now - start).milliseconds
        results[index].memory = residentMemory().now - before
    }
    for run in 0..<runs {
        for (number, (recording, clip)) in zip(recordings, clips).enumerated() {
            // Rotate which engine goes first, so none always runs on a warmer machine.
            for step in engines.indices {
                let index = (step + number + run) % engines.count
                let start = clock.now
                let heard = try await engines[index].engine.transcribe(clip, options: english).text
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
    print(
        String(
            format:
                "ears: %d recordings of human speech (%.0f s, %.1f s each on average; %@), %d run%@, %d thread%@; WER after RealRecording.words normalisation",
            recordings.count, seconds, seconds / Double(max(1, recordings.count)), Set(recordings.map(\.package)).sorted().joined(separator: ", "),
            runs, runs == 1 ? "" : "s", threads, threads == 1 ? "" : "s"))
    print("  transcriber                           WER              exact    final transcript p50 / p95 / mean   × tiny.en p50   RTF     first    memory")
    let baseline = percentile(results[0].times, 0.5)
    for run in results {
        let p50 = percentile(run.times, 0.5)
        print(
            "  " + run.name.padding(toLength: 36, withPad: " ", startingAt: 0)
                + String(
                    format: "  %5.1f%% (%3d/%3d)  %2d/%2d    %5.0f / %5.0f / %5.0f ms      %5.2f×       %.3f  %5.0f ms  %4.0f MB",
                    Double(run.errors) / Double(max(1, run.words)) * 100, run.errors, run.words, run.exact, recordings.count,
                    p50, percentile(run.times, 0.95), run.times.reduce(0, +) / Double(max(1, run.times.count)), p50 / max(baseline, 0.001),
                    run.times.reduce(0, +) / 1000 / max(run.audio, 0.001), run.load, Double(run.memory) / 1_000_000))
    }
    for run in results where !run.misheard.isEmpty {
        print("  misheard (\(run.name)):")
        for line in run.misheard { print("    \(line)") }
    }
}
