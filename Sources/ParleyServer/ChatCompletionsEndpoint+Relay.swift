import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ParleyCloud
import ParleyCore
import ParleyData
import ParleyRuntime

extension ChatCompletionsEndpoint {
    /// What became of a request offered to the relay.
    enum Relayed {
        /// The first provider answered; its answer goes to the client as it came.
        case answered(Response)
        /// The relay does not apply: the request takes the usual way.
        case notRelayed
        /// The first provider failed before answering: the rest of the chain answers.
        case failedOver(to: any LanguageModelProvider)
    }

    /// Passes the client's request to the provider that would answer it first, when that is
    /// an OpenAI-compatible server, and its answer back, byte for byte: a proxy's work, done
    /// without decoding and re-encoding every event (the one change is `model`, set to the
    /// provider's). The request was checked as usual beforehand, and a request that needs
    /// Parley's own reading of the answer (a response schema, images, the response cache, a
    /// cost budget) is not relayed.
    ///
    /// In a chain, the provider is admitted as the chain admits it (its health, its server
    /// up), and when it fails before answering, the failure is recorded and the rest of the
    /// chain answers, as the chain would have. A provider named alone throws its error.
    ///
    /// A provider on a plain `http://` server that answered is remembered for `selection`, so
    /// that the next such request is relayed on the event loop (``ChatRelayHandler``).
    func relay(
        _ raw: Data, streams: Bool, owner: Owner, failover ordered: LanguageModelFailover?, members providers: [any LanguageModelProvider],
        selection: ProviderSelection
    ) async throws -> Relayed {
        let chain = providers.map(\.identity)
        // The relay's API speaks SwiftNIO's byte buffers, which ParleyCore (no networking)
        // cannot name, so a provider cannot declare it there: the one provider that relays is
        // known by its type.
        guard let first = providers.first as? OpenAILanguageModel else { return .notRelayed }
        let name = first.identity.description
        // A provider in good health needs no word with the health actor, before or after.
        let healthy = ordered?.health.isHealthy(name) ?? true
        if let ordered {
            if !healthy, !(await ordered.health.allowsRequest(to: name)) { return .notRelayed }
            guard await first.availability().isReady else { return .notRelayed }
        }
        let upstream: RelayedCompletion
        do {
            upstream = try await first.relay(Array(raw), streams: streams, firstByte: ordered?.firstOutput)
        } catch {
            let kind = failureKind(of: error)
            guard let ordered, providers.count > 1, !(error is CancellationError), kind != .invalidRequest else { throw error }
            await ordered.health.recordFailure(name, kind: kind, reason: "\(error)")
            Logger(label: "parley.chain.llm").warning("[LLM] \(name) failed: \(error), falling back to \(providers[1].identity)")
            return .failedOver(to: ordered.dropping(1))
        }
        if let ordered, !healthy { await ordered.health.recordSuccess(name) }
        if first.relaysOnEventLoop {
            environment.relayRoutes.remember(
                RelayRoutes.Route(
                    provider: first, chain: chain, health: ordered?.health, firstByte: ordered?.firstOutput,
                    onDeviceModel: environment.runtime.currentLanguageModelPath,
                    tally: environment.metrics.relayTally(provider: first.identity, chain: chain, route: ChatRelayLane.path)),
                for: selection)
        }
        environment.metrics.recordAnswer(.languageModel, provider: first.identity, chain: chain)
        environment.metrics.recordRelay(onEventLoop: false)
        var headers = HTTPFields()
        headers.name(first.identity)
        guard streams == upstream.isEventStream else {
            // The server sent the other form than the client asked for (it ignored `stream`).
            let head = try await StreamHead.start(deadline: environment.deadline, timeout: environment.timeout) { upstream.events() }
            let reply = Reply(requested: first.configuration.model)
            if streams {
                return .answered(stream(head, reply: reply, answering: first.identity, includeUsage: false, cacheable: false, saving: nil, owner: owner))
            }
            return .answered(try await complete(head, reply: reply, answering: first.identity, cacheable: false, saving: nil, owner: owner))
        }
        let metrics = environment.metrics
        let provider = first.identity
        if !streams {
            let whole = try await upstream.collect(upTo: Self.largestCompletion)
            if let usage = RelayedCompletion.usage(ofCompletion: Array(whole.readableBytesView)) {
                metrics.recordTokens(usage, provider: provider)
                environment.admission.charge(owner, usage: usage)
            }
            headers[.contentType] = "application/json"
            return .answered(Response(status: .ok, headers: headers, body: .init(byteBuffer: whole)))
        }
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let deadline = environment.deadline
        let timeout = environment.timeout
        let admission = environment.admission
        let body = ResponseBody { writer in
            var usage = RelayedUsageWatcher()
            do {
                for try await buffer in upstream.body {
                    usage.see(buffer)
                    try await writer.write(buffer)
                    if ContinuousClock.now > deadline { throw timeout }
                }
            } catch {
                // The status is sent: the failure goes in the stream, as OpenAI does.
                try await writer.write(ByteBuffer(string: OpenAIError.from(error).streamEvent))
            }
            if let reported = usage.usage {
                metrics.recordTokens(reported, provider: provider)
                admission.charge(owner, usage: reported)
            }
            try await writer.finish(nil)
        }
        return .answered(Response(status: .ok, headers: headers, body: body))
    }

    /// The largest whole completion passed on.
    static let largestCompletion = 64 * 1024 * 1024
}
