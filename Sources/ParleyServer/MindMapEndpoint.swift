import Foundation
import Hummingbird
import ParleyCore
import ParleyMindMap
import ParleyData
import ParleyTasks

/// Mind maps: the learning task's outline (schema-checked structured output), laid out with
/// forces and drawn as an accessible SVG, of a text, a saved conversation or a study material.
///
/// | route | |
/// | --- | --- |
/// | `POST /v1/mindmaps` | `{"thread": ID}`, `{"material": ID}` or `{"text": "…"}` (exactly one), optional `"seed"` → `{"object": "mindmap", "topic", "branches", "svg", "provider", "reason"}` |
///
/// A conversation or material is the caller's own (another key's id is not found). The map is
/// made under the mind-map task's routing: a conversation's words are private, so they stay on
/// the machine.
struct MindMapEndpoint: Sendable {
    let environment: ServerEnvironment

    /// The most text a map is made of; a longer conversation keeps its latest words.
    static let textLimit = 12_000

    struct Request: Decodable {
        var thread: Int64?
        var material: Int64?
        var text: String?
        var seed: UInt64?

        enum CodingKeys: String, CodingKey { case thread, material, text, seed }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            thread = try container.decodeIfPresent(Int64.self, forKey: .thread)
            material = try container.decodeIfPresent(Int64.self, forKey: .material)
            text = try container.decodeIfPresent(String.self, forKey: .text)
            seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
        }
    }

    struct Document: Encodable {
        var object = "mindmap"
        var topic: String
        var branches: [MindMapOutline.Branch]
        var svg: String
        var provider: String
        var reason: String
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/mindmaps") { request, context in
            let body = try await request.decodeJSON(Request.self, limit: environment.configuration.maxJSONBytes)
            let text = try await source(of: body, owner: context.owner)
            let coordinator = try await environment.runtime.taskCoordinator()
            let answer = try await withDeadline(environment.deadline, timeout: environment.timeout) {
                try await coordinator.mindMap(of: text)
            }
            environment.admission.charge(context.owner, usage: answer.result.usage)
            let outline = answer.value
            let svg = MindMapSVG.render(outline.mindMap, options: MindMapLayout.Options(seed: body.seed ?? 1))
            return try StoreJSON.response(
                Document(
                    topic: outline.topic, branches: outline.branches, svg: svg,
                    provider: answer.provider.description, reason: answer.reason))
        }
    }

    /// The words the map is made of: the conversation's turns (as the person meant them, and the
    /// replies), the material's text, or the text sent.
    func source(of body: Request, owner: Owner) async throws -> String {
        let given = [body.thread != nil, body.material != nil, body.text != nil].filter { $0 }.count
        guard given == 1 else {
            throw OpenAIError.invalidRequest(
                "Send exactly one of thread, material or text: what the mind map is of.", param: "thread",
                code: "invalid_value")
        }
        let text: String
        if let thread = body.thread {
            let store = try await environment.store()
            let messages = try await OpenAIError.translating(thread: thread, fromBody: true) { () async throws(StoreError) in
                try await store.messages(in: thread, owner: owner)
            }
            text = messages.compactMap { message -> String? in
                guard message.role == .user || message.role == .assistant else { return nil }
                let words = message.role == .user ? (message.transcript ?? message.typedText ?? message.text) : message.text
                return words.isEmpty ? nil : words
            }.joined(separator: "\n\n")
        } else if let id = body.material {
            let store = try await environment.store()
            let material = try await OpenAIError.translating { () async throws(StoreError) in try await store.material(id, owner: owner) }
            guard let material else { throw MaterialsEndpoint.materialNotFound(String(id)) }
            text = material.text
        } else {
            text = body.text ?? ""
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw OpenAIError.invalidRequest(
                body.thread != nil
                    ? "The conversation has no words yet to make a mind map of."
                    : "The text is empty: there is nothing to make a mind map of.",
                param: body.thread != nil ? "thread" : "text", code: "empty_source")
        }
        return String(trimmed.suffix(Self.textLimit))
    }
}
