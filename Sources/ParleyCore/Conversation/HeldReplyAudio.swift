/// Where a speculative reply's audio waits: chunks are kept until ``release(to:)``, which plays
/// them on the real output in order, and every chunk after goes straight there. A reply that is
/// never released is dropped with this value, unheard.
actor HeldReplyAudio: AudioOutput {
    private var target: (any AudioOutput)?
    private var held: [AudioBuffer] = []

    /// Seconds of audio waiting.
    var heldSeconds: Double { held.reduce(0) { $0 + $1.duration } }

    /// Nothing to begin: the conversation begins its own output when the reply is released.
    func beginReply() {}

    func play(_ chunk: AudioBuffer) async {
        if let target {
            await target.play(chunk)
        } else {
            held.append(chunk)
        }
    }

    /// Nothing here was heard: playback is the real output's.
    func stop() -> Double { 0 }

    /// Nothing here was heard: playback is the real output's.
    func finish() -> Double { 0 }

    /// Plays what is held on `output`, then sends every later chunk there.
    func release(to output: any AudioOutput) async {
        // A chunk that arrives while one is being handed over waits its turn behind it.
        while !held.isEmpty {
            let chunk = held.removeFirst()
            await output.play(chunk)
        }
        target = output
    }
}
