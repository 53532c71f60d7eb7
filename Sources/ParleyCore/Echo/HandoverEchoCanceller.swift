/// Two echo cancellers in one: the microphone's audio comes out of `first` until `then` has
/// heard enough of the speaker to know the room, and out of `then` after it. Both hear every
/// frame from the start, so the second learns while the first answers.
///
/// For a canceller whose first sound may be a reply: one engine may keep that reply's echo out
/// from its first word (WebRTC's, measured in the room rig) while another, once it has learnt
/// the room, leaves more of a user who talks over the reply (SpeexDSP's). The switch happens
/// inside one call, faded over its samples, so no click marks it.
public actor HandoverEchoCanceller: EchoCanceller {
    public nonisolated let sampleRate: Int
    /// The canceller heard first.
    public nonisolated let first: any EchoCanceller
    /// The canceller heard once it has learnt the room.
    public nonisolated let then: any EchoCanceller
    /// Seconds of speaker audio (above ``audibleLevel``) `then` hears before it takes over.
    /// 1.5 s by default: in the room rig SpeexDSP's kept a fresh reply's echo out as well after
    /// 1.5 s as after 3 s, and a user who talks over the reply from then on is heard through it.
    public nonisolated let handover: Double
    /// A call's speaker audio at or below this RMS level is silence: it teaches neither canceller
    /// the room.
    public nonisolated let audibleLevel: Float

    private var heard = 0
    private var handedOver = false

    /// Creates the pair. Both run at the same sample rate.
    /// - Throws: ``EchoCancellerError`` when their rates differ, `handover` is not a number of
    ///   seconds from 0 to 600, or `audibleLevel` is not a level from 0 to 1.
    public init(first: any EchoCanceller, then: any EchoCanceller, handover: Double = 1.5, audibleLevel: Float = 0.001) throws(EchoCancellerError) {
        guard first.sampleRate == then.sampleRate else {
            throw EchoCancellerError("The two cancellers run at \(first.sampleRate) and \(then.sampleRate) Hz: give them the same rate")
        }
        guard handover.isFinite, (0...600).contains(handover) else {
            throw EchoCancellerError("The handover is 0 to 600 seconds of the speaker's audio, not \(handover)")
        }
        guard audibleLevel.isFinite, (0...1).contains(audibleLevel) else {
            throw EchoCancellerError("The audible level is an RMS level from 0 to 1, not \(audibleLevel)")
        }
        self.sampleRate = first.sampleRate
        self.first = first
        self.then = then
        self.handover = handover
        self.audibleLevel = audibleLevel
    }

    /// Whether `then` answers now.
    public var hasHandedOver: Bool { handedOver }

    public func cancel(microphone: [Float], speaker: [Float]) async -> [Float] {
        let late = await then.cancel(microphone: microphone, speaker: speaker)
        if handedOver { return late }
        let early = await first.cancel(microphone: microphone, speaker: speaker)
        if Self.rms(speaker) > audibleLevel { heard += min(speaker.count, microphone.count) }
        guard Double(heard) >= handover * Double(sampleRate) else { return early }
        handedOver = true
        // Faded from the first's output to the second's over this call's samples.
        let count = min(early.count, late.count)
        guard count > 1 else { return late }
        return (0..<count).map { index in
            let weight = Float(index) / Float(count - 1)
            return early[index] * (1 - weight) + late[index] * weight
        }
    }

    public func reset() async {
        await first.reset()
        await then.reset()
        heard = 0
        handedOver = false
    }

    private static func rms(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }
}
