#if canImport(CWhisper) || canImport(ParleyEngines)
#if canImport(CWhisper)
import CWhisper
#else
import ParleyEngines
#endif
#endif
import Foundation
import ParleyCore

/// Leads Whisper's decoder along the spellings of one phrase, one token at a time, and adds up
/// how likely the decoder found each token: the log-probability that the audio begins with the
/// phrase. No text is decoded freely; only the phrase's own tokens are scored.
///
/// At each step the next tokens that some spelling allows are the candidates; the likeliest of
/// them is taken (so "Hey, Parley" and "Hey Parley" both count), every other token is made
/// impossible, and once a spelling is complete the decoder is sent to its end.
final class PhraseForcing {
    /// Token sequences, one per spelling.
    let spellings: [[Int32]]
    /// The end-of-text token, forced once a spelling is complete.
    let endOfText: Int32
    /// The tokens taken so far.
    private(set) var path: [Int32] = []
    /// The sum of their log-probabilities.
    private(set) var logProbability: Double = 0
    /// The sum, over the steps, of how much likelier the decoder's own first choice was than
    /// the phrase's token (0 at a step where the phrase's token was its first choice).
    private(set) var shortfall: Double = 0

    /// The lowest log-probability one token adds (a token the decoder ruled out entirely).
    static let floor = -30.0

    init(spellings: [[Int32]], endOfText: Int32) {
        self.spellings = spellings.filter { !$0.isEmpty }
        self.endOfText = endOfText
    }

    /// Whether a whole spelling has been taken.
    var isComplete: Bool { spellings.contains(path) }

    /// One decoding step over `logits` (the vocabulary's, after Whisper's own rules): scores
    /// and forces the next token of the phrase, or the end of text once it is complete.
    func step(_ logits: UnsafeMutableBufferPointer<Float>) {
        let candidates = Set(spellings.compactMap { $0.count > path.count && Array($0.prefix(path.count)) == path ? $0[path.count] : nil })
            .filter { Int($0) >= 0 && Int($0) < logits.count }
        let forced: Int
        if let best = candidates.max(by: { logits[Int($0)] < logits[Int($1)] }) {
            var largest = -Float.infinity
            for value in logits where value > largest { largest = value }
            var total = 0.0
            if largest.isFinite {
                for value in logits where value.isFinite { total += exp(Double(value - largest)) }
            }
            let chosen = logits[Int(best)]
            let logP = chosen.isFinite && largest.isFinite && total > 0 ? Double(chosen - largest) - log(total) : Self.floor
            logProbability += max(Self.floor, logP)
            shortfall += chosen.isFinite ? Double(largest - chosen) : -Self.floor
            path.append(best)
            forced = Int(best)
        } else {
            forced = Int(endOfText)
        }
        for index in logits.indices where index != forced { logits[index] = -.infinity }
    }
}

#if canImport(CWhisper) || canImport(ParleyEngines)
extension WhisperContext {
    /// The tokens of `text` in this model's vocabulary (empty when it cannot be tokenized).
    func tokens(of text: String) -> [Int32] {
        var buffer = [whisper_token](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBufferPointer { whisper_tokenize(context, text, $0.baseAddress, Int32($0.count)) }
        return count > 0 ? Array(buffer.prefix(Int(count))) : []
    }

    /// The log-probability that 16 kHz `samples` begin with one of `spellings` (texts with a
    /// leading space, as Whisper writes a first word), summed over the phrase's tokens: close
    /// to 0 when the phrase is clearly said, far below when another is. English only; no
    /// text is decoded.
    func phraseScore(_ samples: [Float], threads: Int, spellings: [String]) throws(WhisperError) -> PhraseScore {
        let forcing = PhraseForcing(spellings: spellings.map(tokens(of:)), endOfText: whisper_token_eot(context))
        guard let longest = forcing.spellings.map(\.count).max() else {
            return PhraseScore(logProbability: PhraseForcing.floor, shortfall: -PhraseForcing.floor)
        }
        var params = Self.greedyParameters(threads: threads)
        params.no_timestamps = true
        params.single_segment = true
        params.suppress_blank = false
        params.suppress_nst = true
        // One pass at temperature 0: no fallback decodes the audio again.
        params.temperature = 0
        params.temperature_inc = 0
        params.max_tokens = Int32(longest + 2)
        parley_whisper_params_set_english(&params)
        var padded = samples
        if padded.count < 16_000 { padded += [Float](repeating: 0, count: 16_000 - padded.count) }
        params.audio_ctx = Self.audioContext(samples: padded.count, modelContext: Int(whisper_model_n_audio_ctx(context)))
        params.abort_callback = { _ in EngineExit.isExiting }
        params.logits_filter_callback = { context, _, _, _, logits, data in
            guard let context, let logits, let data else { return }
            let forcing = Unmanaged<PhraseForcing>.fromOpaque(data).takeUnretainedValue()
            forcing.step(UnsafeMutableBufferPointer(start: logits, count: Int(whisper_n_vocab(context))))
        }
        guard EngineExit.enter() else { throw .transcriptionFailed(code: -6) }
        defer { EngineExit.leave() }
        let code = withExtendedLifetime(forcing) {
            params.logits_filter_callback_user_data = Unmanaged.passUnretained(forcing).toOpaque()
            return whisper_full(context, params, padded, Int32(padded.count))
        }
        guard code == 0 else { throw .transcriptionFailed(code: code) }
        // A phrase the decoder stopped before completing scores the floor for each missing token.
        let missing = Double(forcing.isComplete ? 0 : max(0, longest - forcing.path.count))
        return PhraseScore(
            logProbability: forcing.logProbability + missing * PhraseForcing.floor, shortfall: forcing.shortfall - missing * PhraseForcing.floor)
    }
}
#else
extension WhisperContext {
    func phraseScore(_ samples: [Float], threads: Int, spellings: [String]) throws(WhisperError) -> PhraseScore {
        throw .transcriptionFailed(code: -1)
    }
}
#endif

/// How clearly a stretch of audio begins with a phrase, by the speech model led through the
/// phrase's tokens (``WhisperSpeechToText/phraseScore(_:spellings:)``).
public struct PhraseScore: Sendable, Equatable {
    /// The log-probability of the phrase's tokens, summed: 0 at best, lower the more the model
    /// doubts them.
    public var logProbability: Double
    /// How much likelier the model's own first choice was than the phrase's token, summed over
    /// the tokens (in natural log units): 0 when the phrase is what the model would have
    /// written itself.
    public var shortfall: Double

    /// Creates a score.
    public init(logProbability: Double, shortfall: Double) {
        self.logProbability = logProbability
        self.shortfall = shortfall
    }
}

extension WhisperSpeechToText {
    /// How clearly `audio` begins with one of `spellings` of a phrase ("Hey Parley",
    /// "Hey, Parley"): the log-probability the English model gives the phrase's tokens, summed
    /// (0 at best; each token the model doubts lowers it). The model is led through the
    /// phrase's own tokens, so no transcript is made of what was said: this checks a wake
    /// phrase without transcribing what came before it.
    public func phraseScore(_ audio: AudioBuffer, spellings: [String]) async throws -> PhraseScore {
        guard !audio.isEmpty else { throw ProviderError.invalidInput("The audio is empty.") }
        let samples = audio.resampled(to: preferredSampleRate).samples
        let context = try context(for: "en")
        let threads = self.threads
        let spellings = spellings.map { $0.hasPrefix(" ") ? $0 : " " + $0 }
        return try ComputeLane.shared.run {
            try context.phraseScore(samples, threads: CoreShare.shared.threads(upTo: threads), spellings: spellings)
        }
    }
}
