/// The silence at the end of a synthesized chunk, held back until it is known whether sound
/// follows it. A synthesizer ends every piece of text with a pause fit for the end of a
/// sentence (espeak-ng: 0.3 s), which in the middle of one ("The capital of France | is
/// Paris.") sounds like a stumble; the reply keeps only a short breath there.
///
/// Sound is never delayed: each buffer is played at once up to its last audible sample, and
/// only the silence after it waits (to be played before the next sound, or cut at the end).
struct SilenceTail {
    /// The quietest sample that counts as sound (about −40 dBFS).
    static let level: Float = 0.01

    private var held: AudioBuffer?

    /// What of `buffer` to play now: any silence held from before (it lies between two
    /// sounds), then the buffer up to its last sound. The silence after that is held.
    mutating func play(_ buffer: AudioBuffer) -> [AudioBuffer] {
        guard let last = buffer.samples.lastIndex(where: { abs($0) >= Self.level }) else {
            // All silence: it ends the chunk so far.
            if var silence = held, silence.sampleRate == buffer.sampleRate {
                silence.append(buffer)
                held = silence
                return []
            }
            let earlier = held
            held = buffer
            return earlier.map { [$0] } ?? []
        }
        var now: [AudioBuffer] = []
        if let held, !held.isEmpty { now.append(held) }
        if last == buffer.samples.count - 1 {
            // Sound to its end: nothing to hold, nothing to copy.
            now.append(buffer)
            held = nil
        } else {
            now.append(buffer.slice(0..<(last + 1)))
            held = buffer.slice((last + 1)..<buffer.samples.count)
        }
        return now
    }

    /// The held silence that ends the chunk, at most `seconds` of it (all of it when `nil`).
    mutating func end(keeping seconds: Double?) -> AudioBuffer? {
        guard let silence = held else { return nil }
        held = nil
        guard let seconds else { return silence }
        let kept = silence.slice(0..<Int((seconds * Double(silence.sampleRate)).rounded()))
        return kept.isEmpty ? nil : kept
    }
}
