import Foundation
import ParleyCore

/// Voice activity detection with Silero VAD v6, computed in plain Swift from weights that
/// `scripts/setup` exports from the official ONNX file. 16 kHz, 512-sample (32 ms) frames.
public struct SileroVoiceActivityDetector: VoiceActivityDetector {
    public let identity = ProviderIdentity(name: "silero", model: "v6", isLocal: true)
    public let sampleRate = 16_000
    public let frameSize = 512
    /// The exported weights.
    public let weightsPath: String

    /// Creates the detector; the weights load when a session starts.
    public init(weightsPath: String) {
        self.weightsPath = weightsPath
    }

    public func availability() async -> Availability {
        FileManager.default.fileExists(atPath: weightsPath)
            ? .ready
            : .missingModel(path: weightsPath, hint: SileroVADModel.missingWeightsHint)
    }

    public func makeSession() throws -> any VoiceActivitySession {
        guard FileManager.default.fileExists(atPath: weightsPath) else {
            throw ProviderError.unavailable(provider: identity.description, .missingModel(path: weightsPath, hint: SileroVADModel.missingWeightsHint))
        }
        return Session(model: try SileroVADModel(contentsOf: URL(fileURLWithPath: weightsPath)))
    }

    struct Session: VoiceActivitySession {
        let model: SileroVADModel
        var state = SileroVADModel.State()

        mutating func speechProbability(of frame: [Float]) -> Float {
            model.probability(of: frame, state: &state)
        }
    }
}
