#if canImport(CWhisper) || canImport(ParleyEngines)
#if canImport(CWhisper)
import CWhisper
#else
import ParleyEngines  // Apple platforms with the AppleEngines trait: whisper.cpp in the ParleyEngines binary target
#endif
#endif
import Foundation
import Logging
import Synchronization
import ParleyCore

#if canImport(CWhisper) || canImport(ParleyEngines)
/// One loaded whisper.cpp model. Owns the C context and frees it in `deinit`; no C pointer
/// leaves this class. Not thread-safe: ``WhisperSpeechToText`` (an actor) is its only user.
final class WhisperContext {
    /// Whether whisper.cpp is built into this program.
    static let isBuilt = true

    let context: OpaquePointer

    init(modelPath: String) throws(WhisperError) {
        WhisperBackend.initializeOnce()
        guard FileManager.default.fileExists(atPath: modelPath) else { throw .modelNotFound(path: modelPath) }
        var params = whisper_context_default_params()
        params.use_gpu = GPUOffload.isAvailable
        guard let context = whisper_init_from_file_with_params(modelPath, params) else {
            throw .modelLoadFailed(path: modelPath)
        }
        self.context = context
    }

    /// A second whisper.cpp state for language detection (made on first use): detection runs
    /// the encoder at the state's last window size, and sharing the transcription's state a
    /// detection over the whole 30 s window before a transcription fitted to the clip made the
    /// transcript nonsense ("¡Valeza capíta en la francia!" for "¿Cuál es la capital de
    /// Francia?", which the same model writes right when told it is Spanish). Its own state
    /// always detects over the whole window, as Whisper was trained to.
    private var detectionState: OpaquePointer?

    deinit {
        if let detectionState { whisper_free_state(detectionState) }
        whisper_free(context)
    }

    /// The language spoken in `samples` (16 kHz), by whisper.cpp's detection on its first
    /// 30 s: the likeliest of `candidates` (codes; `nil`: of every language Whisper knows), or
    /// `nil` when detection fails. Sets ``detectedLanguage``'s source only through the
    /// transcription that follows.
    func detectLanguage(_ samples: [Float], threads: Int, among candidates: Set<String>?) -> String? {
        guard EngineExit.enter() else { return nil }
        defer { EngineExit.leave() }
        if detectionState == nil { detectionState = whisper_init_state(context) }
        guard let state = detectionState,
            whisper_pcm_to_mel_with_state(context, state, samples, Int32(samples.count), Int32(threads)) == 0
        else { return nil }
        var probabilities = [Float](repeating: 0, count: Int(whisper_lang_max_id()) + 1)
        let best = probabilities.withUnsafeMutableBufferPointer { buffer in
            whisper_lang_auto_detect_with_state(context, state, 0, Int32(threads), buffer.baseAddress)
        }
        guard best >= 0 else { return nil }
        let ranked = probabilities.indices.compactMap { id -> (code: String, p: Float)? in
            guard let name = whisper_lang_str(Int32(id)) else { return nil }
            let code = String(cString: name)
            return candidates.map { $0.contains(code) } ?? true ? (code, probabilities[id]) : nil
        }
        return ranked.max { $0.p < $1.p }?.code
    }

    /// Whether the model hears languages other than English.
    var isMultilingual: Bool { whisper_is_multilingual(context) != 0 }

    /// The language of the last transcription, as whisper.cpp spells it ("it").
    var detectedLanguage: String? {
        parley_whisper_full_language(context).map { String(cString: $0) }
    }

    /// Transcribes 16 kHz mono samples; returns the timed segments, with each word's times
    /// when `words` is set (whisper.cpp's token timestamps), translated into English when
    /// `translate` is set and the model is multilingual.
    /// `abort`, set from another thread, stops the transcription at whisper.cpp's next check
    /// (it then fails with ``WhisperError/transcriptionFailed(code:)``).
    func transcribe(
        _ samples: [Float], threads: Int, prompt: String?, words: Bool = false, translate: Bool = false,
        language: String? = "en", candidates: Set<String>? = nil, abort: WhisperAbort? = nil
    ) throws(WhisperError) -> [Segment] {
        var params = Self.greedyParameters(threads: threads)
        params.suppress_blank = true
        params.suppress_nst = true
        // An English-only model writes English whatever it is told; a multilingual one is
        // told the language, or detects it (`nil`, "auto": whisper.cpp's language detection on
        // the first 30 s, then ``detectedLanguage``).
        if isMultilingual {
            // Detected first (on its own state, see ``detectionState``), then transcribed as if
            // the language had been asked for.
            let code = language.flatMap { $0 == "auto" ? nil : $0 } ?? detectLanguage(samples, threads: threads, among: candidates)
            guard let code, parley_whisper_params_set_language(&params, code) != 0 else { throw .unknownLanguage(language ?? "auto") }
        } else {
            parley_whisper_params_set_english(&params)
        }
        params.token_timestamps = words
        params.translate = translate
        // Whisper encodes 30 s windows; pad short clips with a little silence so the last
        // word is not clipped.
        var padded = samples
        if padded.count < 16_000 { padded += [Float](repeating: 0, count: 16_000 - padded.count) }
        params.audio_ctx = Self.audioContext(samples: padded.count, modelContext: Int(whisper_model_n_audio_ctx(context)))
        // Stopped when the caller asks or the process exits (EngineExit).
        params.abort_callback = { data in
            guard !EngineExit.isExiting else { return true }
            guard let data else { return false }
            return Unmanaged<WhisperAbort>.fromOpaque(data).takeUnretainedValue().isRequested
        }
        if let abort {
            // The flag outlives the call: the caller holds it until this returns.
            params.abort_callback_user_data = Unmanaged.passUnretained(abort).toOpaque()
        }
        guard EngineExit.enter() else { throw .transcriptionFailed(code: -6) }
        defer { EngineExit.leave() }
        let code: Int32 =
            prompt.map(Self.boundedPrompt).map { text in
                text.withCString { cPrompt in
                    params.initial_prompt = cPrompt
                    return whisper_full(context, params, padded, Int32(padded.count))
                }
            } ?? whisper_full(context, params, padded, Int32(padded.count))
        guard code == 0 else { throw .transcriptionFailed(code: code) }
        let count = whisper_full_n_segments(context)
        return (0..<count).map { index in
            let text = whisper_full_get_segment_text(context, index).map { String(cString: $0) } ?? ""
            // Timestamps are in units of 10 ms.
            return Segment(
                start: Double(whisper_full_get_segment_t0(context, index)) / 100,
                end: Double(whisper_full_get_segment_t1(context, index)) / 100,
                text: text, words: words ? self.words(ofSegment: index) : [])
        }
    }

    /// Greedy decoding on `threads` threads, printing nothing, with no context from an earlier call.
    static func greedyParameters(threads: Int) -> whisper_full_params {
        var params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        params.n_threads = Int32(threads)
        params.print_progress = false
        params.print_realtime = false
        params.print_special = false
        params.print_timestamps = false
        params.no_context = true
        return params
    }

    /// The words of segment `index`, from its tokens: a token that starts with a space starts
    /// a word; special tokens (timestamps, end of text) are left out.
    private func words(ofSegment index: Int32) -> [Transcript.Segment] {
        let endOfText = whisper_token_eot(context)
        var words: [Transcript.Segment] = []
        for token in 0..<whisper_full_n_tokens(context, index) {
            let data = whisper_full_get_token_data(context, index, token)
            guard data.id < endOfText, let piece = whisper_full_get_token_text(context, index, token).map({ String(cString: $0) }) else { continue }
            let start = Double(data.t0) / 100, end = Double(data.t1) / 100
            if piece.hasPrefix(" ") || words.isEmpty {
                let word = piece.trimmingCharacters(in: .whitespaces)
                guard !word.isEmpty else { continue }
                words.append(Transcript.Segment(start: start, end: end, text: word))
            } else if let last = words.indices.last {
                words[last].text += piece
                words[last].end = max(words[last].end, end)
            }
        }
        return words
    }
}
#else
/// Where whisper.cpp is not built (an Apple app without the AppleEngines trait), no model
/// loads, and the chain hears with the next provider (Apple's recognizer, or a cloud one).
final class WhisperContext {
    static let isBuilt = false

    init(modelPath: String) throws(WhisperError) { throw .modelLoadFailed(path: modelPath) }

    var isMultilingual: Bool { false }
    var detectedLanguage: String? { nil }

    func transcribe(
        _ samples: [Float], threads: Int, prompt: String?, words: Bool = false, translate: Bool = false,
        language: String? = "en", candidates: Set<String>? = nil, abort: WhisperAbort? = nil
    ) throws(WhisperError) -> [Segment] {
        throw .transcriptionFailed(code: -1)
    }
}
#endif

/// A request to stop a transcription under way, made from any thread (a cancelled task's
/// handler) and read by whisper.cpp's abort callback.
final class WhisperAbort: Sendable {
    private let requested = Atomic<Bool>(false)

    /// Asks the transcription to stop.
    func request() { requested.store(true, ordering: .relaxed) }

    /// Whether it was asked to stop.
    var isRequested: Bool { requested.load(ordering: .relaxed) }
}

extension WhisperContext {
    /// Encoder positions past the audio that the encoder still attends to.
    static let audioContextMargin = 256

    /// The encoder context for a clip of `samples` (16 kHz): the clip's own length (50
    /// positions a second) plus ``audioContextMargin``, or 0 (the model's whole 30 s window)
    /// when that would not be shorter. Whisper encodes a full 30 s window whatever the clip's
    /// length, so a 3 s question paid for 30 s of encoding; fitted, it is 3.5× faster (p50
    /// 638 → 182 ms on 144 questions from six espeak-ng voices, 2 cores) at the same word error
    /// rate (0.193 whole window, 0.175 fitted; 0.094 and 0.081 on 8–10 s passages). A margin of
    /// 128 let some clips loop (p95 422 ms) and 64 lost one clip's words entirely.
    /// The most of a prompt whisper.cpp is given, in characters: it keeps at most 224 of the
    /// prompt's tokens anyway, and its tokenizer crashes (SIGSEGV) on one word of 100 KB.
    static let promptLimit = 1_000

    /// `prompt`'s last ``promptLimit`` characters (whisper keeps a prompt's end), its words
    /// cut to at most 100 characters each.
    static func boundedPrompt(_ prompt: String) -> String {
        let words = prompt.suffix(promptLimit).split(separator: " ", omittingEmptySubsequences: false).map { $0.prefix(100) }
        return words.joined(separator: " ")
    }

    static func audioContext(samples: Int, modelContext: Int) -> Int32 {
        let positions = (samples + 319) / 320 + audioContextMargin
        return positions < modelContext ? Int32(positions) : 0
    }
}

#if canImport(CWhisper) || canImport(ParleyEngines)
/// Process-wide whisper.cpp log routing.
enum WhisperBackend {
    static let logger = Logger(label: "parley.whisper.cpp")

    private static let initialized: Bool = {
        whisper_log_set(
            { level, text, _ in
                guard let text else { return }
                let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !message.isEmpty else { return }
                // whisper_full prints "failed to encode/decode" when Parley aborts a transcription
                // it no longer needs; a real failure is thrown (transcriptionFailed) and reported there.
                let aborted = message.hasSuffix("failed to encode") || message.hasSuffix("failed to decode")
                if parley_whisper_is_error_level(level) != 0, !aborted {
                    WhisperBackend.logger.error("\(message)")
                } else {
                    WhisperBackend.logger.trace("\(message)")
                }
            }, nil)
        return true
    }()

    static func initializeOnce() { _ = initialized }
}
#endif

extension WhisperContext {
    /// A timed piece of the transcript, with its words' times when they were asked for.
    struct Segment {
        var start: Double
        var end: Double
        var text: String
        var words: [Transcript.Segment] = []
    }
}
