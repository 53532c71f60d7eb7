/// The microphone and speaker samples an echo canceller has been given but not yet processed,
/// cut into the engine's fixed frames (10 ms): the part of a call beyond whole frames waits for
/// the next call.
struct EchoFrames {
    let frameSize: Int
    private var microphone: [Float] = []
    private var speaker: [Float] = []

    init(frameSize: Int) {
        self.frameSize = frameSize
    }

    /// Adds a call's audio: `speaker` is padded with silence or cut to the microphone's length.
    mutating func append(microphone: [Float], speaker: [Float]) {
        self.microphone += microphone
        if speaker.count >= microphone.count {
            self.speaker += speaker.prefix(microphone.count)
        } else {
            self.speaker += speaker + [Float](repeating: 0, count: microphone.count - speaker.count)
        }
    }

    /// Takes every whole frame out, passing each (microphone, speaker) pair to `process`, which
    /// returns the cleaned microphone frame; returns the cleaned frames joined.
    mutating func drain(_ process: (ArraySlice<Float>, ArraySlice<Float>) -> [Float]) -> [Float] {
        let whole = microphone.count / frameSize * frameSize
        guard whole > 0 else { return [] }
        var output: [Float] = []
        output.reserveCapacity(whole)
        for offset in stride(from: 0, to: whole, by: frameSize) {
            output += process(microphone[offset..<offset + frameSize], speaker[offset..<offset + frameSize])
        }
        microphone.removeFirst(whole)
        speaker.removeFirst(whole)
        return output
    }

    /// Drops what waits.
    mutating func removeAll() {
        microphone.removeAll()
        speaker.removeAll()
    }
}
