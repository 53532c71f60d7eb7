import Foundation
import Hummingbird
import ParleyData

/// The browser client's preferences for one key: kept on the server, so that the same person
/// finds their settings on any device and after the browser's storage is cleared.
///
/// Every member is checked (type and range) and an unknown member is refused, so a stored
/// document is always one the client can apply. A member left out of a `PUT` takes its default.
struct ClientPreferences: Codable, Sendable, Equatable {
    /// The model the realtime session asks for (`auto`: the chains).
    var model = "auto"
    /// The system prompt of new conversations (a saved conversation keeps its own).
    var systemPrompt = ""
    /// The reply length of new conversations, in tokens; `nil` for the server's default.
    var maxTokens: Int?
    /// The voice replies are spoken in; empty for the default.
    var voice = ""
    /// How long a pause ends a hands-free turn, in milliseconds (with `server_vad`).
    var silenceMs = 800
    /// What ends a hands-free turn: `semantic_vad` (the words: whole ones after a short pause,
    /// unfinished ones after a long one) or `server_vad` (``silenceMs`` of silence).
    var turnDetection = "semantic_vad"
    /// How soon `semantic_vad` takes the turn: `low`, `medium`, `high` or `auto` (OpenAI's names).
    var eagerness = "auto"
    /// Whether a spoken turn waits in the review (Send, Retry, Append, Cancel).
    var review = true
    /// Whether the microphone stays open between turns (hands-free).
    var continuous = false
    /// Display: large text.
    var largeText = false
    /// Display: a dyslexia-friendly font.
    var dyslexiaFont = false
    /// Display: high contrast.
    var highContrast = false
    /// Display: no animation.
    var reducedMotion = false
    /// Whether the assistant may look things up with the built-in tools (the person's
    /// materials, assignments, the date).
    var builtinTools = true

    static let silenceRange = 200...5_000
    static let turnDetections = ["semantic_vad", "server_vad"]
    static let maxTokensRange = 1...4_096
    static let promptLimit = 8_000
    static let nameLimit = 200

    enum CodingKeys: String, CodingKey, CaseIterable {
        case model, voice, review, continuous
        case systemPrompt = "system_prompt"
        case maxTokens = "max_tokens"
        case silenceMs = "silence_ms"
        case turnDetection = "turn_detection"
        case eagerness
        case largeText = "large_text"
        case dyslexiaFont = "dyslexia_font"
        case highContrast = "high_contrast"
        case reducedMotion = "reduced_motion"
        case builtinTools = "builtin_tools"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ClientPreferences()
        model = try container.decodeIfPresent(String.self, forKey: .model) ?? defaults.model
        systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt) ?? defaults.systemPrompt
        maxTokens = try container.decodeIfPresent(Int.self, forKey: .maxTokens)
        voice = try container.decodeIfPresent(String.self, forKey: .voice) ?? defaults.voice
        silenceMs = try container.decodeIfPresent(Int.self, forKey: .silenceMs) ?? defaults.silenceMs
        turnDetection = try container.decodeIfPresent(String.self, forKey: .turnDetection) ?? defaults.turnDetection
        eagerness = try container.decodeIfPresent(String.self, forKey: .eagerness) ?? defaults.eagerness
        review = try container.decodeIfPresent(Bool.self, forKey: .review) ?? defaults.review
        continuous = try container.decodeIfPresent(Bool.self, forKey: .continuous) ?? defaults.continuous
        largeText = try container.decodeIfPresent(Bool.self, forKey: .largeText) ?? defaults.largeText
        dyslexiaFont = try container.decodeIfPresent(Bool.self, forKey: .dyslexiaFont) ?? defaults.dyslexiaFont
        highContrast = try container.decodeIfPresent(Bool.self, forKey: .highContrast) ?? defaults.highContrast
        reducedMotion = try container.decodeIfPresent(Bool.self, forKey: .reducedMotion) ?? defaults.reducedMotion
        builtinTools = try container.decodeIfPresent(Bool.self, forKey: .builtinTools) ?? defaults.builtinTools
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(systemPrompt, forKey: .systemPrompt)
        try container.encode(maxTokens, forKey: .maxTokens)  // null, not absent: the client sees every member
        try container.encode(voice, forKey: .voice)
        try container.encode(silenceMs, forKey: .silenceMs)
        try container.encode(turnDetection, forKey: .turnDetection)
        try container.encode(eagerness, forKey: .eagerness)
        try container.encode(review, forKey: .review)
        try container.encode(continuous, forKey: .continuous)
        try container.encode(largeText, forKey: .largeText)
        try container.encode(dyslexiaFont, forKey: .dyslexiaFont)
        try container.encode(highContrast, forKey: .highContrast)
        try container.encode(reducedMotion, forKey: .reducedMotion)
        try container.encode(builtinTools, forKey: .builtinTools)
    }

    /// Refuses a value out of range, naming the member and what it may be.
    func validated() throws(OpenAIError) -> ClientPreferences {
        func refuse(_ key: CodingKeys, _ rule: String) -> OpenAIError {
            .invalidRequest("\(key.rawValue) \(rule).", param: key.rawValue, code: "invalid_value")
        }
        let model = model.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !model.isEmpty, model.count <= Self.nameLimit else {
            throw refuse(.model, "must be a model name of 1 to \(Self.nameLimit) characters (auto for the chains)")
        }
        guard systemPrompt.count <= Self.promptLimit else {
            throw refuse(.systemPrompt, "must be at most \(Self.promptLimit) characters")
        }
        if let maxTokens, !Self.maxTokensRange.contains(maxTokens) {
            throw refuse(.maxTokens, "must be from \(Self.maxTokensRange.lowerBound) to \(Self.maxTokensRange.upperBound), or null for the default")
        }
        guard voice.count <= Self.nameLimit else { throw refuse(.voice, "must be at most \(Self.nameLimit) characters") }
        guard Self.silenceRange.contains(silenceMs) else {
            throw refuse(.silenceMs, "must be from \(Self.silenceRange.lowerBound) to \(Self.silenceRange.upperBound) milliseconds")
        }
        guard Self.turnDetections.contains(turnDetection) else {
            throw refuse(.turnDetection, "must be semantic_vad (the words end the turn) or server_vad (a silence of silence_ms does)")
        }
        guard RealtimeSessionSettings.Eagerness(rawValue: eagerness) != nil else {
            throw refuse(.eagerness, "must be one of \(RealtimeSessionSettings.Eagerness.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var checked = self
        checked.model = model
        checked.voice = voice.trimmingCharacters(in: .whitespacesAndNewlines)
        return checked
    }
}

/// The caller's client preferences, kept in the store under their key.
///
/// | route | |
/// | --- | --- |
/// | `GET /v1/settings/preferences` | `{"object": "settings.preferences", "saved", "preferences": {…}}`: the saved preferences, or the defaults with `saved: false` |
/// | `PUT /v1/settings/preferences` | `{"model", "system_prompt", "max_tokens", "voice", "silence_ms", "turn_detection", "eagerness", "review", "continuous", "large_text", "dyslexia_font", "high_contrast", "reduced_motion"}` (each optional; left out: its default) → the saved document |
/// | `DELETE /v1/settings/preferences` | forgets them: the defaults apply again |
struct PreferencesEndpoint: Sendable {
    let environment: ServerEnvironment

    /// Where the preferences live in the store's per-owner state.
    static let stateKey = "client.preferences"

    struct Document: Encodable {
        var object = "settings.preferences"
        var saved: Bool
        var preferences: ClientPreferences
    }

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.get("/v1/settings/preferences") { _, context in
            let store = try await environment.store()
            let text = try await OpenAIError.translating { () async throws(StoreError) in
                try await store.syncState(Self.stateKey, owner: context.owner)
            }
            guard let text else { return try StoreJSON.response(Document(saved: false, preferences: ClientPreferences())) }
            do {
                return try StoreJSON.response(Document(saved: true, preferences: try JSONDecoder().decode(ClientPreferences.self, from: Data(text.utf8))))
            } catch {
                // Written by an older server with other members: the defaults, and say so.
                environment.logger.warning("[preferences] the saved preferences could not be read (\(error)); the defaults are served")
                return try StoreJSON.response(Document(saved: false, preferences: ClientPreferences()))
            }
        }
        router.put("/v1/settings/preferences") { request, context in
            let preferences = try await request.decodeJSON(ClientPreferences.self, limit: environment.configuration.maxJSONBytes).validated()
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let text = String(decoding: try encoder.encode(preferences), as: UTF8.self)
            let store = try await environment.store()
            try await OpenAIError.translating { () async throws(StoreError) in
                try await store.setSyncState(Self.stateKey, to: text, owner: context.owner)
            }
            return try StoreJSON.response(Document(saved: true, preferences: preferences))
        }
        router.delete("/v1/settings/preferences") { _, context in
            let store = try await environment.store()
            try await OpenAIError.translating { () async throws(StoreError) in
                try await store.setSyncState(Self.stateKey, to: nil, owner: context.owner)
            }
            return try StoreJSON.response(Document(saved: false, preferences: ClientPreferences()))
        }
    }
}
