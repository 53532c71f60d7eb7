import ParleyCore

/// A model's tool call that cannot be run: it names a tool the request did not declare, or its
/// arguments do not fit the tool's schema (after one repair round, when one was tried).
///
/// A fallback chain treats it as a passing fault of the model: another provider may call the
/// tool correctly.
public struct ToolCallError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// What is wrong with the call.
    public enum Reason: Sendable, Equatable {
        /// The call names a tool the request does not declare; `declared` are the tools it does.
        case undeclaredTool(declared: [String])
        /// The arguments are not JSON, not an object, or break the tool's schema.
        case invalidArguments(problems: [String])
    }

    /// The provider whose model made the call, e.g. "openai".
    public var provider: String
    /// The call as the model wrote it (the repaired one, when a repair round was tried).
    public var call: ToolCall
    /// What is wrong with it.
    public var reason: Reason
    /// Whether the model was asked once to correct the arguments, and failed.
    public var repairTried: Bool

    /// Creates the error.
    public init(provider: String, call: ToolCall, reason: Reason, repairTried: Bool = false) {
        self.provider = provider
        self.call = call
        self.reason = reason
        self.repairTried = repairTried
    }

    /// The model may do better on another try, or another provider may.
    public var failureKind: FailureKind { .transient(retryAfter: nil) }

    public var description: String {
        switch reason {
        case .undeclaredTool(let declared):
            let known = declared.isEmpty ? "none" : declared.joined(separator: ", ")
            return "\(provider) called the tool \"\(call.name)\", which the request does not declare (declared: \(known)); "
                + "retry the request, or describe the tools more clearly."
        case .invalidArguments(let problems):
            let repair = repairTried ? ", also after being asked once to correct them" : ""
            return "\(provider) called the tool \"\(call.name)\" with arguments that do not fit its schema\(repair): "
                + "\(problems.joined(separator: "; ")); retry the request, or use a model that follows tool schemas."
        }
    }
}
