import Foundation
import ParleyCore

/// An event a realtime client sends, parsed from one text frame. GA and beta names and
/// shapes are both accepted.
enum RealtimeClientEvent: Sendable, Equatable {
    /// `session.update`: the `session` object.
    case updateSession(JSONValue)
    /// `input_audio_buffer.append`: PCM bytes (base64-decoded).
    case appendAudio([UInt8])
    /// `input_audio_buffer.commit`: the user's turn ends here (manual turns).
    case commitAudio
    /// `input_audio_buffer.clear`: the audio heard since the last turn is dropped.
    case clearAudio
    /// `conversation.item.create` of a message: the user's (text and images), the assistant's
    /// or an instruction (`system`), at a position in the conversation.
    case createMessage(id: String?, role: ChatMessage.Role, text: String, images: [ChatMessage.Part], position: ItemPosition)
    /// `conversation.item.delete`.
    case deleteItem(id: String)
    /// `conversation.item.retrieve`.
    case retrieveItem(id: String)
    /// `conversation.item.create` of a `function_call_output`: the result of a tool the client ran.
    case createToolOutput(id: String?, callID: String, output: String)
    /// `conversation.item.truncate`: the client played only `audioEndMilliseconds` of an item.
    case truncateItem(id: String, audioEndMilliseconds: Int)
    /// `response.create`: answer now (what was typed or committed, or the conversation as it
    /// stands), with the response's own parameters.
    case createResponse(ResponseParameters)
    /// `response.cancel`: stop the reply in progress.
    case cancelResponse
    /// `parley.transcript.send` (a Parley extension): the transcript held for review is sent,
    /// as `text` when given (the user's correction, kept beside what was heard), else as heard.
    case sendTranscript(text: String?)
    /// `parley.transcript.discard` (a Parley extension): the turn held for review is dropped.
    case discardTranscript

    /// Where a created item goes (`previous_item_id`).
    enum ItemPosition: Sendable, Equatable {
        /// At the end (no `previous_item_id`, or null).
        case end
        /// At the start (`"root"`).
        case start
        /// Right after this item.
        case after(String)
    }

    /// The `response` object of `response.create`.
    struct ResponseParameters: Sendable, Equatable {
        /// Instructions for this response only.
        var instructions: String?
        /// Text only (`["text"]`), audio (`["audio"]`), or the session's choice (`nil`).
        var textOnly: Bool?
        /// The client's metadata, echoed in `response.created` and `response.done`.
        var metadata: JSONValue?
        /// `conversation: "none"`: an out-of-band response, kept out of the conversation.
        var outOfBand = false
        /// `input`: the messages an out-of-band response answers instead of the conversation.
        var input: [ChatMessage]?
    }

    /// The event in `text` and the client's `event_id`, if it gave one (errors name it).
    static func parse(_ text: String) -> (event: Result<RealtimeClientEvent, RealtimeProtocolError>, eventID: String?) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), let fields = value.object else {
            return (
                .failure(
                    RealtimeProtocolError(
                        code: "invalid_json",
                        message:
                            "The frame is not a JSON object: send one event per text frame, such as {\"type\": \"input_audio_buffer.append\", \"audio\": \"…\"}."
                    )), nil
            )
        }
        let eventID = fields["event_id"]?.string
        guard let type = fields["type"]?.string else { return (.failure(.missing("type")), eventID) }
        do {
            return (.success(try event(type, fields)), eventID)
        } catch {
            return (.failure(error), eventID)
        }
    }

    private static func event(_ type: String, _ fields: JSONObject) throws(RealtimeProtocolError) -> RealtimeClientEvent {
        switch type {
        case "session.update":
            guard let session = fields["session"] else { throw .missing("session") }
            return .updateSession(session)
        case "transcription_session.update":
            // The beta's transcription sessions: the same settings, and nothing is answered.
            guard var session = fields["session"]?.object else { throw .missing("session") }
            session["type"] = "transcription"
            return .updateSession(.object(session))
        case "conversation.item.delete", "conversation.item.retrieve":
            guard let id = fields["item_id"]?.string, !id.isEmpty else { throw .missing("item_id") }
            return type == "conversation.item.delete" ? .deleteItem(id: id) : .retrieveItem(id: id)
        case "input_audio_buffer.append":
            guard let audio = fields["audio"]?.string else { throw .missing("audio") }
            guard let bytes = Data(base64Encoded: audio) else {
                throw .invalidValue("audio", "'audio' must be base64-encoded 16-bit little-endian PCM.")
            }
            return .appendAudio(Array(bytes))
        case "input_audio_buffer.commit": return .commitAudio
        case "input_audio_buffer.clear": return .clearAudio
        case "conversation.item.create":
            guard let item = fields["item"]?.object else { throw .missing("item") }
            if item["type"]?.string == "function_call_output" {
                guard let callID = item["call_id"]?.string, !callID.isEmpty else { throw .missing("item.call_id") }
                guard let output = item["output"]?.string else {
                    throw .invalidValue("item.output", "'output' must be a string (the tool's result, e.g. JSON text).")
                }
                guard output.utf8.count <= ChatCompletionRequest.toolResultLimit else {
                    throw .invalidValue(
                        "item.output", "The tool output is \(output.utf8.count) bytes; at most \(ChatCompletionRequest.toolResultLimit) are accepted.")
                }
                return .createToolOutput(id: item["id"]?.string, callID: callID, output: output)
            }
            let position: ItemPosition
            switch fields["previous_item_id"] {
            case nil, .null?: position = .end
            case .string("root")?: position = .start
            case .string(let id)?: position = .after(id)
            default: throw .invalidValue("previous_item_id", "'previous_item_id' must be an item's id, \"root\" or null.")
            }
            return try message(item, position: position)
        case "conversation.item.truncate":
            guard let id = fields["item_id"]?.string else { throw .missing("item_id") }
            guard let value = fields["audio_end_ms"], !value.isNull else { throw .missing("audio_end_ms") }
            // At most a day of audio: a bound, not a trap, for any number a client sends.
            guard let end = value.integer(in: 0...86_400_000) else {
                throw .invalidValue("audio_end_ms", "'audio_end_ms' must be a whole number of milliseconds from 0 to 86400000.")
            }
            return .truncateItem(id: id, audioEndMilliseconds: end)
        case "response.create": return .createResponse(try responseParameters(fields["response"]))
        case "response.cancel": return .cancelResponse
        case "parley.transcript.send":
            guard let value = fields["text"], !value.isNull else { return .sendTranscript(text: nil) }
            guard let text = value.string else { throw .invalidValue("text", "'text' must be the transcript to send, as a string.") }
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .invalidValue("text", "'text' is empty: send parley.transcript.discard to drop the turn.")
            }
            return .sendTranscript(text: text)
        case "parley.transcript.discard": return .discardTranscript
        default:
            throw RealtimeProtocolError(
                code: "unknown_event",
                message:
                    "Unknown event type '\(type)'. This server takes session.update, transcription_session.update, input_audio_buffer.append/commit/clear, conversation.item.create/delete/retrieve/truncate, response.create/cancel and parley.transcript.send/discard.",
                param: "type")
        }
    }

    private static func responseParameters(_ value: JSONValue?) throws(RealtimeProtocolError) -> ResponseParameters {
        var parameters = ResponseParameters()
        guard let value, !value.isNull else { return parameters }
        guard let fields = value.object else { throw .invalidValue("response", "'response' must be an object.") }
        if let instructions = fields["instructions"], !instructions.isNull {
            guard let text = instructions.string else { throw .invalidValue("response.instructions", "'instructions' must be a string.") }
            parameters.instructions = text.isEmpty ? nil : text
        }
        if let modalities = fields["output_modalities"] ?? fields["modalities"], !modalities.isNull {
            guard let names = modalities.array?.compactMap(\.string), !names.isEmpty, names.allSatisfy({ $0 == "text" || $0 == "audio" }) else {
                throw .invalidValue("response.output_modalities", "'output_modalities' must be [\"audio\"] or [\"text\"].")
            }
            parameters.textOnly = !names.contains("audio")
        }
        if let metadata = fields["metadata"], !metadata.isNull {
            guard let entries = metadata.object, entries.count <= 16, entries.values.allSatisfy({ ($0.string?.count ?? 513) <= 512 }) else {
                throw .invalidValue("response.metadata", "'metadata' must be an object of at most 16 strings of at most 512 characters.")
            }
            parameters.metadata = metadata
        }
        switch fields["conversation"] {
        case nil, .null?, .string("auto")?: break
        case .string("none")?: parameters.outOfBand = true
        default: throw .invalidValue("response.conversation", "'conversation' must be \"auto\" or \"none\".")
        }
        if let input = fields["input"], !input.isNull {
            guard let items = input.array else { throw .invalidValue("response.input", "'input' must be an array of message items.") }
            guard items.count <= Self.inputItemLimit else {
                throw .invalidValue("response.input", "'input' holds \(items.count) items; at most \(Self.inputItemLimit) are taken.")
            }
            var messages: [ChatMessage] = []
            for entry in items {
                guard let object = entry.object else { throw .invalidValue("response.input", "Each input item must be a message object.") }
                guard case .createMessage(_, let role, let text, let images, _) = try message(object, position: .end) else { continue }
                messages.append(ChatMessage(role: role, parts: images + (text.isEmpty ? [] : [.text(text)])))
            }
            parameters.input = messages
        }
        return parameters
    }

    /// The most items an out-of-band response's `input` holds.
    static let inputItemLimit = 1_000

    private static func message(_ item: JSONObject, position: ItemPosition) throws(RealtimeProtocolError) -> RealtimeClientEvent {
        let type = item["type"]?.string ?? "message"
        guard type == "message" else {
            throw .invalidValue("item.type", "Only message and function_call_output items can be created here, not '\(type)'.")
        }
        let role: ChatMessage.Role
        switch item["role"]?.string {
        case "user": role = .user
        case "assistant": role = .assistant
        case "system", "developer": role = .system
        default: throw .invalidValue("item.role", "'role' must be user, assistant or system.")
        }
        guard let content = item["content"]?.array, !content.isEmpty else { throw .missing("item.content") }
        var texts: [String] = []
        var images: [ChatMessage.Part] = []
        for (index, part) in content.enumerated() {
            let param = "item.content[\(index)]"
            switch part["type"]?.string {
            case "input_text", "text", "output_text":
                guard let text = part["text"]?.string else { throw .missing("\(param).text") }
                texts.append(text)
            case "audio", "output_audio",
                "input_audio" where part["transcript"]?.string != nil:
                // Earlier speech, as its transcript (a client restoring its conversation).
                texts.append(part["transcript"]?.string ?? "")
            case "input_image" where role == .user:
                guard let url = part["image_url"]?.string else { throw .missing("\(param).image_url") }
                do {
                    images.append(try ChatCompletionRequest.image(fromDataURL: url, param: "\(param).image_url"))
                } catch {
                    throw .invalidValue("\(param).image_url", error.message)
                }
            default:
                throw .invalidValue(
                    "\(param).type",
                    "Unsupported content type \(part["type"]?.string.map { "'\($0)'" } ?? "(none)"): use input_text or input_image (speech goes through input_audio_buffer.append)."
                )
            }
        }
        let text = texts.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty || !images.isEmpty else { throw .invalidValue("item.content", "The message has no text and no image.") }
        return .createMessage(id: item["id"]?.string, role: role, text: text, images: images, position: position)
    }
}
