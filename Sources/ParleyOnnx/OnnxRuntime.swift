/// Facts about ONNX Runtime in this build.
public enum OnnxRuntime {
    /// Whether ONNX Runtime is part of this build (Linux; on Apple platforms sessions throw
    /// ``OnnxError/Code/unavailable``). The library itself is opened on the first session.
    public static var isBuilt: Bool {
        #if canImport(COnnxRuntime)
        true
        #else
        false
        #endif
    }
}
