#if canImport(CSpeexDSP)
import CSpeexDSP
import ParleyCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SpeexDSP's echo canceller and preprocessor, opened the first time a canceller is made.
/// Only the function types come from the `CSpeexDSP` shim; no pointer leaves
/// ``SpeexEchoCanceller``, the only caller.
struct SpeexDSPLibrary: Sendable {
    let echoInit: ParleySpeexEchoStateInit
    let echoDestroy: ParleySpeexEchoStateDestroy
    let echoCancellation: ParleySpeexEchoCancellation
    let echoReset: ParleySpeexEchoStateReset
    let echoCtl: ParleySpeexEchoCtl
    let preprocessInit: ParleySpeexPreprocessStateInit
    let preprocessDestroy: ParleySpeexPreprocessStateDestroy
    let preprocessRun: ParleySpeexPreprocessRun
    let preprocessCtl: ParleySpeexPreprocessCtl

    /// The library's file names, tried in order (Debian's libspeexdsp1; scripts/setup installs it).
    static let fileNames = ["libspeexdsp.so.1", "libspeexdsp.so", "libspeexdsp.1.dylib", "libspeexdsp.dylib"]

    /// The library, or why it could not be opened; looked up once per process.
    static let shared: Result<SpeexDSPLibrary, EchoCancellerError> = open()

    private static func open() -> Result<SpeexDSPLibrary, EchoCancellerError> {
        var reasons: [String] = []
        for name in fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            do {
                return .success(try SpeexDSPLibrary(handle))
            } catch {
                return .failure(error)
            }
        }
        return .failure(
            EchoCancellerError(
                "SpeexDSP (libspeexdsp) could not be loaded: \(reasons.joined(separator: "; ")); install it with scripts/setup (Debian: apt-get install libspeexdsp1)"
            ))
    }

    private init(_ handle: UnsafeMutableRawPointer) throws(EchoCancellerError) {
        func symbol<T>(_ name: String, as type: T.Type) throws(EchoCancellerError) -> T {
            guard let address = dlsym(handle, name) else {
                throw EchoCancellerError("libspeexdsp has no \(name): SpeexDSP 1.2 or later is needed")
            }
            return unsafeBitCast(address, to: type)
        }
        echoInit = try symbol("speex_echo_state_init", as: ParleySpeexEchoStateInit.self)
        echoDestroy = try symbol("speex_echo_state_destroy", as: ParleySpeexEchoStateDestroy.self)
        echoCancellation = try symbol("speex_echo_cancellation", as: ParleySpeexEchoCancellation.self)
        echoReset = try symbol("speex_echo_state_reset", as: ParleySpeexEchoStateReset.self)
        echoCtl = try symbol("speex_echo_ctl", as: ParleySpeexEchoCtl.self)
        preprocessInit = try symbol("speex_preprocess_state_init", as: ParleySpeexPreprocessStateInit.self)
        preprocessDestroy = try symbol("speex_preprocess_state_destroy", as: ParleySpeexPreprocessStateDestroy.self)
        preprocessRun = try symbol("speex_preprocess_run", as: ParleySpeexPreprocessRun.self)
        preprocessCtl = try symbol("speex_preprocess_ctl", as: ParleySpeexPreprocessCtl.self)
    }
}
#endif
