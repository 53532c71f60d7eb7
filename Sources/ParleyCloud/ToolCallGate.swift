import ParleyCore

/// Checks each whole tool call a provider's model makes against the tools the request
/// declares, the same way for every HTTP provider.
///
/// - A call naming a tool the request does not declare ends the stream with
///   ``ToolCallError`` (``ToolCallError/Reason/undeclaredTool(declared:)``).
/// - A call whose arguments break the tool's schema is repaired once: the same provider is
///   asked again, with the call and what is wrong with it in the history and the tool named as
///   the choice, and the corrected call's arguments replace the bad ones under the original id.
///   If the corrected call is still wrong (or the repair request fails), the stream ends with
///   ``ToolCallError`` (``ToolCallError/Reason/invalidArguments(problems:)``).
///
/// The pieces (``ChatEvent/toolCallDelta(_:)``) streamed before a repaired call carry the
/// model's first arguments; the whole ``ChatEvent/toolCall(_:)`` is the one to run. The repair
/// request's usage is added to the reply's.
struct ToolCallGate: Sendable {
    /// The request as the caller sent it.
    let request: ChatRequest
    /// The provider's name, for errors.
    let provider: String
    /// Sends a request to the provider, unchecked.
    let send: @Sendable (ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error>

    /// The provider's reply to `request`, its tool calls checked; the reply unchanged when the
    /// request neither declares tools nor holds a tool exchange (no call can come then).
    static func checked(
        _ request: ChatRequest, provider: String,
        send: @escaping @Sendable (ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error>
    )
        -> AsyncThrowingStream<ChatEvent, any Error>
    {
        guard !request.tools.isEmpty || request.messages.contains(where: \.isToolExchange) else { return send(request) }
        let gate = ToolCallGate(request: request, provider: provider, send: send)
        return .producing { output in try await gate.run(output) }
    }

    private func run(_ output: AsyncThrowingStream<ChatEvent, any Error>.Continuation) async throws {
        var repairUsage = Usage()
        for try await event in send(request) {
            switch event {
            case .toolCall(let call):
                output.yield(.toolCall(try await checked(call, repairUsage: &repairUsage)))
            case .finished(let reason, var usage):
                usage.add(repairUsage)
                output.yield(.finished(reason, usage))
            case .text, .provider, .toolCallDelta:
                output.yield(event)
            }
        }
    }

    /// `call` when it is valid, else its repair; throws ``ToolCallError`` when neither is.
    private func checked(_ call: ToolCall, repairUsage: inout Usage) async throws -> ToolCall {
        guard let tool = request.tool(named: call.name) else {
            throw ToolCallError(provider: provider, call: call, reason: .undeclaredTool(declared: request.tools.map(\.name)))
        }
        let problems = tool.problems(with: call.arguments)
        guard !problems.isEmpty else { return call }
        var reply = ChatReply()
        do {
            for try await event in send(Self.repairRequest(request, call: call, problems: problems)) {
                switch event {
                case .toolCall(let corrected) where corrected.name == call.name && reply.toolCalls.isEmpty:
                    reply.toolCalls.append(corrected)
                case .finished(_, let usage):
                    reply.usage = usage
                default:
                    break
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try Task.checkCancellation()
            throw ToolCallError(provider: provider, call: call, reason: .invalidArguments(problems: problems), repairTried: true)
        }
        repairUsage.add(reply.usage)
        guard let corrected = reply.toolCalls.first else {
            throw ToolCallError(provider: provider, call: call, reason: .invalidArguments(problems: problems), repairTried: true)
        }
        let remaining = tool.problems(with: corrected.arguments)
        let repaired = ToolCall(id: call.id, name: call.name, arguments: corrected.arguments)
        guard remaining.isEmpty else {
            throw ToolCallError(provider: provider, call: repaired, reason: .invalidArguments(problems: remaining), repairTried: true)
        }
        return repaired
    }

    /// The request that asks the model to call `call`'s tool again with valid arguments: the
    /// bad call and an error result naming the problems are added to the history, and the
    /// tool is the required choice.
    static func repairRequest(_ request: ChatRequest, call: ToolCall, problems: [String]) -> ChatRequest {
        var repair = request
        repair.messages.append(.assistant(toolCalls: [call]))
        let complaint =
            "The arguments are not valid: \(problems.joined(separator: "; ")). "
            + "Call \(call.name) again with arguments that follow its parameters' schema exactly."
        repair.messages.append(.tool(callID: call.id, name: call.name, content: complaint, isError: true))
        repair.toolChoice = .function(call.name)
        repair.parallelToolCalls = false
        return repair
    }
}
