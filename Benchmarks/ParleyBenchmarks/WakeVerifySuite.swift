// wakeverify — the wake word's two stages on one evaluation set (issue 46): the audio
// `scripts/wake_word/train.py --eval-audio DIR` wrote (wake phrases in voices never trained on,
// and an hour of speech and noise that never says it, with manifest.json). Every 80 ms chunk's
// score from the "Hey Parley" head (WakeWordDetector, never firing), and wherever it reaches
// WAKE_VERIFY_FLOOR (0.3), the second stage's score: whisper.cpp's log-probability that the
// last WAKE_VERIFY_WINDOW seconds (2.4) begin with "Hey Parley" (WhisperSpeechToText.phraseScore).
// Written as JSON to WAKE_OUT; scripts/wake_word/cascade.py replays any thresholds over it.
// For experiments: WAKE_MODELS (a folder holding the detector's three files) measures another
// head; WAKE_VERIFY_AT (a JSON object of file names to chunk indices) checks those
// chunks only, and WAKE_VERIFY_RIVALS ("|"-separated phrases) scores the best of them beside the
// phrase at each check (two more numbers per chunk).
//   WAKE_AUDIO=DIR WAKE_OUT=FILE parley-benchmarks wakeverify
import Foundation
import ParleyCore
import ParleyLocal
import ParleyTesting

func wakeVerifySuite() async throws {
    let environment = ProcessInfo.processInfo.environment
    guard let folder = environment["WAKE_AUDIO"], let out = environment["WAKE_OUT"] else {
        print("wakeverify: set WAKE_AUDIO (train.py --eval-audio's folder) and WAKE_OUT (a JSON file)")
        return
    }
    let floor = Double(environment["WAKE_VERIFY_FLOOR"] ?? "") ?? 0.3
    // Only these chunks are checked, file by file (a JSON object of file names to chunk indices), when given.
    let only: [String: Set<Int>]? = environment["WAKE_VERIFY_AT"].flatMap { path in
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: [Int]])?.mapValues(Set.init)
    }
    // Rival phrases ("|"-separated), scored beside the phrase at each check.
    let rivals = (environment["WAKE_VERIFY_RIVALS"] ?? "").split(separator: "|").map(String.init)
    let window = Double(environment["WAKE_VERIFY_WINDOW"] ?? "") ?? 2.4
    let paths = ParleyPaths.current()
    // WAKE_MODELS: another folder with the three detector files (another head, say).
    let models = environment["WAKE_MODELS"].map { URL(fileURLWithPath: $0) } ?? paths.models
    let manifestURL = URL(fileURLWithPath: folder).appendingPathComponent("manifest.json")
    guard let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any] else {
        print("wakeverify: \(manifestURL.path) is not a manifest")
        return
    }
    let stt = WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: 2)
    try await stt.load()
    let spellings = ["Hey Parley", "Hey, Parley", "hey Parley", "Hey parley", "hey parley", "Hey, parley"]
    let rate = 16_000, chunk = 1_280
    let keep = Int(window * Double(rate))
    var verifications = 0
    var verifyMilliseconds: [Double] = []

    func run(_ entries: [[String: Any]]) async throws -> [[String: Any]] {
        var results: [[String: Any]] = []
        for entry in entries {
            guard let file = entry["file"] as? String else { continue }
            let samples = try WAV.read(from: URL(fileURLWithPath: folder).appendingPathComponent(file)).resampled(to: rate).samples
            // Never fires: every chunk's score is read with takeHighestScore().
            let detector = WakeWordDetector(models: models, threshold: 2)
            var scores: [Double] = []
            var verified: [String: [Double]] = [:]
            var at = 0
            while at + chunk <= samples.count {
                _ = try await detector.listen(to: AudioBuffer(samples: Array(samples[at..<at + chunk]), sampleRate: rate))
                at += chunk
                let score = await detector.takeHighestScore()
                scores.append((score * 10_000).rounded() / 10_000)
                let wanted = only.map { $0[file]?.contains(scores.count - 1) == true } ?? (score >= floor)
                if wanted {
                    let clip = AudioBuffer(samples: Array(samples[max(0, at - keep)..<at]), sampleRate: rate)
                    let clock = ContinuousClock(), start = clock.now
                    let value = try await stt.phraseScore(clip, spellings: spellings)
                    verifyMilliseconds.append((clock.now - start).milliseconds)
                    var numbers = [value.logProbability, value.shortfall]
                    if !rivals.isEmpty {
                        let rival = try await stt.phraseScore(clip, spellings: rivals)
                        numbers += [rival.logProbability, rival.shortfall]
                    }
                    verified["\(scores.count - 1)"] = numbers.map { ($0 * 1_000).rounded() / 1_000 }
                    verifications += 1
                }
            }
            var result = entry
            result["scores"] = scores
            result["verified"] = verified
            results.append(result)
        }
        return results
    }
    let phrases = try await run(manifest["phrases"] as? [[String: Any]] ?? [])
    print("wakeverify: \(phrases.count) phrases, \(verifications) verifications so far")
    let streams = try await run(manifest["streams"] as? [[String: Any]] ?? [])
    let sorted = verifyMilliseconds.sorted()
    let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    print("wakeverify: \(streams.count) streams, \(verifications) verifications, median \(Int(median)) ms each")
    let report: [String: Any] = [
        "window": window, "floor": floor, "spellings": spellings, "rate": rate, "chunk": chunk,
        "verify_ms_median": median, "phrases": phrases, "streams": streams,
    ]
    try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: out))
}
