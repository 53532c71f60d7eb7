#if canImport(CSherpaOnnx)
import CSherpaOnnx
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// sherpa-onnx's C API, opened the first time a neural voice or a Moonshine recognizer loads
/// rather than when the program starts.
///
/// The library brings ONNX Runtime, whose static initialisers alone touch about 3 MB: linked,
/// every `parley` process (an idle `parley serve` included) paid for them. Only the types come
/// from the header (the `CSherpaOnnx` module links nothing); the functions are looked up here
/// with the header's signatures. No pointer leaves ``SherpaVoiceContext`` and
/// ``MoonshineContext``, the only callers.
struct SherpaOnnxLibrary: @unchecked Sendable {
    // @unchecked: C function pointers, immutable once looked up.
    typealias CreateTts = @convention(c) (UnsafePointer<SherpaOnnxOfflineTtsConfig>?) -> OpaquePointer?
    typealias Release = @convention(c) (OpaquePointer?) -> Void
    typealias SampleRate = @convention(c) (OpaquePointer?) -> Int32
    typealias Generate =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<SherpaOnnxGenerationConfig>?,
            SherpaOnnxGeneratedAudioProgressCallbackWithArg?, UnsafeMutableRawPointer?
        )
        -> UnsafePointer<SherpaOnnxGeneratedAudio>?
    typealias ReleaseAudio = @convention(c) (UnsafePointer<SherpaOnnxGeneratedAudio>?) -> Void
    typealias CreateRecognizer = @convention(c) (UnsafePointer<SherpaOnnxOfflineRecognizerConfig>?) -> OpaquePointer?
    typealias CreateStream = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias AcceptWaveform = @convention(c) (OpaquePointer?, Int32, UnsafePointer<Float>?, Int32) -> Void
    typealias Decode = @convention(c) (OpaquePointer?, OpaquePointer?) -> Void
    typealias Result = @convention(c) (OpaquePointer?) -> UnsafePointer<SherpaOnnxOfflineRecognizerResult>?
    typealias ReleaseResult = @convention(c) (UnsafePointer<SherpaOnnxOfflineRecognizerResult>?) -> Void

    let createOfflineTts: CreateTts
    let destroyOfflineTts: Release
    let offlineTtsSampleRate: SampleRate
    let offlineTtsGenerateWithConfig: Generate
    let destroyOfflineTtsGeneratedAudio: ReleaseAudio
    let createOfflineRecognizer: CreateRecognizer
    let destroyOfflineRecognizer: Release
    let createOfflineStream: CreateStream
    let destroyOfflineStream: Release
    let acceptWaveformOffline: AcceptWaveform
    let decodeOfflineStream: Decode
    let getOfflineStreamResult: Result
    let destroyOfflineRecognizerResult: ReleaseResult

    /// The library's file names, tried in order (the dynamic linker's search path finds them:
    /// scripts/setup installs the library into PARLEY_PREFIX/lib and runs ldconfig).
    static let fileNames = ["libsherpa-onnx-c-api.so", "libsherpa-onnx-c-api.dylib"]

    /// The API, or why it could not be opened; looked up once per process.
    static let shared: Swift.Result<SherpaOnnxLibrary, SherpaOnnxLibraryError> = open()

    private init(_ handle: UnsafeMutableRawPointer) throws(SherpaOnnxLibraryError) {
        var missing: [String] = []
        func symbol<Function>(_ name: String) -> Function? {
            guard let address = dlsym(handle, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(address, to: Function.self)
        }
        let createOfflineTts: CreateTts? = symbol("SherpaOnnxCreateOfflineTts")
        let destroyOfflineTts: Release? = symbol("SherpaOnnxDestroyOfflineTts")
        let offlineTtsSampleRate: SampleRate? = symbol("SherpaOnnxOfflineTtsSampleRate")
        let offlineTtsGenerateWithConfig: Generate? = symbol("SherpaOnnxOfflineTtsGenerateWithConfig")
        let destroyOfflineTtsGeneratedAudio: ReleaseAudio? = symbol("SherpaOnnxDestroyOfflineTtsGeneratedAudio")
        let createOfflineRecognizer: CreateRecognizer? = symbol("SherpaOnnxCreateOfflineRecognizer")
        let destroyOfflineRecognizer: Release? = symbol("SherpaOnnxDestroyOfflineRecognizer")
        let createOfflineStream: CreateStream? = symbol("SherpaOnnxCreateOfflineStream")
        let destroyOfflineStream: Release? = symbol("SherpaOnnxDestroyOfflineStream")
        let acceptWaveformOffline: AcceptWaveform? = symbol("SherpaOnnxAcceptWaveformOffline")
        let decodeOfflineStream: Decode? = symbol("SherpaOnnxDecodeOfflineStream")
        let getOfflineStreamResult: Result? = symbol("SherpaOnnxGetOfflineStreamResult")
        let destroyOfflineRecognizerResult: ReleaseResult? = symbol("SherpaOnnxDestroyOfflineRecognizerResult")
        guard let createOfflineTts, let destroyOfflineTts, let offlineTtsSampleRate, let offlineTtsGenerateWithConfig,
            let destroyOfflineTtsGeneratedAudio, let createOfflineRecognizer, let destroyOfflineRecognizer, let createOfflineStream,
            let destroyOfflineStream, let acceptWaveformOffline, let decodeOfflineStream, let getOfflineStreamResult,
            let destroyOfflineRecognizerResult
        else {
            throw SherpaOnnxLibraryError(reason: "it lacks \(missing.joined(separator: ", ")) (another sherpa-onnx version?)")
        }
        self.createOfflineTts = createOfflineTts
        self.destroyOfflineTts = destroyOfflineTts
        self.offlineTtsSampleRate = offlineTtsSampleRate
        self.offlineTtsGenerateWithConfig = offlineTtsGenerateWithConfig
        self.destroyOfflineTtsGeneratedAudio = destroyOfflineTtsGeneratedAudio
        self.createOfflineRecognizer = createOfflineRecognizer
        self.destroyOfflineRecognizer = destroyOfflineRecognizer
        self.createOfflineStream = createOfflineStream
        self.destroyOfflineStream = destroyOfflineStream
        self.acceptWaveformOffline = acceptWaveformOffline
        self.decodeOfflineStream = decodeOfflineStream
        self.getOfflineStreamResult = getOfflineStreamResult
        self.destroyOfflineRecognizerResult = destroyOfflineRecognizerResult
    }

    private static func open() -> Swift.Result<SherpaOnnxLibrary, SherpaOnnxLibraryError> {
        var reasons: [String] = []
        for name in fileNames {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                do {
                    return .success(try SherpaOnnxLibrary(handle))
                } catch {
                    return .failure(error)
                }
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? name)
        }
        return .failure(SherpaOnnxLibraryError(reason: reasons.joined(separator: "; ")))
    }
}

/// sherpa-onnx's library could not be opened.
struct SherpaOnnxLibraryError: Error, Sendable, CustomStringConvertible {
    /// What the dynamic linker said.
    var reason: String

    var description: String {
        "sherpa-onnx's library (libsherpa-onnx-c-api) could not be loaded: \(reason); run scripts/setup, which installs it"
    }
}
#endif
