#if canImport(COnnxRuntime)
import COnnxRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ONNX Runtime's C API, opened the first time a session is made rather than when the
/// program starts, with the process's one environment.
///
/// Only the declaration of the function table comes from the `COnnxRuntime` shim (nothing
/// links the library); the table is asked for at ``COnnxRuntime/PARLEY_ORT_API_VERSION``, whose
/// first members the shim declares. No pointer leaves ``OnnxSession``, the only caller.
struct OnnxRuntimeLibrary: @unchecked Sendable {
    // @unchecked: a pointer to the library's constant function table and the process-wide
    // environment, neither of which changes once made (ONNX Runtime's environment is safe to
    // share between threads and sessions).
    let api: UnsafePointer<ParleyOrtApi>
    let environment: OpaquePointer
    /// The library's version ("1.28.2").
    let version: String

    /// The library's file names, tried in order (scripts/setup installs libonnxruntime.so into
    /// PARLEY_PREFIX/lib, beside sherpa-onnx, which loads the same library).
    static let fileNames = ["libonnxruntime.so", "libonnxruntime.so.1", "libonnxruntime.dylib"]

    /// The API, or why it could not be opened; looked up once per process.
    static let shared: Result<OnnxRuntimeLibrary, OnnxError> = open()

    private static func open() -> Result<OnnxRuntimeLibrary, OnnxError> {
        var reasons: [String] = []
        for name in fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            do {
                return .success(try OnnxRuntimeLibrary(handle))
            } catch {
                return .failure(error)
            }
        }
        return .failure(
            OnnxError(.library, "ONNX Runtime (libonnxruntime) could not be loaded: \(reasons.joined(separator: "; ")); run scripts/setup, which installs it"))
    }

    private init(_ handle: UnsafeMutableRawPointer) throws(OnnxError) {
        guard let symbol = dlsym(handle, "OrtGetApiBase") else {
            throw OnnxError(.library, "libonnxruntime has no OrtGetApiBase: not ONNX Runtime's library?")
        }
        let getApiBase = unsafeBitCast(symbol, to: ParleyOrtGetApiBase.self)
        guard let base = getApiBase(), let getApi = base.pointee.GetApi, let versionString = base.pointee.GetVersionString else {
            throw OnnxError(.library, "ONNX Runtime's OrtGetApiBase returned nothing")
        }
        let version = versionString().map { String(cString: $0) } ?? "unknown"
        guard let api = getApi(UInt32(PARLEY_ORT_API_VERSION)) else {
            throw OnnxError(
                .library, "ONNX Runtime \(version) does not serve its C API at version \(PARLEY_ORT_API_VERSION) (1.13 or later is needed); run scripts/setup")
        }
        guard let createEnv = api.pointee.CreateEnv else {
            throw OnnxError(.library, "ONNX Runtime \(version)'s API table lacks CreateEnv")
        }
        var environment: OpaquePointer?
        let status = "parley".withCString { createEnv(Int32(PARLEY_ORT_LOGGING_LEVEL_ERROR), $0, &environment) }
        if let status {
            let message = api.pointee.GetErrorMessage.flatMap { $0(status) }.map { String(cString: $0) } ?? "no message"
            api.pointee.ReleaseStatus?(status)
            throw OnnxError(.library, "ONNX Runtime \(version) could not create its environment: \(message)")
        }
        guard let environment else { throw OnnxError(.library, "ONNX Runtime \(version) created no environment") }
        self.api = api
        self.environment = environment
        self.version = version
    }

    /// Throws the message of a failed call's status (and releases it); nothing for success.
    func check(_ status: OpaquePointer?, _ code: OnnxError.Code, _ what: @autoclosure () -> String) throws(OnnxError) {
        guard let status else { return }
        let message = api.pointee.GetErrorMessage.flatMap { $0(status) }.map { String(cString: $0) } ?? "no message"
        api.pointee.ReleaseStatus?(status)
        throw OnnxError(code, "\(what()): \(message)")
    }

    /// A member of the table that Parley calls, or an error naming it (a table that lacks it
    /// is not the one the shim declares).
    func function<F>(_ member: F?, _ name: String) throws(OnnxError) -> F {
        guard let member else { throw OnnxError(.library, "ONNX Runtime \(version)'s API table lacks \(name)") }
        return member
    }
}
#endif
