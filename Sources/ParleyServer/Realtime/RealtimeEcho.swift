import Logging
import ParleyCore
import ParleyRuntime

/// Echo cancellation for a realtime session that asked for it
/// (`session.parley.echo_cancellation`): the response audio the session streams is the far-end
/// reference for the microphone audio the client appends.
///
/// The reference is matched with the appended audio sample for sample from the moment it is
/// sent; the client plays it a little later, which the canceller's filter absorbs. A paused or cut
/// response is no longer played, so what is still waiting of it is dropped. Without an echo canceller
/// (DeviceServices) the session runs on without cancellation, after a warning.
actor RealtimeEcho {
    private let logger: Logger
    private let engine: EchoEngine?
    private var canceller: (any EchoCanceller)?
    private var reference: FarEndBuffer?
    private var unavailable = false
    /// Response audio sent before the first appended audio told the input's rate.
    private var early: [AudioBuffer] = []
    private var draining = false

    /// Echo cancellation by `engine`'s canceller (`nil`: the standard one).
    init(engine: EchoEngine? = nil, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    /// `audio` with the response's echo taken out (as it came, while nothing can cancel it).
    func clean(_ audio: AudioBuffer) async -> AudioBuffer {
        if canceller == nil, !unavailable {
            do {
                canceller = try DeviceServices.echoCanceller(sampleRate: audio.sampleRate, engine: engine, startsCold: true, logger: logger)
                let reference = FarEndBuffer(sampleRate: audio.sampleRate)
                self.reference = reference
                // Chunks sent meanwhile queue behind the early ones, in order.
                draining = true
                while !early.isEmpty { await reference.append(early.removeFirst()) }
                draining = false
            } catch {
                unavailable = true
                early = []
                logger.warning("realtime: echo cancellation is off for this session: \(error)")
            }
        }
        guard let canceller, let reference, canceller.sampleRate == audio.sampleRate else { return audio }
        let far = await reference.take(audio.samples.count)
        let cleaned = await canceller.cancel(microphone: audio.samples, speaker: far)
        return AudioBuffer(samples: cleaned, sampleRate: audio.sampleRate)
    }

    /// Response audio sent to the client.
    func played(_ chunk: AudioBuffer) async {
        if let reference, !draining {
            await reference.append(chunk)
        } else if !unavailable, early.count < 2_000 {
            early.append(chunk)
        }
    }

    /// The response paused or ended short: nothing more of what was sent plays.
    func stopped() async {
        early = []
        await reference?.clear()
    }
}
