#if canImport(CLlama) || canImport(ParleyEngines)
#if canImport(CLlama)
import CLlama
#else
import ParleyEngines  // Apple platforms with the AppleEngines trait: llama.cpp in the ParleyEngines binary target
#endif
import Foundation

/// One GGUF model loaded by llama.cpp, offloaded to the GPU where there is one
/// (``GPUOffload``). Owns the model and frees it in `deinit`, so a session that keeps it frees
/// its context first; the pointer never leaves ParleyLocal's sessions.
final class LlamaModelHandle {
    /// The loaded model (valid while this object lives).
    let pointer: OpaquePointer

    /// Loads the model at `path`.
    /// - Throws: ``LlamaError/modelNotFound(path:)`` when there is no file,
    ///   ``LlamaError/modelLoadFailed(path:)`` when llama.cpp cannot read it.
    init(path: String) throws(LlamaError) {
        LlamaBackend.initializeOnce()
        guard FileManager.default.fileExists(atPath: path) else { throw .modelNotFound(path: path) }
        var parameters = llama_model_default_params()
        parameters.n_gpu_layers = GPUOffload.languageModelLayers
        // Loading builds the tokenizer from llama.cpp's statics: not begun once the process exits.
        guard let loaded = EngineExit.guarded({ llama_model_load_from_file(path, parameters) }), let pointer = loaded else {
            throw .modelLoadFailed(path: path)
        }
        self.pointer = pointer
    }

    deinit {
        llama_model_free(pointer)
    }

    /// The model's description from its metadata (e.g. "llama 135M Q4_1", "bert 22M F16").
    var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = llama_model_desc(pointer, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
    }

    /// Sets the threads `context`'s next evaluations use (prompt and generation alike).
    static func useThreads(_ threads: Int, in context: OpaquePointer) {
        llama_set_n_threads(context, Int32(threads), Int32(threads))
    }
}
#endif
