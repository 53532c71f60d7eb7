import Foundation
import ParleyCore
import ParleyLocal
import ParleyTesting

// voices — the on-device voices side by side in one run: the neural voice (Piper's
// en_US-joe-medium on sherpa-onnx, phonemes from espeak-ng) and espeak-ng alone. For each: the
// time from a sentence's text to its first audio, the real-time factor, peak memory, and
// intelligibility as whisper.cpp tiny.en's word error rate on 30 sentences it speaks.

/// Thirty sentences of the kind a voice assistant says (numbers in words; whisper.cpp's digits
/// are written out before comparing).
let voiceSentences = [
    "The capital of France is Paris.",
    "It will be sunny this afternoon, with a light breeze from the west.",
    "Your meeting with the science teacher starts in ten minutes.",
    "Seven times eight is fifty six.",
    "Mercury is the planet closest to the sun.",
    "I have set a timer for fifteen minutes.",
    "Water boils at one hundred degrees Celsius at sea level.",
    "Your history essay is due on Friday morning.",
    "The library closes at six o'clock tonight.",
    "Photosynthesis turns sunlight, water and carbon dioxide into sugar and oxygen.",
    "Would you like me to read your notes aloud?",
    "The Pacific is the largest ocean on Earth.",
    "Remember to bring your calculator to the maths exam.",
    "A triangle has three sides and three angles.",
    "Shakespeare wrote Romeo and Juliet.",
    "The train to London leaves from platform four.",
    "There are twelve months in a year and seven days in a week.",
    "Please speak a little more slowly so I can follow.",
    "The field trip to the museum is next Thursday.",
    "Whales are mammals, not fish.",
    "Two hours are one hundred and twenty minutes.",
    "The heart pumps blood around the body.",
    "You asked me to remind you to call your grandmother.",
    "The Great Wall of China is very long.",
    "Good morning! How can I help you today?",
    "Spiders have eight legs, and insects have six.",
    "The moon goes around the Earth about once a month.",
    "Your next lesson is geography in room twelve.",
    "Light travels faster than sound.",
    "That is a great question, let me think about it.",
]

/// The process's resident memory now and at its peak (Linux: /proc/self/status), in bytes.
func residentMemory() -> (now: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func kilobytes(_ key: String) -> Int {
        let line = status.split(separator: "\n").first { $0.hasPrefix(key) } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return (kilobytes("VmRSS:"), kilobytes("VmHWM:"))
}

/// The peak resident memory of the largest child process waited for (espeak-ng), in bytes.
func childPeakMemory() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

/// Lower-cased words without punctuation, numbers written out ("56" → "fifty six") as the
/// sentences have them: whisper.cpp writes digits.
func normalizedWords(_ text: String) -> [String] {
    text.lowercased().map { $0.isLetter || $0.isNumber || $0 == "'" ? $0 : " " }
        .split(separator: " ")
        .flatMap { word in Int(String(word)).map(spelled) ?? [String(word)] }
}

/// `number` (0–9999) in words, British style ("one hundred and twenty").
func spelled(_ number: Int) -> [String] {
    let small = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    guard number >= 0, number < 10_000 else { return [String(number)] }
    if number < 20 { return [small[number]] }
    if number < 100 { return [tens[number / 10]] + (number % 10 == 0 ? [] : [small[number % 10]]) }
    if number < 1000 {
        return [small[number / 100], "hundred"] + (number % 100 == 0 ? [] : ["and"] + spelled(number % 100))
    }
    return spelled(number / 1000) + ["thousand"] + (number % 1000 == 0 ? [] : spelled(number % 1000))
}

struct VoiceRun {
    var name: String
    var firstAudio: [Double] = []  // ms from the text to its first audio, per sentence
    var firstClause: [Double] = []  // ms from a reply's first chunk (as ReplySpeaker cuts it) to its audio
    var synthesis: Double = 0  // ms spent in total
    var audio: Double = 0  // seconds of speech
    var load: Double = 0  // ms to load before the first sentence
    var memory = 0  // bytes
    var clips: [AudioBuffer] = []
    var errors = 0
    var words = 0
    var sampleRate = 0
    var misheard: [String] = []
}

func speak(_ sentences: [String], with tts: any TextToSpeechProvider, into run: inout VoiceRun) async throws {
    let clock = ContinuousClock()
    for sentence in sentences {
        let start = clock.now
        var first: Duration?
        var clip: AudioBuffer?
        for try await chunk in tts.synthesize(sentence, options: SpeechOptions()) {
            if first == nil { first = clock.now - start }
            if clip == nil { clip = chunk } else { clip?.appendConverting(chunk) }
        }
        run.synthesis += (clock.now - start).milliseconds
        run.firstAudio.append(first?.milliseconds ?? .nan)
        guard let clip else { continue }
        run.audio += clip.duration
        run.sampleRate = clip.sampleRate
        run.clips.append(clip)
    }
}

/// The first chunk ReplySpeaker would speak of a reply that is `sentence`.
func firstChunk(of sentence: String) -> String {
    var chunker = ReplySpeaker.replyChunker()
    var chunks: [String] = []
    for word in sentence.split(separator: " ", omittingEmptySubsequences: false) {
        chunks += chunker.append(word + " ")
        if !chunks.isEmpty { break }
    }
    if chunks.isEmpty, let rest = chunker.finish() { chunks.append(rest) }
    return chunks.first ?? sentence
}

/// Milliseconds from each reply's first chunk to its audio.
func firstClauses(_ sentences: [String], with tts: any TextToSpeechProvider) async throws -> [Double] {
    let clock = ContinuousClock()
    var times: [Double] = []
    for sentence in sentences {
        let start = clock.now
        for try await _ in tts.synthesize(firstChunk(of: sentence), options: SpeechOptions()) { break }
        times.append((clock.now - start).milliseconds)
    }
    return times
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func voicesSuite() async throws {
    let paths = ParleyPaths.current()
    // As the runtime makes it: up to two threads, as many as the cores left free.
    let threads = Int(ProcessInfo.processInfo.environment["VOICES_THREADS"] ?? "") ?? 2
    let clock = ContinuousClock()
    // espeak-ng first: it runs in child processes, so this process's peak stays as it was.
    let espeak = EspeakTextToSpeech()
    var espeakRun = VoiceRun(name: "espeak-ng (en-us)")
    _ = try await espeak.synthesizeAll("Warm up.")
    try await speak(voiceSentences, with: espeak, into: &espeakRun)
    espeakRun.firstClause = try await firstClauses(voiceSentences, with: espeak)
    espeakRun.memory = childPeakMemory()

    let neural = PiperTextToSpeech(folder: paths.models, cache: paths.voiceCache, threads: threads)
    guard await neural.availability().isReady else {
        print("voices: the neural voice is not installed (\(await neural.availability())): run scripts/setup")
        return
    }
    var neuralRun = VoiceRun(name: "sherpa-onnx Piper joe-medium (\(threads == 1 ? "1 thread" : "≤ \(threads) threads"))")
    let before = residentMemory()
    let loadStart = clock.now
    try await neural.load(try neural.voice(named: nil))
    neuralRun.load = (clock.now - loadStart).milliseconds
    // With two threads the voice also loads for one (used when a core is busy): measured only
    // once nothing loads beside the sentences.
    try await neural.loadAll(try neural.voice(named: nil))
    _ = try await neural.synthesizeAll("Warm up.")
    try await speak(voiceSentences, with: neural, into: &neuralRun)
    neuralRun.firstClause = try await firstClauses(voiceSentences, with: neural)
    neuralRun.memory = residentMemory().peak - before.now

    // Intelligibility: whisper.cpp tiny.en hears each clip (loaded only now, so it is not in
    // the memory figures).
    let stt = WhisperSpeechToText(modelPath: paths.defaultWhisperModel.path, threads: 2)
    for index in [0, 1] {
        var run = index == 0 ? espeakRun : neuralRun
        for (clip, sentence) in zip(run.clips, voiceSentences) {
            let heard = try await stt.transcribe(clip, options: TranscriptionOptions()).text
            let said = normalizedWords(sentence)
            let errors = wordErrors(normalizedWords(heard), said)
            run.errors += errors
            run.words += said.count
            if errors > 0 { run.misheard.append("\"\(sentence)\" → \"\(heard)\"") }
        }
        if index == 0 { espeakRun = run } else { neuralRun = run }
    }

    print("voices: \(voiceSentences.count) sentences, each synthesized whole (one chunk), warm; WER by whisper.cpp tiny.en")
    print("  voice                                        first audio p50/p95:  first chunk   whole sentence   RTF     speech   rate    peak memory   WER")
    for run in [espeakRun, neuralRun] {
        print(
            "  " + run.name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(
                    format: "  %4.0f / %4.0f ms   %4.0f / %4.0f ms   %.3f  %6.1f s  %5d Hz  %7.0f MB   %5.1f%% (%d/%d)",
                    percentile(run.firstClause, 0.5), percentile(run.firstClause, 0.95),
                    percentile(run.firstAudio, 0.5), percentile(run.firstAudio, 0.95),
                    run.synthesis / 1000 / max(run.audio, 0.001), run.audio, run.sampleRate, Double(run.memory) / 1_000_000,
                    Double(run.errors) / Double(max(1, run.words)) * 100, run.errors, run.words))
    }
    print(
        String(
            format:
                "  neural voice: first audio +%.0f ms (p50) over espeak-ng on a reply's first chunk, +%.0f ms on a whole sentence; loading it took %.0f ms (once per process)",
            percentile(neuralRun.firstClause, 0.5) - percentile(espeakRun.firstClause, 0.5),
            percentile(neuralRun.firstAudio, 0.5) - percentile(espeakRun.firstAudio, 0.5), neuralRun.load))
    print("  first chunk: what ReplySpeaker speaks first of a reply that is the sentence (e.g. \"\(firstChunk(of: voiceSentences[1]))\")")
    print("  memory: espeak-ng is its child process's peak; the neural voice is this process's peak growth while loading and speaking")
    for run in [espeakRun, neuralRun] where !run.misheard.isEmpty {
        print("  misheard (\(run.name)):")
        for line in run.misheard { print("    \(line)") }
    }
    if let directory = ProcessInfo.processInfo.environment["VOICES_KEEP"] {
        for (index, run) in [espeakRun, neuralRun].enumerated() {
            var all = run.clips.first ?? AudioBuffer(samples: [], sampleRate: run.sampleRate)
            for clip in run.clips.dropFirst() { all.appendConverting(clip) }
            try WAV.write(all, to: URL(fileURLWithPath: directory).appendingPathComponent(index == 0 ? "espeak.wav" : "neural.wav"))
        }
    }
}
