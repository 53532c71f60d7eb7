#if !canImport(COnnxRuntime)
import Foundation

/// A model loaded into ONNX Runtime: on this platform ONNX Runtime is not part of the build,
/// and making a session throws ``OnnxError/Code/unavailable``.
public final class OnnxSession: Sendable {
    /// The model's input names, in its order.
    public let inputNames: [String]
    /// The model's output names, in its order.
    public let outputNames: [String]
    /// The version of the ONNX Runtime library that runs the model.
    public let runtimeVersion: String

    /// Throws: ONNX Runtime is not built for this platform.
    public init(contentsOf url: URL, options: OnnxSessionOptions = OnnxSessionOptions()) throws(OnnxError) {
        throw OnnxError(.unavailable, "ONNX Runtime is not built for this platform: \(url.lastPathComponent) cannot be run")
    }

    /// Never reached: no session is made on this platform.
    public func run(_ inputs: [String: OnnxTensor], outputs: [String]? = nil) throws(OnnxError) -> [String: OnnxTensor] {
        throw OnnxError(.unavailable, "ONNX Runtime is not built for this platform")
    }
}
#endif
