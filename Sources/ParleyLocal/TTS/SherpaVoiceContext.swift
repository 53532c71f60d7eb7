import Foundation
#if canImport(CSherpaOnnx)
import CSherpaOnnx

/// One Piper voice loaded in sherpa-onnx. Owns the C engine and frees it in `deinit`; no C
/// pointer leaves this class. Not thread-safe: ``PiperTextToSpeech`` (an actor) is its only
/// user.
final class SherpaVoiceContext {
    /// Whether sherpa-onnx is built into this program.
    static let isBuilt = true

    private let api: SherpaOnnxLibrary
    private let engine: OpaquePointer
    /// The rate of the samples it produces.
    let sampleRate: Int
    /// The CPU threads it computes on.
    let threads: Int

    /// Loads `files` with Piper's noise and length settings, on `threads` CPU threads.
    init(files: SherpaVoiceFiles, configuration: PiperVoiceConfiguration, threads: Int) throws(PiperVoiceError) {
        let api: SherpaOnnxLibrary
        switch SherpaOnnxLibrary.shared {
        case .success(let library): api = library
        case .failure(let error): throw .engineUnavailable(error.description)
        }
        let loaded: OpaquePointer? = files.model.path.withCString { model in
            files.tokens.path.withCString { tokens in
                "cpu".withCString { provider in
                    var config = SherpaOnnxOfflineTtsConfig()
                    config.model.vits.model = model
                    config.model.vits.tokens = tokens
                    config.model.vits.noise_scale = configuration.noiseScale
                    config.model.vits.noise_scale_w = configuration.noiseWidth
                    config.model.vits.length_scale = configuration.lengthScale
                    config.model.num_threads = Int32(max(1, threads))
                    config.model.provider = provider
                    config.model.debug = 0
                    config.max_num_sentences = 1
                    // The strings are read while the engine is made, not kept.
                    return api.createOfflineTts(&config)
                }
            }
        }
        guard let loaded else { throw .modelLoadFailed(path: files.model.path) }
        self.api = api
        self.threads = max(1, threads)
        engine = loaded
        sampleRate = Int(api.offlineTtsSampleRate(loaded))
    }

    deinit { api.destroyOfflineTts(engine) }

    /// Speaks one sentence given as phoneme code points; returns its samples in [-1, 1].
    func generate(_ phonemes: [Int32], speed: Float) -> [Float]? {
        guard !phonemes.isEmpty else { return [] }
        return phonemes.withUnsafeBufferPointer { codepoints in
            var length = Int32(codepoints.count)
            return withUnsafePointer(to: &length) { lengths in
                "".withCString { text in
                    var generation = SherpaOnnxGenerationConfig()
                    generation.speed = speed
                    generation.silence_scale = 0.2
                    generation.sid = 0
                    generation.phoneme_codepoints = codepoints.baseAddress
                    generation.phoneme_codepoints_lens = lengths
                    generation.phoneme_codepoints_num_sentences = 1
                    guard let audio = api.offlineTtsGenerateWithConfig(engine, text, &generation, nil, nil) else { return nil }
                    defer { api.destroyOfflineTtsGeneratedAudio(audio) }
                    let count = Int(audio.pointee.n)
                    guard count > 0, let samples = audio.pointee.samples else { return [] }
                    return Array(UnsafeBufferPointer(start: samples, count: count))
                }
            }
        }
    }
}
#else
/// Where sherpa-onnx is not built (Apple platforms: the framework holds llama.cpp and whisper.cpp
/// only, and the voice's phonemizer is a process, which iOS does not have), no voice loads, and
/// the chain speaks with the platform's voice instead.
final class SherpaVoiceContext {
    static let isBuilt = false
    let sampleRate = 22_050
    let threads = 1

    init(files: SherpaVoiceFiles, configuration: PiperVoiceConfiguration, threads: Int) throws(PiperVoiceError) {
        throw .modelLoadFailed(path: files.model.path)
    }

    func generate(_ phonemes: [Int32], speed: Float) -> [Float]? { nil }
}
#endif
