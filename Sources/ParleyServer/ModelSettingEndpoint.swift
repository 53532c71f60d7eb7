import Foundation
import Hummingbird
import ParleyRuntime

/// The on-device language model of the running server, and the switch to another.
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/settings/model` | `{"model", "provider", "path", "loaded"}`: the model serving now |
/// | `PUT /v1/settings/model` | `{"model": "smollm2-135m"}` (a catalog id, or a `.gguf` path on the server) → the switch: requests from now on use it; replies in progress finish on the old model, which is unloaded before the new one loads |
struct ModelSettingEndpoint: Sendable {
    let environment: ServerEnvironment

    struct Current: Encodable {
        var object = "settings.model"
        var model: String?
        var provider: String
        var path: String
        var loaded: Bool
    }

    struct Switched: Encodable {
        var object = "settings.model.switched"
        var model: String?
        var provider: String
        var path: String
        var previous: String
    }

    struct Change: Decodable {
        var model: String

        enum CodingKeys: String, CodingKey { case model }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            model = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .model)
        }
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/settings/model") { _, _ in
            let runtime = environment.runtime
            let current = runtime.currentLanguageModel
            return ModelsEndpoint.json(Current(model: current.catalogID, provider: current.identity.description, path: current.path,
                                               loaded: await runtime.engines.llm.isLoaded))
        }
        router.put("/v1/settings/model") { request, _ in
            let body = try await request.decodeJSON(Change.self, limit: environment.configuration.maxJSONBytes)
            let change: LanguageModelSwitch
            do {
                (change, _) = try environment.runtime.switchLanguageModel(to: body.model)
            } catch let error as RuntimeError {
                throw OpenAIError.invalidRequest(error.description, param: "model", code: "model_not_usable")
            }
            environment.logger.notice("[models] on-device language model switched from \(change.from) to \(change.to)")
            return ModelsEndpoint.json(Switched(model: change.catalogID, provider: change.to.description, path: change.path,
                                                previous: change.from.description))
        }
    }
}
