import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyRuntime

/// `GET /v1/models` and `GET /v1/models/{id}`: the names a request's `model` can take, in
/// OpenAI's list shape: `auto` (each capability's fallback chain) and every provider of the
/// catalog, with the capabilities it serves and whether the settings configure it.
struct ModelsEndpoint: Sendable {
    let environment: ServerEnvironment

    struct Model: Encodable, Sendable {
        var id: String
        var object = "model"
        var created: Int
        var owned_by: String
        /// What it serves: `LLM`, `STT`, `TTS`, `embeddings`.
        var capabilities: [String]
        /// Whether the settings put it in its chains.
        var configured: Bool
    }

    struct List: Encodable {
        var object = "list"
        var data: [Model]
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/models") { _, _ in Self.json(List(data: models())) }
        router.get("/v1/models/{id}") { _, context in
            let id = try context.parameters.require("id")
            return Self.json(try model(named: id.removingPercentEncoding ?? id))
        }
        // `provider/model` names hold a slash.
        router.get("/v1/models/{id}/{model}") { _, context in
            Self.json(try model(named: try context.parameters.require("id") + "/" + context.parameters.require("model")))
        }
    }

    /// The model a request naming `id` gets: a listed one, else what the name resolves to (any
    /// name the server does not know is the fallback chain, `provider/model` that provider), so
    /// every name the endpoints accept can be looked up, as OpenAI's SDKs and frameworks do.
    func model(named id: String) throws(OpenAIError) -> Model {
        let listed = models()
        if let model = listed.first(where: { $0.id == id }) { return model }
        guard !id.isEmpty, id.count <= 200, !id.contains(where: { $0.isNewline }) else { throw OpenAIError.modelNotFound(id) }
        let provider = id.split(separator: "/", maxSplits: 1).first.map(String.init) ?? id
        if id.contains("/"), let entry = listed.first(where: { $0.id == provider }) {
            return Model(id: id, created: environment.started, owned_by: entry.owned_by, capabilities: entry.capabilities, configured: entry.configured)
        }
        return Model(id: id, created: environment.started, owned_by: "parley", capabilities: listed.first?.capabilities ?? [], configured: true)
    }

    /// Every selectable name, `auto` first, then the catalog's order.
    func models() -> [Model] {
        let catalog = environment.runtime.catalog
        let settings = environment.runtime.settings
        let served: [ProviderCapability] = [.languageModel, .speechToText, .textToSpeech]
        var models = [
            Model(
                id: "auto", created: environment.started, owned_by: "parley",
                capabilities: served.map(\.rawValue), configured: true)
        ]
        // `local` is the on-device engines of every capability, whatever their entries are named
        // (the voice's are `neural` and `espeak-ng`).
        let onDevice = served.filter { capability in catalog.entries(for: capability).contains { $0.placement == .onDevice } }
        if !onDevice.isEmpty {
            models.append(
                Model(
                    id: "local", created: environment.started, owned_by: ProviderPlacement.onDevice.rawValue,
                    capabilities: onDevice.map(\.rawValue), configured: true))
        }
        for entry in catalog.entries where served.contains(entry.capability) && entry.name != "local" {
            if let index = models.firstIndex(where: { $0.id == entry.name }) {
                models[index].capabilities.append(entry.capability.rawValue)
                models[index].configured = models[index].configured || entry.isConfigured(in: settings)
            } else {
                models.append(
                    Model(
                        id: entry.name, created: environment.started, owned_by: entry.placement.rawValue,
                        capabilities: [entry.capability.rawValue], configured: entry.isConfigured(in: settings)))
            }
        }
        // The on-device embedding model, when installed: under its own name and as part of `local`.
        if let embedder = environment.runtime.onDeviceEmbedder() {
            if let index = models.firstIndex(where: { $0.id == "local" }) {
                models[index].capabilities.append(Self.embeddings)
            } else {
                models.append(
                    Model(
                        id: "local", created: environment.started, owned_by: ProviderPlacement.onDevice.rawValue,
                        capabilities: [Self.embeddings], configured: true))
            }
            models.append(
                Model(
                    id: embedder.modelName, created: environment.started, owned_by: ProviderPlacement.onDevice.rawValue,
                    capabilities: [Self.embeddings], configured: true))
        }
        return models
    }

    /// The capability `/v1/embeddings` serves, as the list names it.
    static let embeddings = "embeddings"

    static func json(_ value: some Encodable) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
