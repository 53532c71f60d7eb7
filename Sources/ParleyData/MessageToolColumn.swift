import Foundation
import ParleyCore

/// What the `tool` column of the `message` table holds (in SQLite and in PostgreSQL): a
/// message's part in a tool exchange, as JSON, or `NULL` for a message that has none.
///
/// - An assistant message that calls tools: `{"calls":[{"arguments":"{\"city\":\"Lyon\"}","id":"call_1","name":"weather"}]}`
///   (each call's arguments kept as the JSON text the model wrote).
/// - A tool's result (role `tool`, its content in `text`): `{"call_id":"call_1","name":"weather"}`,
///   with `"is_error":true` when the tool failed.
///
/// Each key is written only when the message has the value, so every combination of
/// ``ConversationMessage/toolCalls``, ``ConversationMessage/toolCallID``,
/// ``ConversationMessage/toolName`` and ``ConversationMessage/isToolError`` reads back as it
/// was written. Rows saved before the column existed are `NULL`: messages without tools.
public struct MessageToolColumn: Sendable, Equatable, Codable {
    /// The calls of an assistant message, in order (empty otherwise).
    public var calls: [ToolCall]
    /// The call a tool's result answers.
    public var callID: String?
    /// The function that produced a tool's result, when known.
    public var name: String?
    /// Whether the tool failed.
    public var isError: Bool

    /// The tool fields of `message`, or `nil` when it has none (the column is then `NULL`).
    public init?(_ message: ConversationMessage) {
        guard !message.toolCalls.isEmpty || message.toolCallID != nil || message.toolName != nil || message.isToolError else {
            return nil
        }
        calls = message.toolCalls
        callID = message.toolCallID
        name = message.toolName
        isError = message.isToolError
    }

    /// Sets the tool fields of `message` to this value's.
    public func apply(to message: inout ConversationMessage) {
        message.toolCalls = calls
        message.toolCallID = callID
        message.toolName = name
        message.isToolError = isError
    }

    /// The column's text for `message`: JSON with sorted keys, or `nil` when it has no tool fields.
    ///
    /// - Throws: An encoding error, which the stores report as ``StoreError/database(reason:)``.
    public static func jsonText(for message: ConversationMessage) throws -> String? {
        guard let column = MessageToolColumn(message) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(column), as: UTF8.self)
    }

    /// Reads the column's text into `message` (nothing changes for `NULL`).
    ///
    /// - Throws: ``StoreError/database(reason:)`` when the text is not the column's JSON.
    public static func read(_ text: String?, into message: inout ConversationMessage) throws(StoreError) {
        guard let text else { return }
        do {
            try JSONDecoder().decode(MessageToolColumn.self, from: Data(text.utf8)).apply(to: &message)
        } catch {
            throw .database(reason: "the tool column holds unreadable JSON (\(error)); it was not written by Parley")
        }
    }

    enum CodingKeys: String, CodingKey {
        case calls, name
        case callID = "call_id"
        case isError = "is_error"
    }

    /// Decodes the column; every key is optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        calls = try container.decodeIfPresent([ToolCall].self, forKey: .calls) ?? []
        callID = try container.decodeIfPresent(String.self, forKey: .callID)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        isError = try container.decodeIfPresent(Bool.self, forKey: .isError) ?? false
    }

    /// Encodes only the values the message has.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !calls.isEmpty { try container.encode(calls, forKey: .calls) }
        try container.encodeIfPresent(callID, forKey: .callID)
        try container.encodeIfPresent(name, forKey: .name)
        if isError { try container.encode(isError, forKey: .isError) }
    }
}
