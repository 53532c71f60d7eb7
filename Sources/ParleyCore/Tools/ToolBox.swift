import Foundation
import Synchronization

/// A tool the assistant can run: its definition, how long it may take, and its handler.
///
/// A host app registers one in a few lines with a typed handler:
///
/// ```swift
/// struct TimerArguments: Decodable { var minutes: Int }
/// try toolbox.register(name: "set_timer", description: "Starts a kitchen timer.",
///                      parameters: .object([.init("minutes", .integer(minimum: 1, maximum: 600))])) { (arguments: TimerArguments) in
///     timers.start(minutes: arguments.minutes)
///     return ["started": true]
/// }
/// ```
public struct Tool: Sendable {
    /// What the model sees.
    public let definition: ToolDefinition
    /// How long a call may run before it is answered with a timeout error.
    public let timeout: Duration
    /// Runs a call's arguments (valid JSON text, already checked against the schema) and returns
    /// the result's text for the model.
    let handler: @Sendable (String) async throws -> String

    /// Creates a tool whose handler takes the arguments as JSON text and returns text.
    public init(
        definition: ToolDefinition, timeout: Duration = Tool.defaultTimeout,
        handler: @escaping @Sendable (_ arguments: String) async throws -> String
    ) {
        self.definition = definition
        self.timeout = timeout
        self.handler = handler
    }

    /// Creates a tool with a typed handler: the arguments are decoded into `Arguments`, and the
    /// result is encoded as JSON for the model (a `String` result goes as it is).
    public init<Arguments: Decodable & Sendable, Result: Encodable & Sendable>(
        name: String, description: String, parameters: JSONSchema, timeout: Duration = Tool.defaultTimeout,
        _ handler: @escaping @Sendable (Arguments) async throws -> Result
    ) throws(ToolDefinitionError) {
        let definition = try ToolDefinition(name: name, description: description, schema: parameters)
        self.init(definition: definition, timeout: timeout) { arguments in
            let decoded: Arguments
            do {
                decoded = try JSONDecoder().decode(Arguments.self, from: Data((arguments.isEmpty ? "{}" : arguments).utf8))
            } catch {
                throw ToolFailure("the arguments do not fit the tool: \(error)")
            }
            let result = try await handler(decoded)
            if let text = result as? String { return text }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(result), as: UTF8.self)
        }
    }

    /// How long a call may run unless the tool says otherwise.
    public static let defaultTimeout = Duration.seconds(10)
}

/// An error a tool's handler throws to tell the model what went wrong, in words.
public struct ToolFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the model.
    public var message: String

    /// Creates a failure.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// What running one tool call gave: the result's text (or what went wrong), for the model.
public struct ToolResult: Sendable, Equatable {
    /// The call answered.
    public var call: ToolCall
    /// The result's text, or the error's.
    public var content: String
    /// Whether the call failed (unknown tool, invalid arguments, the handler threw or timed out,
    /// the result was too large).
    public var isError: Bool
    /// How long the call took, in milliseconds.
    public var milliseconds: Double

    /// Creates a result.
    public init(call: ToolCall, content: String, isError: Bool = false, milliseconds: Double = 0) {
        self.call = call
        self.content = content
        self.isError = isError
        self.milliseconds = milliseconds
    }

    /// The result as a tool message answering the call.
    public var message: ChatMessage {
        .tool(callID: call.id, name: call.name, content: content, isError: isError)
    }
}

/// The tools an assistant can run, by name; runs the model's calls concurrently, each with its
/// timeout, and turns every failure into an error result for the model, never a crash.
public struct ToolBox: Sendable {
    /// The tools, in the order registered.
    public private(set) var tools: [Tool]
    /// The longest result text handed back to the model; a longer one is an error result.
    public var resultLimit: Int
    /// Tests on the user's words that say a tool is plainly wanted, by tool name, in the
    /// order set (see ``cue(_:when:)``).
    private var cues: [(name: String, test: @Sendable (String) -> Bool, arguments: (@Sendable (String) -> JSONValue)?)] = []

    /// The default ``resultLimit``: 32 KB of text.
    public static let defaultResultLimit = 32 * 1024

    /// Creates a toolbox.
    public init(_ tools: [Tool] = [], resultLimit: Int = ToolBox.defaultResultLimit) throws(ToolDefinitionError) {
        self.tools = []
        self.resultLimit = resultLimit
        for tool in tools { try register(tool) }
    }

    /// Adds a tool.
    /// - Throws: ``ToolDefinitionError/duplicateName(_:)`` when a tool of that name is there.
    public mutating func register(_ tool: Tool) throws(ToolDefinitionError) {
        guard self.tool(named: tool.definition.name) == nil else { throw .duplicateName(tool.definition.name) }
        tools.append(tool)
    }

    /// Adds a tool with a typed handler (see ``Tool``).
    public mutating func register<Arguments: Decodable & Sendable, Result: Encodable & Sendable>(
        name: String, description: String, parameters: JSONSchema, timeout: Duration = Tool.defaultTimeout,
        _ handler: @escaping @Sendable (Arguments) async throws -> Result
    ) throws(ToolDefinitionError) {
        try register(Tool(name: name, description: description, parameters: parameters, timeout: timeout, handler))
    }

    /// Removes the tool named `name`, if there is one (and its cue).
    public mutating func remove(named name: String) {
        tools.removeAll { $0.definition.name == name }
        cues.removeAll { $0.name == name }
    }

    /// Says that the user's words plainly want the tool `name` when `test` holds for them
    /// ("what is due this week?" wants the assignments). A small model often answers such a
    /// question from its own head, or says it would look, instead of calling; with a cue, a
    /// reply whose tool choice is `auto` begins with a call to that tool (its arguments still
    /// the model's), and the model then answers from the result in words (the next round's
    /// choice is `none`). The first matching cue wins.
    ///
    /// With `arguments`, the cue also says what to call the tool with, from the user's words
    /// (a search for the question itself, a clock that needs none): the call is then made
    /// before the model writes anything, which saves the round in which the model would have
    /// written it, and the model's one round answers from the result.
    public mutating func cue(
        _ name: String, when test: @escaping @Sendable (String) -> Bool,
        arguments: (@Sendable (String) -> JSONValue)? = nil
    ) {
        cues.append((name, test, arguments))
    }

    /// The tool choice that makes `request`'s reply begin with the call its last user message
    /// plainly wants (see ``cue(_:when:arguments:)``); `nil` when the request's choice is not
    /// `auto`, its last message is not the user's, no cue matches, or the matching cue gives
    /// the arguments itself (see ``cuedCall(for:)``).
    public func cuedChoice(for request: ChatRequest) -> ToolChoice? {
        guard let cue = matchingCue(request), cue.arguments == nil else { return nil }
        return .function(cue.name)
    }

    /// The call `request`'s last user message plainly wants, with the arguments its cue reads
    /// from the words, to make before the model answers; `nil` as for ``cuedChoice(for:)``, or
    /// when the matching cue leaves the arguments to the model.
    public func cuedCall(for request: ChatRequest) -> ToolCall? {
        guard let cue = matchingCue(request), let arguments = cue.arguments else { return nil }
        return ToolCall(id: ToolCall.newID(), name: cue.name, arguments: arguments(request.messages.last?.text ?? "").text)
    }

    private func matchingCue(_ request: ChatRequest) -> (name: String, test: @Sendable (String) -> Bool, arguments: (@Sendable (String) -> JSONValue)?)? {
        guard request.toolChoice == .auto, let last = request.messages.last, last.role == .user else { return nil }
        let words = last.text
        return cues.first { tool(named: $0.name) != nil && $0.test(words) }
    }

    /// The tool named `name`.
    public func tool(named name: String) -> Tool? {
        tools.first { $0.definition.name == name }
    }

    /// What the model sees of the tools.
    public var definitions: [ToolDefinition] { tools.map(\.definition) }

    /// Whether there are no tools.
    public var isEmpty: Bool { tools.isEmpty }

    /// Runs `calls` concurrently, each within its tool's timeout, and returns their results in
    /// the calls' order. Cancelling the calling task (barge-in) cancels the calls still running
    /// and answers them as cancelled.
    public func run<C: Clock>(_ calls: [ToolCall], clock: C) async -> [ToolResult] where C.Duration == Duration {
        await withTaskGroup(of: (Int, ToolResult).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask { (index, await run(call, clock: clock)) }
            }
            var results = [ToolResult?](repeating: nil, count: calls.count)
            for await (index, result) in group { results[index] = result }
            return results.enumerated().map { index, result in
                result ?? ToolResult(call: calls[index], content: "The call was not run.", isError: true)
            }
        }
    }

    /// Runs `calls` on the continuous clock.
    public func run(_ calls: [ToolCall]) async -> [ToolResult] {
        await run(calls, clock: ContinuousClock())
    }

    /// Runs one call: unknown tools, invalid arguments, a handler that throws or outlives its
    /// timeout, and a result over ``resultLimit`` each give an error result.
    public func run<C: Clock>(_ call: ToolCall, clock: C) async -> ToolResult where C.Duration == Duration {
        let start = ContinuousClock.now
        func result(_ content: String, error: Bool) -> ToolResult {
            let elapsed = start.duration(to: .now)
            return ToolResult(call: call, content: content, isError: error, milliseconds: elapsed.milliseconds)
        }
        guard let tool = tool(named: call.name) else {
            let known = tools.map(\.definition.name).joined(separator: ", ")
            return result("There is no tool named \"\(call.name)\". The tools are: \(known).", error: true)
        }
        let problems = tool.definition.problems(with: call.arguments)
        guard problems.isEmpty else {
            return result("The arguments are not valid: \(problems.joined(separator: "; ")).", error: true)
        }
        switch await Self.race(tool.handler, call.arguments, timeout: tool.timeout, clock: clock) {
        case .returned(let text):
            guard text.utf8.count <= resultLimit else {
                return result("The result was \(text.utf8.count) bytes, over the \(resultLimit)-byte limit.", error: true)
            }
            return result(text, error: false)
        case .threw(let message):
            return result("The tool failed: \(message)", error: true)
        case .timedOut:
            return result("The tool did not answer within \(tool.timeout.seconds.formatted()) s.", error: true)
        case .cancelled:
            return result("The call was cancelled.", error: true)
        }
    }

    private enum Ending: Sendable {
        case returned(String)
        case threw(String)
        case timedOut
        case cancelled
    }

    /// Runs the handler in a task of its own and answers with whichever comes first: its
    /// result, the timeout, or the caller's cancellation. A handler that ignores cancellation
    /// is left to finish on its own; the caller does not wait for it.
    private static func race<C: Clock>(
        _ handler: @escaping @Sendable (String) async throws -> String, _ arguments: String, timeout: Duration, clock: C
    ) async -> Ending where C.Duration == Duration {
        let race = Race()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard race.start(continuation) else { return }
                let work = Task {
                    do {
                        race.finish(.returned(try await handler(arguments)))
                    } catch let failure as ToolFailure {
                        race.finish(.threw(failure.message))
                    } catch is CancellationError {
                        race.finish(.cancelled)
                    } catch {
                        race.finish(.threw(String(describing: error)))
                    }
                }
                let timer = Task {
                    do {
                        try await clock.sleep(for: timeout)
                        race.finish(.timedOut)
                    } catch {}
                }
                race.track([work, timer])
            }
        } onCancel: {
            race.cancel()
        }
    }

    /// The one answer of a ``race(_:_:timeout:clock:)``: the first ending resumes the caller
    /// and cancels the other tasks; later ones are dropped.
    private final class Race: Sendable {
        private struct State {
            var resume: CheckedContinuation<Ending, Never>?
            var tasks: [Task<Void, Never>] = []
            var cancelled = false
            var ended = false
        }
        private let state = Mutex(State())

        /// Takes the caller's continuation; `false` (and the caller resumed as cancelled) when
        /// the caller was cancelled already.
        func start(_ continuation: CheckedContinuation<Ending, Never>) -> Bool {
            let cancelled = state.withLock { current -> Bool in
                current.resume = continuation
                return current.cancelled
            }
            if cancelled { finish(.cancelled) }
            return !cancelled
        }

        /// Keeps the tasks to cancel at the end (at once, if it came already).
        func track(_ tasks: [Task<Void, Never>]) {
            let ended = state.withLock { current -> Bool in
                current.tasks = tasks
                return current.ended
            }
            if ended { tasks.forEach { $0.cancel() } }
        }

        func cancel() {
            state.withLock { $0.cancelled = true }
            finish(.cancelled)
        }

        func finish(_ ending: Ending) {
            let (resume, tasks) = state.withLock { current -> (CheckedContinuation<Ending, Never>?, [Task<Void, Never>]) in
                guard !current.ended, let resume = current.resume else { return (nil, []) }
                current.ended = true
                current.resume = nil
                return (resume, current.tasks)
            }
            guard let resume else { return }
            tasks.forEach { $0.cancel() }
            resume.resume(returning: ending)
        }
    }
}

extension ToolBox {
    /// `declared` followed by those of `added` whose names are not declared already.
    public static func merged(_ declared: [ToolDefinition], _ added: [ToolDefinition]) -> [ToolDefinition] {
        let names = Set(declared.map(\.name))
        return declared + added.filter { !names.contains($0.name) }
    }
}

/// Why a client's tool result was refused by a conversation.
public enum ToolResultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No reply of the conversation made a call with this id.
    case unknownCall(String)
    /// The call has its result already.
    case answered(String)
    /// There are no new tool results to answer.
    case nothingToAnswer

    public var description: String {
        switch self {
        case .unknownCall(let id): "No call with the id \"\(id.prefix(64))\" was made in this conversation: answer a call_id from a function_call item."
        case .answered(let id): "The call \"\(id.prefix(64))\" has its output already."
        case .nothingToAnswer: "There are no new tool results to answer: add a function_call_output item first."
        }
    }
}
