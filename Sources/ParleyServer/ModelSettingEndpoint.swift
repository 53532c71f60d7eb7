import Foundation
import Hummingbird
import ParleyModels
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
            return ModelsEndpoint.json(
                Current(
                    model: current.catalogID, provider: current.identity.description, path: current.path,
                    loaded: await runtime.engines.llm.isLoaded))
        }
        router.put("/v1/settings/model") { request, context in
            // The model serves every key: only an admin's may change it.
            guard context.role == .admin else {
                throw OpenAIError(
                    status: .forbidden, message: "Only an admin key (PARLEY_ADMIN_KEYS) may switch the server's model.",
                    type: "invalid_request_error", code: "admin_key_required")
            }
            let body = try await request.decodeJSON(Change.self, limit: environment.configuration.maxJSONBytes)
            let runtime = environment.runtime
            // A client learns nothing of the server's files: one answer for a model that is not
            // in the catalog, not installed, outside the models folder or not a model at all.
            let unusable = OpenAIError.invalidRequest(
                "That model is not usable here: name an installed catalog model (GET /v1/models) or a .gguf file in the server's models folder.",
                param: "model", code: "model_not_usable")
            guard Self.isInsideModelsFolder(body.model, folder: runtime.paths.models) else { throw unusable }
            let change: LanguageModelSwitch
            do {
                (change, _) = try runtime.switchLanguageModel(to: body.model)
            } catch {
                environment.logger.debug("[models] a switch to a model was refused: \(error)")
                throw unusable
            }
            environment.logger.notice("[models] on-device language model switched from \(change.from) to \(change.to)")
            return ModelsEndpoint.json(
                Switched(
                    model: change.catalogID, provider: change.to.description, path: change.path,
                    previous: change.from.description))
        }
    }

    /// Whether `model` is a catalog id, or a file path that lies inside `folder` once `..`
    /// and symbolic links are resolved.
    static func isInsideModelsFolder(_ model: String, folder: URL) -> Bool {
        let trimmed = model.trimmingCharacters(in: .whitespacesAndNewlines)
        if ModelCatalog.standard.model(trimmed) != nil { return true }
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        let relative =
            trimmed.hasPrefix("/") || trimmed.hasPrefix("~")
            ? URL(fileURLWithPath: (trimmed as NSString).expandingTildeInPath)
            : folder.appendingPathComponent(trimmed)
        let path = relative.standardizedFileURL.resolvingSymlinksInPath().path
        return path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }
}
