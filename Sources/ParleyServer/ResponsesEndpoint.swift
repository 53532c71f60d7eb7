import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime
import ParleyData

/// OpenAI's Responses API over the runtime's language model: `POST /v1/responses` (text and
/// image input, `instructions`, function tools, `text.format` JSON Schema, streamed with the
/// Responses event names or answered whole), `GET` and `DELETE /v1/responses/{id}`.
///
/// A stored response (`store`, on by default as OpenAI has it) is kept in the caller's saved
/// conversations: the first response of a chain opens a thread, and a request with
/// `previous_response_id` continues that thread (a branch from an earlier response continues a
/// copy of the thread up to it). The response's id names the thread and the assistant message,
/// and only the key that made it can read, continue or delete it. `store: false` keeps nothing.
struct ResponsesEndpoint: Sendable {
    let environment: ServerEnvironment
    /// The threads responses are being written into.
    let claims: Claims

    init(environment: ServerEnvironment) {
        self.environment = environment
        claims = Claims(shared: environment.sharedDatabase)
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/responses") { request, context in try await respond(to: request, owner: context.owner) }
        router.get("/v1/responses/{id}") { _, context in
            try await retrieve(try context.parameters.require("id"), owner: context.owner)
        }
        router.delete("/v1/responses/{id}") { _, context in
            try await delete(try context.parameters.require("id"), owner: context.owner)
        }
    }

    // MARK: - Ids

    /// Where a stored response lives: its thread, and the position of its assistant message
    /// in the thread (known before the reply is written, so a stream's events carry the id the
    /// response keeps).
    struct StoredID: Equatable {
        var thread: Int64
        var position: Int

        var text: String { "resp_\(thread)_\(position)" }

        /// `resp_<thread>_<position>`; `nil` for any other id (one never stored).
        init?(_ text: String) {
            let parts = text.split(separator: "_")
            guard parts.count == 3, parts[0] == "resp", let thread = Int64(parts[1]), let position = Int(parts[2]), position >= 0 else { return nil }
            self.thread = thread
            self.position = position
        }

        init(thread: Int64, position: Int) {
            self.thread = thread
            self.position = position
        }
    }

    /// The threads a response is being written into: a second request continuing the same
    /// response meanwhile writes into a copy, so two replies never interleave in one thread.
    /// With a shared database the claim is made there too, so that two instances never
    /// continue one response at once (a claim left by an instance that died lapses after
    /// ``stale``).
    actor Claims {
        private var busy: Set<Int64> = []
        let shared: SharedDatabase
        static let stale = Duration.seconds(600)

        init(shared: SharedDatabase = SharedDatabase()) {
            self.shared = shared
        }

        func claim(_ thread: Int64) async -> Bool {
            guard busy.insert(thread).inserted else { return false }
            guard let database = shared.current else { return true }
            if (try? await database.claimThread(thread, stale: Self.stale)) == true { return true }
            busy.remove(thread)
            return false
        }

        func release(_ thread: Int64) async {
            busy.remove(thread)
            try? await shared.current?.releaseThread(thread)
        }
    }

    /// The kept assistant message at `id`, with the thread's messages; `nil` when `owner` has
    /// no such response.
    private func stored(_ id: StoredID, in store: any ConversationStoring, owner: Owner) async throws -> (message: StoredMessage, all: [StoredMessage])? {
        guard try await store.thread(id.thread, owner: owner) != nil else { return nil }
        let all = try await store.messages(in: id.thread, owner: owner)
        guard id.position < all.count, all[id.position].content.role == .assistant else { return nil }
        return (all[id.position], all)
    }

    // MARK: - Create

    func respond(to request: Request, owner: Owner) async throws -> Response {
        let buffer = try await request.collectBody(limit: environment.configuration.maxChatBytes)
        guard buffer.readableBytes > 0 else { throw OpenAIError.invalidRequest("The request has no body: send a JSON object.") }
        let body: JSONValue
        do {
            body = try JSONValue(parsing: String(decoding: buffer.readableBytesView, as: UTF8.self))
        } catch {
            throw OpenAIError.invalidRequest("We could not parse the JSON body of your request: \(error).")
        }
        let parsed = try ResponsesRequest.parse(body)

        // The conversation so far: the previous response's thread, and this input after it.
        var earlier: [ConversationMessage] = []
        let store: (any ConversationStoring)? = parsed.stores || parsed.previousResponseID != nil ? try await environment.store() : nil
        var previous: (id: StoredID, messages: [StoredMessage])?
        if let text = parsed.previousResponseID {
            guard let id = StoredID(text), let store, let found = try await stored(id, in: store, owner: owner) else {
                throw Self.notFound(text, param: "previous_response_id")
            }
            previous = (id, Array(found.all[...id.position]))
            earlier = found.all[...id.position].map(\.content)
        }
        var fresh: [ConversationMessage] = []
        var called = Set(earlier.flatMap(\.toolCalls).map(\.id))
        var callNames = Dictionary(earlier.flatMap(\.toolCalls).map { ($0.id, $0.name) }) { first, _ in first }
        var pendingCalls: [ToolCall] = []
        for (index, item) in parsed.input.enumerated() {
            switch item {
            case .message(let message):
                if !pendingCalls.isEmpty {
                    fresh.append(ConversationMessage(role: .assistant, text: "", toolCalls: pendingCalls))
                    pendingCalls = []
                }
                // Instructions in the input are for this request only, as `instructions` are.
                if message.role != .system { fresh.append(ConversationMessage(chat: message)) }
            case .call(let call):
                pendingCalls.append(call)
                called.insert(call.id)
                callNames[call.id] = call.name
            case .output(let callID, let output):
                if !pendingCalls.isEmpty {
                    fresh.append(ConversationMessage(role: .assistant, text: "", toolCalls: pendingCalls))
                    pendingCalls = []
                }
                guard called.contains(callID), let name = callNames[callID] else {
                    throw OpenAIError.invalidRequest(
                        "The function_call_output answers '\(callID.prefix(64))', which no earlier function_call made.",
                        param: "input[\(index)].call_id")
                }
                fresh.append(ConversationMessage(toolExchange: .tool(callID: callID, name: name, content: output)))
            }
        }
        if !pendingCalls.isEmpty { fresh.append(ConversationMessage(role: .assistant, text: "", toolCalls: pendingCalls)) }
        let system = parsed.input.compactMap { item -> String? in
            if case .message(let message) = item, message.role == .system { return message.text }
            return nil
        }
        let instructions = ([parsed.instructions].compactMap { $0 } + system).filter { !$0.isEmpty }.joined(separator: "\n\n")
        // A call without its result, or a result without its call, is left out (providers refuse either).
        var messages = ThreadJournal.history(of: earlier + fresh)
        // Instructions alone are a request too, as OpenAI takes them (an assistant that speaks
        // first), as in chat completions; input with neither is not.
        guard messages.contains(where: { $0.role == .user || $0.role == .tool }) || !instructions.isEmpty else {
            throw OpenAIError.invalidRequest(
                "'input' holds no text: send a user message, a function_call_output or instructions to answer.",
                param: "input")
        }
        if !instructions.isEmpty { messages.insert(.system(instructions), at: 0) }

        var chat = ChatRequest(
            messages: messages, sampling: parsed.sampling, tools: parsed.tools, toolChoice: parsed.toolChoice,
            parallelToolCalls: parsed.parallelToolCalls)
        if let schema = parsed.schema {
            chat.responseSchema = schema
            chat.task = .structuredOutput
        }
        if chat.hasImages { chat.task = .vision }
        let selection = ModelResolution.selection(for: parsed.model, capability: .languageModel, catalog: environment.runtime.catalog)
        var llm = try await environment.languageModel(for: chat, selection: selection, param: "input")
        if parsed.builtinTools {
            let box = try await environment.serverTools(for: chat, owner: owner, hasSchema: parsed.schema != nil, schemaField: "text.format")
            let logger = environment.logger
            llm = ToolRunningModel(loop: ToolLoop(llm: llm, toolbox: box), clock: ContinuousClock()) { result in
                logger.debug("response: server tool \(result.call.name) ran in \(Int(result.milliseconds)) ms\(result.isError ? " (failed)" : "")")
            }
        }
        let asked = chat, answerer = llm
        let head = try await StreamHead.start(deadline: environment.deadline, timeout: environment.timeout) { answerer.complete(asked) }
        var reply = Reply(request: parsed, requested: parsed.model ?? "auto", thread: nil, fresh: fresh, title: Self.title(of: parsed.input))
        if case .provider(let identity) = head.first { reply.provider = identity }
        // Where the response will be kept, known now: a stream's first event carries its id.
        var keeping: Keeping?
        if parsed.stores, let store {
            keeping = try await reserve(after: previous, for: reply, in: store, owner: owner)
            reply.thread = keeping?.id.thread
        }
        if parsed.streams {
            return stream(head, reply: reply, keeping: keeping, store: store, owner: owner)
        }
        var collected = reply
        do {
            if let first = head.first { collected.take(first) }
            for try await event in head.rest { collected.take(event) }
            if let keeping, let store { try await save(collected, keeping: keeping, in: store, owner: owner) }
            environment.admission.charge(owner, usage: collected.usage)
        } catch {
            if let keeping, let store { await abandon(keeping, in: store, owner: owner) }
            throw error
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers.name(collected.provider)
        let document = collected.document(status: "completed", id: keeping?.id.text ?? collected.ephemeralID)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document.text)))
    }

    /// A thread held for a response being written, and the id the response will have.
    struct Keeping: Sendable {
        var id: StoredID
        /// Whether the thread was made for this response (and is removed if it fails).
        var isNew: Bool
    }

    /// The thread a response is kept in: the previous response's, when that response is its
    /// last message and no other reply is being written into it; else a copy of the thread up
    /// to the previous response (so a branch never rewrites another); a new thread when there
    /// is no previous response.
    private func reserve(
        after previous: (id: StoredID, messages: [StoredMessage])?, for reply: Reply,
        in store: any ConversationStoring, owner: Owner
    ) async throws -> Keeping {
        if let previous {
            let count = try await store.messages(in: previous.id.thread, owner: owner).count
            if count == previous.messages.count, await claims.claim(previous.id.thread) {
                return Keeping(id: StoredID(thread: previous.id.thread, position: count + reply.fresh.count), isNew: false)
            }
            let original = try await store.thread(previous.id.thread, owner: owner)
            let copy = try await store.createThread(title: original?.title, settings: original?.settings ?? ThreadSettings(), owner: owner)
            _ = await claims.claim(copy.id)
            for message in previous.messages { _ = try await store.append(message.content, to: copy.id, owner: owner) }
            return Keeping(id: StoredID(thread: copy.id, position: previous.messages.count + reply.fresh.count), isNew: false)
        }
        let settings = ThreadSettings(
            backend: reply.provider.map { $0.isLocal ? "local" : $0.name } ?? "auto", modelPreset: reply.provider?.model,
            systemPrompt: reply.request.instructions ?? "", maxTokens: reply.request.sampling.maxTokens)
        let thread = try await store.createThread(title: reply.title, settings: settings, owner: owner)
        _ = await claims.claim(thread.id)
        return Keeping(id: StoredID(thread: thread.id, position: reply.fresh.count), isNew: true)
    }

    /// A response that failed: its new thread goes, and the thread is free again.
    private func abandon(_ keeping: Keeping, in store: any ConversationStoring, owner: Owner) async {
        if keeping.isNew { try? await store.deleteThread(keeping.id.thread, owner: owner) }
        await claims.release(keeping.id.thread)
    }

    /// Keeps the exchange: the new input and the reply, at the position its id names.
    /// (A failure leaves the thread to ``abandon(_:in:owner:)``.)
    private func save(_ reply: Reply, keeping: Keeping, in store: any ConversationStoring, owner: Owner) async throws {
        for message in reply.fresh { _ = try await store.append(message, to: keeping.id.thread, owner: owner) }
        let answer = ConversationMessage(
            role: .assistant, text: reply.text, provider: reply.provider?.description, usage: reply.usage,
            structuredResult: reply.structured, toolCalls: reply.calls)
        _ = try await store.append(answer, to: keeping.id.thread, owner: owner)
        await claims.release(keeping.id.thread)
    }

    // MARK: - Streaming

    private func stream(
        _ head: StreamHead<ChatEvent>, reply start: Reply, keeping: Keeping?, store: (any ConversationStoring)?,
        owner: Owner
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        headers.name(start.provider)
        let limits = environment.rateLimits
        let body = ResponseBody { writer in
            var reply = start
            var sequence = 0
            func send(_ type: String, _ fields: JSONObject) async throws {
                var event = fields
                event["type"] = .string(type)
                event["sequence_number"] = .number(Double(sequence))
                sequence += 1
                try await writer.write(ByteBuffer(string: "event: \(type)\ndata: \(JSONValue.object(event).text)\n\n"))
            }
            let provisional = keeping?.id.text ?? reply.ephemeralID
            try await send("response.created", ["response": reply.document(status: "in_progress", id: provisional, output: [])])
            try await send("response.in_progress", ["response": reply.document(status: "in_progress", id: provisional, output: [])])
            var opened = false
            // The message item and its text part, announced before its first text.
            func open() async throws {
                guard !opened else { return }
                opened = true
                try await send("response.output_item.added", ["output_index": 0, "item": reply.messageItem(status: "in_progress", text: nil)])
                try await send(
                    "response.content_part.added",
                    [
                        "item_id": .string(reply.messageID), "output_index": 0, "content_index": 0,
                        "part": Reply.textPart(""),
                    ])
            }
            func relay(_ event: ChatEvent) async throws {
                reply.take(event)
                guard case .text(let piece) = event, !piece.isEmpty else { return }
                try await open()
                try await send(
                    "response.output_text.delta",
                    [
                        "item_id": .string(reply.messageID), "output_index": 0, "content_index": 0,
                        "delta": .string(piece), "logprobs": .array([]),
                    ])
            }
            do {
                if let first = head.first { try await relay(first) }
                for try await event in head.rest { try await relay(event) }
                if let keeping, let store { try await save(reply, keeping: keeping, in: store, owner: owner) }
                limits.charge(owner, tokens: RateLimits.tokens(of: reply.usage))
                let id = provisional
                var index = 0
                if opened || reply.calls.isEmpty {
                    try await open()
                    let ids: JSONObject = ["item_id": .string(reply.messageID), "output_index": 0, "content_index": 0]
                    try await send("response.output_text.done", ids.merging(["text": .string(reply.text), "logprobs": .array([])]))
                    try await send("response.content_part.done", ids.merging(["part": Reply.textPart(reply.text)]))
                    try await send("response.output_item.done", ["output_index": 0, "item": reply.messageItem(status: "completed", text: reply.text)])
                    index = 1
                }
                for (offset, call) in reply.calls.enumerated() {
                    let output = JSONValue.number(Double(index + offset))
                    let itemID = JSONValue.string(reply.callItemID(offset))
                    try await send(
                        "response.output_item.added",
                        ["output_index": output, "item": reply.callItem(call, offset: offset, status: "in_progress", arguments: "")])
                    try await send("response.function_call_arguments.delta", ["item_id": itemID, "output_index": output, "delta": .string(call.arguments)])
                    try await send("response.function_call_arguments.done", ["item_id": itemID, "output_index": output, "arguments": .string(call.arguments)])
                    try await send(
                        "response.output_item.done",
                        ["output_index": output, "item": reply.callItem(call, offset: offset, status: "completed", arguments: call.arguments)])
                }
                try await send("response.completed", ["response": reply.document(status: "completed", id: id)])
            } catch {
                if let keeping, let store { await abandon(keeping, in: store, owner: owner) }
                let failure = OpenAIError.from(error)
                var failed = reply.document(status: "failed", id: provisional)
                if case .object(var fields) = failed {
                    fields["error"] = .object(["code": .string(failure.code ?? failure.type), "message": .string(failure.message)])
                    failed = .object(fields)
                }
                try await send("response.failed", ["response": failed])
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: - Retrieve and delete

    func retrieve(_ text: String, owner: Owner) async throws -> Response {
        guard let id = StoredID(text) else { throw Self.notFound(text, param: "response_id") }
        let store = try await environment.store()
        guard let message = try await stored(id, in: store, owner: owner)?.message else { throw Self.notFound(text, param: "response_id") }
        let thread = try await store.thread(id.thread, owner: owner)
        var reply = Reply(retrieved: message.content, thread: thread, created: Int(message.createdAt.timeIntervalSince1970))
        reply.provider = message.content.provider.map { ProviderIdentity(name: $0, isLocal: false) }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: reply.document(status: "completed", id: id.text).text)))
    }

    /// Deletes the stored conversation the response belongs to (Parley keeps a chain of
    /// responses as one thread), so neither it nor the responses before it can be continued.
    func delete(_ text: String, owner: Owner) async throws -> Response {
        guard let id = StoredID(text) else { throw Self.notFound(text, param: "response_id") }
        let store = try await environment.store()
        guard try await stored(id, in: store, owner: owner) != nil else { throw Self.notFound(text, param: "response_id") }
        try await store.deleteThread(id.thread, owner: owner)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let document: JSONValue = ["id": .string(text), "object": "response.deleted", "deleted": true]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document.text)))
    }

    static func notFound(_ id: String, param: String) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "No response with id '\(id.prefix(80))' was found.", type: "invalid_request_error",
            param: param, code: "response_not_found")
    }

    /// A new thread's title: the first words of the first user message.
    static func title(of input: [ResponsesRequest.Item]) -> String? {
        for item in input {
            if case .message(let message) = item, message.role == .user, !message.text.isEmpty {
                let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
                return text.count > 60 ? String(text.prefix(59)) + "…" : text
            }
        }
        return nil
    }
}
