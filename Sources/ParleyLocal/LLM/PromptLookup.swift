import Foundation

/// Guesses the next tokens of a reply from the words it has to hand: where the reply's last
/// tokens appeared before (in the user's question, say), the tokens that followed them there
/// are proposed to follow again. "What is the name of the longest river in Africa?" is answered
/// "The longest river in Africa …": after " longest", " river in Africa" is proposed. The model
/// checks the proposals in one batch (``LlamaSession/evaluate(_:drafts:sampler:)``), keeping
/// only what it would have written itself.
struct PromptLookup: Sendable, Equatable {
    /// The most tokens proposed at a time.
    var length: Int
    /// Where a single-token match may be looked for: the last message, whose words an answer
    /// echoes (everywhere before it, one token matches too much).
    var messageStart: Int
    /// How far back a match of two tokens may be looked for.
    var window = 256

    /// Proposed tokens to follow `newest`, the token after `earlier` (a prompt and the reply
    /// so far, as memory holds them), at most ``length``; none when the last tokens were not
    /// seen before. A match of the last two tokens anywhere in the window is preferred to one
    /// of the last token alone in the last message; the latest match wins. Control tokens (the
    /// template's markers) are never proposed: the proposal stops before one.
    func drafts(after newest: Int32, in earlier: [Int32], isControl: (Int32) -> Bool) -> [Int32] {
        guard length > 0, let previous = earlier.last else { return [] }
        // `newest` would stand at `earlier.count`; every match and proposal lies before it.
        let last = earlier.count
        func proposal(following end: Int) -> [Int32] {
            var proposed: [Int32] = []
            var index = end + 1
            while index < last, proposed.count < length, !isControl(earlier[index]) {
                proposed.append(earlier[index])
                index += 1
            }
            return proposed
        }
        // The last two tokens, seen before (ending at `end`).
        var end = last - 1
        while end >= max(1, last + 1 - window) {
            if earlier[end] == newest, earlier[end - 1] == previous {
                let proposed = proposal(following: end)
                if !proposed.isEmpty { return proposed }
            }
            end -= 1
        }
        // The last token alone, in the last message.
        end = last - 1
        while end >= max(0, messageStart) {
            if earlier[end] == newest {
                let proposed = proposal(following: end)
                if !proposed.isEmpty { return proposed }
            }
            end -= 1
        }
        return []
    }
}

/// Whether guessing tokens pays on this machine, from what it has cost and brought so far.
///
/// Checking guesses takes a batch, which costs about one step where each step reads every
/// weight once (most CPUs: four tokens took 98 ms against 85 for one on an AVX-512 machine),
/// but more where the arithmetic is what limits (another machine evaluated four in 125 ms
/// against 48 for one). A batch pays when the tokens it confirms would have taken longer one
/// at a time than the batch's extra time: confirmed × step > batch − step, on running averages.
/// Where it does not, guessing stops, and is tried again every ``retryAfter`` steps, since the
/// load on the machine changes.
struct GuessEconomy: Sendable {
    /// Seconds one token's evaluation takes (running average).
    private(set) var stepSeconds: Double?
    /// Seconds a token and its guesses take (running average).
    private(set) var batchSeconds: Double?
    /// Guesses confirmed per batch (running average); hopeful until measured.
    private(set) var confirmedPerBatch = 1.0
    /// Steps taken one token at a time since the last batch.
    private var stepsSinceBatch = 0
    /// Steps after which a batch is tried again when guessing has not paid.
    var retryAfter = 32
    /// The weight of the newest measurement in the running averages.
    private let weight = 0.25

    /// Whether the next step should check guesses.
    func pays() -> Bool {
        guard let step = stepSeconds, let batch = batchSeconds else { return true }
        return confirmedPerBatch * step > batch - step || stepsSinceBatch >= retryAfter
    }

    /// A token evaluated alone took `seconds`.
    mutating func step(_ seconds: Double) {
        stepSeconds = Self.average(stepSeconds, seconds, weight: weight)
        stepsSinceBatch += 1
    }

    /// A token and its guesses took `seconds`, and `confirmed` of the guesses were right.
    mutating func batch(_ seconds: Double, confirmed: Int) {
        batchSeconds = Self.average(batchSeconds, seconds, weight: weight)
        confirmedPerBatch = Self.average(confirmedPerBatch, Double(confirmed), weight: weight)
        stepsSinceBatch = 0
    }

    /// The running averages, for logs.
    var summary: String {
        let step = stepSeconds.map { String(format: "%.0f ms", $0 * 1000) } ?? "?"
        let batch = batchSeconds.map { String(format: "%.0f ms", $0 * 1000) } ?? "?"
        return "a step \(step), a batch \(batch), \(String(format: "%.1f", confirmedPerBatch)) confirmed a batch"
    }

    private static func average(_ old: Double?, _ new: Double, weight: Double) -> Double {
        old.map { $0 + weight * (new - $0) } ?? new
    }
}
