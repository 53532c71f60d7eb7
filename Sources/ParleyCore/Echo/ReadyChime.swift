import Foundation

/// A short rising sweep played once when a conversation with echo cancellation starts: it tells
/// the user that the assistant listens, and lets the echo canceller learn the room before the
/// first reply (a canceller that has never heard the room lets the first reply's opening half
/// second through, and that echo pauses or cuts the reply).
///
/// The sweep covers the voice band (250 Hz to 4 kHz, rising exponentially) with a second tone
/// an octave and a fifth above, so that the canceller's filter sees every frequency a voice
/// brings, at a modest level, faded in and out.
public enum ReadyChime {
    /// The chime's length in seconds.
    public static let duration = 1.2

    /// The chime at `sampleRate` (mono, peak about 0.25).
    public static func samples(sampleRate: Int) -> [Float] {
        guard sampleRate > 0 else { return [] }
        let count = Int(duration * Double(sampleRate))
        let low = 250.0, high = 4_000.0
        let rate = Double(sampleRate)
        let growth = log(high / low) / duration
        let fade = 0.08
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let time = Double(index) / rate
            // The phase of an exponential sweep is the integral of its frequency.
            let phase = 2 * Double.pi * low * (exp(growth * time) - 1) / growth
            let edge = min(time / fade, (duration - time) / fade, 1)
            let envelope = 0.5 - 0.5 * cos(Double.pi * max(0, edge))
            let value = 0.18 * sin(phase) + 0.07 * sin(3 * phase)
            samples[index] = Float(envelope * value)
        }
        return samples
    }

    /// The chime as audio at `sampleRate`.
    public static func audio(sampleRate: Int) -> AudioBuffer {
        AudioBuffer(samples: samples(sampleRate: sampleRate), sampleRate: sampleRate)
    }
}
