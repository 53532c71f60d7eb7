/// What went wrong in ONNX Runtime, or before it was reached.
///
/// A struct around a code, so that codes can be added without breaking a `switch`:
/// compare ``code`` with the static values.
public struct OnnxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// ONNX Runtime is not part of this build (Apple platforms: no `libonnxruntime`).
        public static let unavailable = Code("unavailable")
        /// The library could not be opened or lacks what Parley calls.
        public static let library = Code("library")
        /// The model file could not be loaded into a session.
        public static let model = Code("model")
        /// The inputs given do not fit the model (a name it lacks, a shape and a count that differ).
        public static let input = Code("input")
        /// Running the model failed, or an output was not a float tensor.
        public static let run = Code("run")

        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, and what to do about it.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
