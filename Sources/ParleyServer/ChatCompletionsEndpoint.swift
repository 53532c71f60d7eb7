import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime
import ParleyData

/// `POST /v1/chat/completions`: OpenAI's Chat Completions over the runtime's language model
/// (the fallback chain for `auto` and unknown model names), streamed as server-sent events or
/// answered whole. The `x-parley-provider` header names the provider that answered; for a
/// stream the headers wait for the first event, so that the header is true and a request no
/// provider can serve still gets its proper status.
///
/// Identical non-personal requests at temperature 0 are answered from the response cache
/// (see ``ChatCacheKey`` and ``ResponseCache``), in the same shapes, with `x-parley-cache: hit`.
struct ChatCompletionsEndpoint: Sendable {
    let environment: ServerEnvironment

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/chat/completions") { request, context in try await respond(to: request, owner: context.owner) }
    }

    func respond(to request: Request, owner: Owner) async throws -> Response {
        var (body, raw) = try await request.decodeJSONKeepingBody(ChatCompletionRequest.self, limit: environment.configuration.maxChatBytes)
        // The tools' parameters in the order the client wrote them: arguments are generated in that order.
        if body.tools?.isEmpty == false, let ordered = try? JSONValue(parsing: raw)["tools"]?.array { body.tools = ordered }
        var parsed = try body.chatRequest()
        // The schema's properties in the order the client wrote them: they are generated in that order.
        if parsed.responseSchema != nil, let ordered = try? JSONValue(parsing: raw)["response_format"]?["json_schema"]?["schema"] {
            parsed.responseSchema?.schema = ordered
        }
        let chat = parsed
        let runtime = environment.runtime
        let cache = environment.responseCache
        let route = ChatRoute.of(
            body, chat: chat, owner: owner, headers: request.headers, caching: cache.isOn, catalog: runtime.catalog,
            onDeviceModel: runtime.currentLanguageModel.path)
        let selection = route.selection
        let builtIns =
            route.way == .parley(.builtinTools)
            ? try await environment.serverTools(
                for: chat, owner: owner, hasSchema: chat.responseSchema != nil,
                schemaField: "response_format") : nil
        let cacheKey = route.cacheKey
        if let cacheKey, let answer = await cache.lookup(cacheKey, owner: owner) {
            return try replay(answer, reply: Reply(requested: body.model ?? "auto"), streams: body.streams, includeUsage: body.includesUsage)
        }
        let llm = try await environment.languageModel(for: chat, selection: selection, param: "messages")
        // A chain says who answers with a `.provider` event; a single provider is who answers.
        // (Images go to the vision task's order of the same providers.)
        let members = llm.members(for: chat)
        let chain = members.map(\.identity)
        let known = chain.count == 1 ? chain[0] : nil
        var answering: ProviderIdentity? = known
        var model = llm
        if route.relays {
            switch try await relay(raw, streams: body.streams, owner: owner, failover: llm.failover(for: chat), members: members, selection: selection) {
            case .answered(let response): return response
            case .notRelayed: break
            case .failedOver(let rest):
                model = rest
                answering = nil
            }
        }
        if let builtIns {
            let logger = environment.logger
            model = ToolRunningModel(loop: ToolLoop(llm: model, toolbox: builtIns), clock: ContinuousClock()) { result in
                logger.debug("chat completion: built-in tool \(result.call.name) ran in \(Int(result.milliseconds)) ms\(result.isError ? " (failed)" : "")")
            }
        }
        let answerWith = model
        let reply = Reply(requested: body.model ?? "auto")
        let head = try await StreamHead.start(deadline: environment.deadline, timeout: environment.timeout) { answerWith.complete(chat) }
        if case .provider(let identity) = head.first { answering = identity }
        if let answering { environment.metrics.recordAnswer(.languageModel, provider: answering, chain: chain) }
        // Only the chain's first choice is kept: a fallback's answer must not outlive the outage.
        var saving: CacheSaving?
        if let cacheKey, let answering, answering == chain.first { saving = CacheSaving(key: cacheKey, owner: owner) }
        if body.streams {
            return stream(
                head, reply: reply, answering: answering, includeUsage: body.includesUsage, cacheable: cacheKey != nil, saving: saving,
                owner: owner)
        }
        return try await complete(head, reply: reply, answering: answering, cacheable: cacheKey != nil, saving: saving, owner: owner)
    }

    /// Where a complete answer is cached.
    struct CacheSaving: Sendable {
        var key: String
        var owner: Owner
    }

    /// What every document of one reply shares.
    struct Reply: Sendable {
        var id: String
        var created: Int
        /// The model the client asked for, echoed when no provider is known.
        var requested: String

        /// A new reply's: a fresh id, made now.
        init(requested: String) {
            id = "chatcmpl-\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
            created = ServerEnvironment.now
            self.requested = requested
        }

        func model(_ provider: ProviderIdentity?) -> String {
            provider.map { $0.model ?? $0.name } ?? requested
        }
    }

    func complete(
        _ head: StreamHead<ChatEvent>, reply: Reply, answering: ProviderIdentity?, cacheable: Bool,
        saving: CacheSaving?, owner: Owner
    ) async throws -> Response {
        var text = ""
        var usage = Usage()
        var finish = FinishReason.stop
        var calls: [ToolCall] = []
        func take(_ event: ChatEvent) {
            switch event {
            case .text(let piece): text += piece
            case .finished(let reason, let reported):
                finish = reason
                usage = reported
            case .toolCall(let call): calls.append(call)
            case .provider, .toolCallDelta: break
            }
        }
        if let first = head.first { take(first) }
        for try await event in head.rest { take(event) }
        if let answering { environment.metrics.recordTokens(usage, provider: answering) }
        environment.admission.charge(owner, usage: usage)
        if let saving, !text.isEmpty, finish != .cancelled {
            let answer = CachedChatAnswer(
                text: text, finishReason: ChatCompletionResponse.finishReason(finish), usage: usage,
                provider: answering, model: reply.model(answering))
            await environment.responseCache.save(answer, key: saving.key, owner: saving.owner)
        }
        let document = ChatCompletionResponse.Completion(
            id: reply.id, created: reply.created, model: reply.model(answering),
            choices: [
                .init(
                    message: .init(content: text, toolCalls: calls),
                    finish_reason: ChatCompletionResponse.finishReason(calls.isEmpty ? finish : .toolCalls))
            ],
            usage: .init(usage))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers.name(answering)
        if cacheable { headers[.parleyCache] = "miss" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(document))))
    }

    func stream(
        _ head: StreamHead<ChatEvent>, reply: Reply, answering: ProviderIdentity?, includeUsage: Bool, cacheable: Bool,
        saving: CacheSaving?, owner: Owner
    ) -> Response {
        let limits = environment.rateLimits
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        headers.name(answering)
        if cacheable { headers[.parleyCache] = "miss" }
        let metrics = environment.metrics
        let cache = environment.responseCache
        let model = reply.model(answering)
        let body = ResponseBody { writer in
            func send(_ text: String) async throws { try await writer.write(ByteBuffer(string: text)) }
            func chunk(_ delta: ChatCompletionResponse.Chunk.Choice.Delta, finish: String? = nil) -> String {
                ChatCompletionResponse.event(
                    ChatCompletionResponse.Chunk(
                        id: reply.id, created: reply.created, model: model, choices: [.init(delta: delta, finish_reason: finish)]))
            }
            try await send(chunk(.init(role: "assistant", content: "")))
            var finished = false
            var text = ""
            var calls = 0
            var streamedCalls: Set<Int> = []
            var ending = (reason: FinishReason.stop, usage: Usage())
            func relay(_ event: ChatEvent) async throws {
                switch event {
                case .text(let piece):
                    text += piece
                    try await send(chunk(.init(content: piece)))
                case .finished(let reason, let usage):
                    finished = true
                    ending = (reason, usage)
                    if let answering { metrics.recordTokens(usage, provider: answering) }
                    limits.charge(owner, tokens: RateLimits.tokens(of: usage))
                    try await send(chunk(.init(), finish: ChatCompletionResponse.finishReason(reason)))
                    if includeUsage {
                        try await send(
                            ChatCompletionResponse.event(
                                ChatCompletionResponse.Chunk(
                                    id: reply.id, created: reply.created, model: model, choices: [], usage: .init(usage))))
                    }
                case .toolCallDelta(let piece):
                    streamedCalls.insert(piece.index)
                    try await send(chunk(.init(tool_calls: [ChatCompletionResponse.ToolCallItem(piece)])))
                case .toolCall(let call):
                    // A provider that sent the call whole: one piece with all of it.
                    if !streamedCalls.contains(calls) {
                        let whole = ToolCallDelta(index: calls, id: call.id, name: call.name, arguments: call.arguments)
                        try await send(chunk(.init(tool_calls: [ChatCompletionResponse.ToolCallItem(whole)])))
                    }
                    calls += 1
                case .provider:
                    break
                }
            }
            do {
                if let first = head.first { try await relay(first) }
                for try await event in head.rest { try await relay(event) }
                if !finished { try await send(chunk(.init(), finish: "stop")) }
                // Kept before the stream ends, so a request sent after this one finds it.
                if let saving, !text.isEmpty, ending.reason != .cancelled {
                    let answer = CachedChatAnswer(
                        text: text, finishReason: ChatCompletionResponse.finishReason(ending.reason), usage: ending.usage,
                        provider: answering, model: model)
                    await cache.save(answer, key: saving.key, owner: saving.owner)
                }
                try await send(ChatCompletionResponse.done)
            } catch {
                // The status is sent: the failure goes in the stream, as OpenAI does.
                try await send(OpenAIError.from(error).streamEvent)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
