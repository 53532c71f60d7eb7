/// Whether the engines run on the GPU: Metal on Apple devices, where llama.cpp and whisper.cpp
/// are built with it (scripts/build-xcframework), and none on Linux, where scripts/setup builds
/// them for the CPU, or in the iOS Simulator, whose Metal the engines do not support.
enum GPUOffload {
    /// `true` where the engines are built with Metal and a GPU is there to take them.
    static var isAvailable: Bool {
        #if (os(macOS) || os(iOS)) && !targetEnvironment(simulator)
        return true
        #else
        return false
        #endif
    }

    /// The language model's layers to offload: all of them (llama.cpp caps the count at the
    /// model's), or none.
    static var languageModelLayers: Int32 { isAvailable ? 999 : 0 }
}
