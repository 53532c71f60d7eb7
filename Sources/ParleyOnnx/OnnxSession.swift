#if canImport(COnnxRuntime)
import COnnxRuntime
import Foundation
import Synchronization

/// A model loaded into ONNX Runtime, run with float tensors by name.
///
/// The library is opened on the first session (``OnnxRuntimeLibrary``); every session of the
/// process shares its environment. Runs of one session take turns (ONNX Runtime allows them
/// side by side, but Parley's models are small and its cores few). No C pointer leaves this type.
public final class OnnxSession: Sendable {
    /// The model's input names, in its order.
    public let inputNames: [String]
    /// The model's output names, in its order.
    public let outputNames: [String]
    /// The version of the ONNX Runtime library that runs the model ("1.28.2").
    public let runtimeVersion: String

    private struct Handles {
        var session: OpaquePointer
        var memoryInfo: OpaquePointer
    }

    private let library: OnnxRuntimeLibrary
    private let handles: Mutex<Handles>

    /// Loads the model at `url` (an `.onnx` or `.ort` file).
    public init(contentsOf url: URL, options: OnnxSessionOptions = OnnxSessionOptions()) throws(OnnxError) {
        let library = try OnnxRuntimeLibrary.shared.get()
        let api = library.api.pointee
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw OnnxError(.model, "no model at \(url.path)")
        }
        let releaseSession = try library.function(api.ReleaseSession, "ReleaseSession")
        let createMemoryInfo = try library.function(api.CreateCpuMemoryInfo, "CreateCpuMemoryInfo")
        let session = try Self.makeSession(url, options: options, library: library)
        var memoryInfo: OpaquePointer?
        let inputNames: [String], outputNames: [String]
        do throws(OnnxError) {
            try library.check(
                createMemoryInfo(Int32(PARLEY_ORT_DEVICE_ALLOCATOR), Int32(PARLEY_ORT_MEM_TYPE_DEFAULT), &memoryInfo),
                .model, "could not describe CPU memory")
            inputNames = try Self.names(of: session, library: library, inputs: true)
            outputNames = try Self.names(of: session, library: library, inputs: false)
        } catch {
            releaseSession(session)
            api.ReleaseMemoryInfo?(memoryInfo)
            throw error
        }
        guard let memoryInfo else {
            releaseSession(session)
            throw OnnxError(.model, "ONNX Runtime described no CPU memory")
        }
        self.inputNames = inputNames
        self.outputNames = outputNames
        self.handles = Mutex(Handles(session: session, memoryInfo: memoryInfo))
        self.library = library
        self.runtimeVersion = library.version
    }

    /// A session for the model at `url`, with `options` (the options object freed before it returns).
    private static func makeSession(_ url: URL, options: OnnxSessionOptions, library: OnnxRuntimeLibrary) throws(OnnxError) -> OpaquePointer {
        let api = library.api.pointee
        let createOptions = try library.function(api.CreateSessionOptions, "CreateSessionOptions")
        let releaseOptions = try library.function(api.ReleaseSessionOptions, "ReleaseSessionOptions")
        let createSession = try library.function(api.CreateSession, "CreateSession")

        var sessionOptions: OpaquePointer?
        try library.check(createOptions(&sessionOptions), .model, "could not create session options")
        defer { releaseOptions(sessionOptions) }
        try library.check(
            library.function(api.SetIntraOpNumThreads, "SetIntraOpNumThreads")(sessionOptions, Int32(options.threads)),
            .model, "could not set \(options.threads) threads")
        try library.check(library.function(api.SetInterOpNumThreads, "SetInterOpNumThreads")(sessionOptions, 1), .model, "could not set the inter-op threads")
        try library.check(
            library.function(api.SetSessionExecutionMode, "SetSessionExecutionMode")(sessionOptions, Int32(PARLEY_ORT_SEQUENTIAL)),
            .model, "could not set sequential execution")
        try library.check(
            library.function(api.SetSessionGraphOptimizationLevel, "SetSessionGraphOptimizationLevel")(sessionOptions, Int32(PARLEY_ORT_ENABLE_ALL)),
            .model, "could not set the graph optimisations")
        try library.check(
            library.function(api.SetSessionLogSeverityLevel, "SetSessionLogSeverityLevel")(sessionOptions, Int32(PARLEY_ORT_LOGGING_LEVEL_ERROR)),
            .model, "could not set the log level")

        var session: OpaquePointer?
        let created = url.path.withCString { createSession(library.environment, $0, sessionOptions, &session) }
        try library.check(created, .model, "ONNX Runtime \(library.version) could not load \(url.lastPathComponent)")
        guard let session else { throw OnnxError(.model, "ONNX Runtime made no session for \(url.lastPathComponent)") }
        return session
    }

    deinit {
        let api = library.api.pointee
        handles.withLock { handles in
            api.ReleaseSession?(handles.session)
            api.ReleaseMemoryInfo?(handles.memoryInfo)
        }
    }

    /// Runs the model on `inputs` (by input name) and returns the outputs named in `outputs`
    /// (all of them when `nil`), each copied out of ONNX Runtime's memory.
    public func run(_ inputs: [String: OnnxTensor], outputs: [String]? = nil) throws(OnnxError) -> [String: OnnxTensor] {
        let wanted = outputs ?? outputNames
        for name in inputs.keys where !inputNames.contains(name) {
            throw OnnxError(.input, "the model has no input \"\(name)\" (its inputs: \(inputNames.joined(separator: ", ")))")
        }
        for name in wanted where !outputNames.contains(name) {
            throw OnnxError(.input, "the model has no output \"\(name)\" (its outputs: \(outputNames.joined(separator: ", ")))")
        }
        for (name, tensor) in inputs where tensor.shape.contains(where: { $0 < 0 }) || tensor.elementCount != tensor.values.count {
            throw OnnxError(.input, "input \"\(name)\": shape \(tensor.shape) holds \(tensor.elementCount) values, not \(tensor.values.count)")
        }
        let library = self.library
        return try handles.withLock { handles throws(OnnxError) in
            try Self.run(inputs.sorted { $0.key < $1.key }, wanted, handles: handles, library: library)
        }
    }

    private static func run(
        _ inputs: [(key: String, value: OnnxTensor)], _ wanted: [String], handles: Handles,
        library: OnnxRuntimeLibrary
    ) throws(OnnxError) -> [String: OnnxTensor] {
        let api = library.api.pointee
        let createTensor = try library.function(api.CreateTensorWithDataAsOrtValue, "CreateTensorWithDataAsOrtValue")
        let runModel = try library.function(api.Run, "Run")
        let releaseValue = try library.function(api.ReleaseValue, "ReleaseValue")

        // Copies that outlive the call (ONNX Runtime reads the input tensors in place).
        let buffers = inputs.map { input in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, input.value.values.count))
            _ = buffer.initialize(from: input.value.values)
            return buffer
        }
        let inputNames = inputs.map { strdup($0.key) }
        let outputNames = wanted.map { strdup($0) }
        var inputValues = [OpaquePointer?](repeating: nil, count: inputs.count)
        var outputValues = [OpaquePointer?](repeating: nil, count: wanted.count)
        defer {
            for value in inputValues + outputValues { releaseValue(value) }
            for name in inputNames + outputNames { free(name) }
            for buffer in buffers { buffer.deallocate() }
        }
        for (index, input) in inputs.enumerated() {
            let shape = input.value.shape.map(Int64.init)
            var value: OpaquePointer?
            let made = shape.withUnsafeBufferPointer { shape in
                createTensor(
                    handles.memoryInfo, UnsafeMutableRawPointer(buffers[index].baseAddress),
                    input.value.values.count * MemoryLayout<Float>.stride,
                    shape.baseAddress, shape.count, Int32(PARLEY_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT), &value)
            }
            inputValues[index] = value
            try library.check(made, .input, "input \"\(input.key)\" could not be made a tensor")
        }
        let inputNamePointers = inputNames.map { UnsafePointer($0) }
        let outputNamePointers = outputNames.map { UnsafePointer($0) }
        let status = inputNamePointers.withUnsafeBufferPointer { inputNamesBuffer in
            outputNamePointers.withUnsafeBufferPointer { outputNamesBuffer in
                inputValues.withUnsafeBufferPointer { inputValuesBuffer in
                    outputValues.withUnsafeMutableBufferPointer { outputValuesBuffer in
                        runModel(
                            handles.session, nil, inputNamesBuffer.baseAddress, inputValuesBuffer.baseAddress, inputs.count,
                            outputNamesBuffer.baseAddress, wanted.count, outputValuesBuffer.baseAddress)
                    }
                }
            }
        }
        try library.check(status, .run, "the model failed to run")
        var results: [String: OnnxTensor] = [:]
        for (index, name) in wanted.enumerated() {
            guard let value = outputValues[index] else { throw OnnxError(.run, "the model gave no output \"\(name)\"") }
            results[name] = try tensor(value, name: name, library: library)
        }
        return results
    }

    /// Copies a float tensor out of an output value.
    private static func tensor(_ value: OpaquePointer, name: String, library: OnnxRuntimeLibrary) throws(OnnxError) -> OnnxTensor {
        let api = library.api.pointee
        var info: OpaquePointer?
        try library.check(library.function(api.GetTensorTypeAndShape, "GetTensorTypeAndShape")(value, &info), .run, "output \"\(name)\" has no shape")
        defer { api.ReleaseTensorTypeAndShapeInfo?(info) }
        var type: Int32 = 0
        try library.check(library.function(api.GetTensorElementType, "GetTensorElementType")(info, &type), .run, "output \"\(name)\" has no element type")
        guard type == Int32(PARLEY_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) else {
            throw OnnxError(.run, "output \"\(name)\" holds elements of ONNX type \(type), not 32-bit floats")
        }
        var rank = 0
        try library.check(library.function(api.GetDimensionsCount, "GetDimensionsCount")(info, &rank), .run, "output \"\(name)\" has no rank")
        var dimensions = [Int64](repeating: 0, count: rank)
        try library.check(library.function(api.GetDimensions, "GetDimensions")(info, &dimensions, rank), .run, "output \"\(name)\" has no dimensions")
        let shape = dimensions.map { Int($0) }
        let count = shape.reduce(1, *)
        var data: UnsafeMutableRawPointer?
        try library.check(library.function(api.GetTensorMutableData, "GetTensorMutableData")(value, &data), .run, "output \"\(name)\" has no data")
        guard let data, count >= 0 else { return OnnxTensor(shape: shape, values: []) }
        let values = Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
        return OnnxTensor(shape: shape, values: values)
    }

    /// The session's input or output names, in order.
    private static func names(of session: OpaquePointer, library: OnnxRuntimeLibrary, inputs: Bool) throws(OnnxError) -> [String] {
        let api = library.api.pointee
        var allocator: OpaquePointer?
        try library.check(
            library.function(api.GetAllocatorWithDefaultOptions, "GetAllocatorWithDefaultOptions")(&allocator),
            .model, "no default allocator")
        let count = try library.function(inputs ? api.SessionGetInputCount : api.SessionGetOutputCount, "SessionGet…Count")
        let name = try library.function(inputs ? api.SessionGetInputName : api.SessionGetOutputName, "SessionGet…Name")
        let free = try library.function(api.AllocatorFree, "AllocatorFree")
        var total = 0
        try library.check(count(session, &total), .model, "the model's \(inputs ? "inputs" : "outputs") could not be counted")
        var names: [String] = []
        for index in 0..<total {
            var text: UnsafeMutablePointer<CChar>?
            try library.check(name(session, index, allocator, &text), .model, "the model's \(inputs ? "input" : "output") \(index) has no name")
            guard let text else { continue }
            names.append(String(cString: text))
            api.ReleaseStatus?(free(allocator, text))
        }
        return names
    }
}
#endif
