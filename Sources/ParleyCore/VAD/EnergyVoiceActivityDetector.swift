#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A voice activity detector on signal level: the RMS level of each frame in dBFS, compared
/// with a threshold that rises with the noise floor. Needs no model, so it is always available;
/// it is the last link of the VAD chain (Silero → energy).
public struct EnergyVoiceActivityDetector: VoiceActivityDetector {
    public let identity = ProviderIdentity(name: "energy", model: "RMS dBFS", isLocal: true)
    public let sampleRate: Int
    public let frameSize: Int
    /// Frames louder than this (dBFS) count as speech, unless the noise floor is higher.
    public var thresholdDB: Float
    /// How far above the tracked noise floor speech must be (dB).
    public var marginOverNoiseDB: Float

    /// Creates a detector.
    public init(sampleRate: Int = 16_000, frameSize: Int = 512, thresholdDB: Float = -45, marginOverNoiseDB: Float = 12) {
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.thresholdDB = thresholdDB
        self.marginOverNoiseDB = marginOverNoiseDB
    }

    public func availability() async -> Availability { .ready }

    public func makeSession() throws -> any VoiceActivitySession {
        Session(thresholdDB: thresholdDB, margin: marginOverNoiseDB)
    }

    /// The level of `frame` in dBFS (−120 for digital silence).
    public static func level(of frame: [Float]) -> Float {
        guard !frame.isEmpty else { return -120 }
        let energy = frame.reduce(Float(0)) { $0 + $1 * $1 } / Float(frame.count)
        return energy > 1e-12 ? 10 * log10f(energy) : -120
    }

    struct Session: VoiceActivitySession {
        let thresholdDB: Float
        let margin: Float
        var noiseFloor: Float = -90

        mutating func speechProbability(of frame: [Float]) -> Float {
            let level = EnergyVoiceActivityDetector.level(of: frame)
            // The floor falls fast to quiet frames and creeps up slowly under steady noise.
            noiseFloor = level < noiseFloor ? level : noiseFloor + 0.02 * (level - noiseFloor)
            let threshold = max(thresholdDB, noiseFloor + margin)
            // Logistic around the threshold: 6 dB above is ~0.95.
            return 1 / (1 + expf(-(level - threshold) / 2))
        }
    }
}
