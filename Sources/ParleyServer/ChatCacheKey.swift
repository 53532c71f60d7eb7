import Crypto
import Foundation
import HTTPTypes
import ParleyCore
import ParleyRuntime
import ParleyData

/// Which chat completions the response cache may answer, and the key each is kept under.
///
/// A request is *non-personal*, and so cacheable, when its `temperature` is 0 (sent as such: a
/// request without one samples at 1), it has no image, and the client did not mark it
/// personal: no `x-parley-private` header with a true value (`1`, `true`, `yes`), no
/// `store: false` (OpenAI's "do not keep this completion"), and no `user` (an end user's id
/// says the content is that user's). Streamed and whole requests share their entries.
///
/// The key is the SHA-256, in hex, of a canonical JSON encoding (sorted keys) of everything
/// that changes the answer: the owner, the provider selection the model name resolved to (not
/// the name as sent, so `gpt-4o-mini` and `auto` share), the on-device model's file (so a
/// switched model does not repeat its predecessor's answers), the messages as the model reads them,
/// and the sampling options (temperature, top_p, max tokens, stop sequences, seed) and the
/// response format. The owner is part of it: keys of one server do not share answers, so that
/// a hit cannot tell one key that another asked the same thing.
enum ChatCacheKey {
    /// The key of `body` (translated into `chat`, resolved to `selection`) for `owner`, or
    /// `nil` when the request may not be cached.
    static func key(
        for body: ChatCompletionRequest, chat: ChatRequest, selection: ProviderSelection, owner: Owner,
        headers: HTTPFields, onDeviceModel: @autoclosure () -> String = ""
    ) -> String? {
        guard
            mayCache(
                temperature: body.temperature, personal: isPersonal(body, headers: headers), hasImages: chat.hasImages,
                hasTools: !chat.tools.isEmpty || chat.messages.contains(where: \.isToolExchange))
        else { return nil }
        let material = Material(
            owner: owner.id, selection: Selection(selection), onDeviceModel: onDeviceModel(), messages: chat.messages,
            temperature: chat.sampling.temperature, topP: chat.sampling.topP, maxTokens: chat.sampling.maxTokens,
            stop: chat.sampling.stop, seed: chat.sampling.seed, format: body.response_format?.type,
            schema: chat.responseSchema.map(Schema.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(material) else { return nil }
        return SHA256.hash(data: data).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// Whether the client marked the request personal.
    static func isPersonal(_ body: ChatCompletionRequest, headers: HTTPFields) -> Bool {
        isPersonal(user: body.user.map { !$0.isEmpty } ?? false, store: body.store, headers: headers)
    }

    /// Whether a request is personal: marked so by `x-parley-private`, `store: false`, or an
    /// end user named (`namesUser`).
    static func isPersonal(user namesUser: Bool, store: Bool?, headers: HTTPFields) -> Bool {
        if let value = headers[.parleyPrivate]?.trimmingCharacters(in: .whitespaces).lowercased(), ["1", "true", "yes"].contains(value) {
            return true
        }
        return store == false || namesUser
    }

    /// The cache's one rule: a request at temperature 0 (sent as such), not personal, without
    /// images, and without tools or tools' results (a reply that may call tools is the
    /// client's to run) may be cached.
    static func mayCache(temperature: Double?, personal: @autoclosure () -> Bool, hasImages: Bool, hasTools: Bool) -> Bool {
        // Whether it is personal is asked last: it reads the headers.
        temperature == 0 && !hasImages && !hasTools && !personal()
    }

    /// What the key is the hash of.
    private struct Material: Encodable {
        var version = "parley-chat-cache/1"
        var owner: String?
        var selection: Selection
        var onDeviceModel: String
        var messages: [ChatMessage]
        var temperature: Double
        var topP: Double
        var maxTokens: Int
        var stop: [String]
        var seed: UInt32?
        var format: String?
        var schema: Schema?
    }

    /// A provider selection, whole (its description leaves out the model and base URL).
    private struct Selection: Encodable {
        var kind: String
        var name: String?
        var baseURL: String?
        var model: String?

        init(_ selection: ProviderSelection) {
            switch selection {
            case .auto: kind = "auto"
            case .local: kind = "local"
            case .named(let name, let baseURL, let model):
                kind = "named"
                self.name = name
                self.baseURL = baseURL
                self.model = model
            }
        }
    }

    private struct Schema: Encodable {
        var name: String
        var schema: JSONValue
        var strict: Bool

        init(_ schema: ResponseSchema) {
            name = schema.name
            self.schema = schema.schema
            strict = schema.strict
        }
    }
}
