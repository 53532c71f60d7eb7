import Foundation
#if canImport(CSherpaOnnx)
import CSherpaOnnx

/// One Moonshine model loaded in sherpa-onnx's offline recognizer. Owns the C recognizer and
/// frees it in `deinit`; no C pointer leaves this class. Not thread-safe:
/// ``MoonshineSpeechToText`` (an actor) is its only user.
final class MoonshineContext {
    /// Whether sherpa-onnx is built into this program.
    static let isBuilt = true

    private let api: SherpaOnnxLibrary
    private let recognizer: OpaquePointer

    /// Loads the encoder and merged decoder of `files` on `threads` CPU threads.
    init(files: MoonshineModelFiles, tokens: URL, threads: Int) throws(MoonshineError) {
        let api: SherpaOnnxLibrary
        switch SherpaOnnxLibrary.shared {
        case .success(let library): api = library
        case .failure(let error): throw .engineUnavailable(error.description)
        }
        // sherpa-onnx ends the process on some unreadable files instead of failing: check first.
        for file in [files.encoder, files.decoder, tokens] where !FileManager.default.isReadableFile(atPath: file.path) {
            throw .modelNotFound(path: file.path)
        }
        let created: OpaquePointer? = files.encoder.path.withCString { encoder in
            files.decoder.path.withCString { decoder in
                tokens.path.withCString { tokensPath in
                    "cpu".withCString { provider in
                        "greedy_search".withCString { method in
                            var config = SherpaOnnxOfflineRecognizerConfig()
                            config.feat_config.sample_rate = 16_000
                            config.feat_config.feature_dim = 80
                            // An encoder and a merged decoder select sherpa-onnx's Moonshine v2
                            // path, which takes the raw samples (no preprocessor model).
                            config.model_config.moonshine.encoder = encoder
                            config.model_config.moonshine.merged_decoder = decoder
                            config.model_config.tokens = tokensPath
                            config.model_config.num_threads = Int32(max(1, threads))
                            config.model_config.provider = provider
                            config.model_config.debug = 0
                            config.decoding_method = method
                            // The strings are read while the recognizer is made, not kept.
                            return api.createOfflineRecognizer(&config)
                        }
                    }
                }
            }
        }
        guard let created else { throw .modelLoadFailed(path: files.encoder.deletingLastPathComponent().path) }
        self.api = api
        recognizer = created
    }

    deinit { api.destroyOfflineRecognizer(recognizer) }

    /// The text of 16 kHz mono `samples` in [-1, 1]; empty for no samples.
    func transcribe(_ samples: [Float]) throws(MoonshineError) -> String {
        guard !samples.isEmpty else { return "" }
        guard let stream = api.createOfflineStream(recognizer) else { throw .transcriptionFailed }
        defer { api.destroyOfflineStream(stream) }
        samples.withUnsafeBufferPointer { buffer in
            api.acceptWaveformOffline(stream, 16_000, buffer.baseAddress, Int32(buffer.count))
        }
        api.decodeOfflineStream(recognizer, stream)
        guard let result = api.getOfflineStreamResult(stream) else { throw .transcriptionFailed }
        defer { api.destroyOfflineRecognizerResult(result) }
        return result.pointee.text.map { String(cString: $0) } ?? ""
    }
}
#else
/// Where sherpa-onnx is not built (Apple platforms: the framework holds llama.cpp and whisper.cpp
/// only), no Moonshine model loads, and the chain hears with the next provider.
final class MoonshineContext {
    static let isBuilt = false

    init(files: MoonshineModelFiles, tokens: URL, threads: Int) throws(MoonshineError) {
        throw .modelLoadFailed(path: files.encoder.deletingLastPathComponent().path)
    }

    func transcribe(_ samples: [Float]) throws(MoonshineError) -> String { "" }
}
#endif
