import HTTPTypes
import ParleyCore
import ParleyRuntime
import ParleyData

/// How a `POST /v1/chat/completions` request is answered, decided once from what it asks. The
/// usual way (``ChatCompletionsEndpoint``) and the relay on the event loop (``ChatRelayLane``)
/// both read this value, so the rules of which requests may be passed to an upstream byte for
/// byte live here and nowhere else.
struct ChatRoute: Sendable, Equatable {
    /// What the answer needs.
    enum Way: Sendable, Equatable {
        /// Nothing of Parley's own reading: the first provider may answer byte for byte when it
        /// is an OpenAI-compatible server.
        case relay
        /// The response cache may answer, or keep the answer, under this key.
        case cache(key: String)
        /// Parley must read the answer itself.
        case parley(Reason)
    }

    /// Why a request needs Parley's own reading of the answer.
    enum Reason: Sendable, Equatable {
        /// A JSON schema `response_format`: generated under the schema and checked.
        case responseSchema
        /// Images: answered by the vision task's order of providers.
        case images
        /// `parley.builtin_tools`: the built-in tools run between the model's turns.
        case builtinTools
    }

    /// The providers the model name resolved to.
    let selection: ProviderSelection
    /// What the answer needs.
    let way: Way

    /// Whether the answer may be relayed as it comes.
    var relays: Bool { way == .relay }

    /// The response cache's key, when the cache may answer.
    var cacheKey: String? {
        if case .cache(let key) = way { return key }
        return nil
    }

    /// The route of a decoded request: `body` as sent, `chat` its translation, for `owner`;
    /// `caching` when the server's response cache is on.
    /// The order matters: built-in tools read the user's data, so such an answer is never
    /// cached; a schema or images need Parley's reading; and only then may the cache answer.
    static func of(
        _ body: ChatCompletionRequest, chat: ChatRequest, owner: Owner, headers: @autoclosure () -> HTTPFields,
        caching: Bool, catalog: ProviderCatalog, onDeviceModel: @autoclosure () -> String
    ) -> ChatRoute {
        let selection = ModelResolution.selection(for: body.model, capability: .languageModel, catalog: catalog)
        if body.wantsBuiltinTools { return ChatRoute(selection: selection, way: .parley(.builtinTools)) }
        if caching,
            let key = ChatCacheKey.key(
                for: body, chat: chat, selection: selection, owner: owner, headers: headers(),
                onDeviceModel: onDeviceModel())
        {
            return ChatRoute(selection: selection, way: .cache(key: key))
        }
        if chat.responseSchema != nil { return ChatRoute(selection: selection, way: .parley(.responseSchema)) }
        if chat.hasImages { return ChatRoute(selection: selection, way: .parley(.images)) }
        return ChatRoute(selection: selection, way: .relay)
    }

    /// The route of a body recognized as plain (``PlainChatBody``) without decoding it, or `nil`
    /// when the cache may answer it: then the body is decoded and ``of(_:chat:owner:headers:caching:catalog:onDeviceModel:)``
    /// computes the key. A plain body has no tools, schema or images by definition, so the
    /// cache's rule (``ChatCacheKey/mayCache(temperature:personal:hasImages:hasTools:)``) is the only one that applies.
    /// The headers are read only when the cache might answer (a hot path: most requests are not
    /// at temperature 0).
    static func of(_ plain: PlainChatBody, headers: @autoclosure () -> HTTPFields, caching: Bool, catalog: ProviderCatalog) -> ChatRoute? {
        if caching,
            ChatCacheKey.mayCache(
                temperature: plain.temperature,
                personal: ChatCacheKey.isPersonal(user: plain.namesUser, store: nil, headers: headers()),
                hasImages: false, hasTools: false)
        {
            return nil
        }
        return ChatRoute(selection: ModelResolution.selection(for: plain.model, capability: .languageModel, catalog: catalog), way: .relay)
    }
}
