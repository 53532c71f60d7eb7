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
    /// `conversation.item.create` of a user message: its text and images.
    case createUserMessage(id: String?, text: String, images: [ChatMessage.Part])
    /// `conversation.item.create` of a `function_call_output`: the result of a tool the client ran.
    case createToolOutput(id: String?, callID: String, output: String)
    /// `conversation.item.truncate`: the client played only `audioEndMilliseconds` of an item.
    case truncateItem(id: String, audioEndMilliseconds: Int)
    /// `response.create`: answer now (what was typed or committed).
    case createResponse
    /// `response.cancel`: stop the reply in progress.
    case cancelResponse
    /// `parley.transcript.send` (a Parley extension): the transcript held for review is sent,
    /// as `text` when given (the user's correction, kept beside what was heard), else as heard.
    case sendTranscript(text: String?)
    /// `parley.transcript.discard` (a Parley extension): the turn held for review is dropped.
    case discardTranscript

    /// The event in `text` and the client's `event_id`, if it gave one (errors name it).
    static func parse(_ text: String) -> (event: Result<RealtimeClientEvent, RealtimeProtocolError>, eventID: String?) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), let fields = value.object else {
            return (.failure(RealtimeProtocolError(code: "invalid_json", message: "The frame is not a JSON object: send one event per text frame, such as {\"type\": \"input_audio_buffer.append\", \"audio\": \"…\"}.")), nil)
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
        case "input_audio_buffer.append":
            guard let audio = fields["audio"]?.string else { throw .missing("audio") }
            guard let bytes = Data(base64Encoded: audio) else {
                throw .invalidValue("audio", "'audio' must be base64-encoded 16-bit little-endian PCM.")
            }
            guard bytes.count % 2 == 0 else {
                throw .invalidValue("audio", "'audio' holds an odd number of bytes: 16-bit PCM has two bytes per sample.")
            }
            return .appendAudio(Array(bytes))
        case "input_audio_buffer.commit": return .commitAudio
        case "input_audio_buffer.clear": return .clearAudio
        case "conversation.item.create":
            guard let item = fields["item"]?.object else { throw .missing("item") }
            if item["type"]?.string == "function_call_output" {
                guard let callID = item["call_id"]?.string, !callID.isEmpty else { throw .missing("item.call_id") }
                guard let output = item["output"]?.string else { throw .invalidValue("item.output", "'output' must be a string (the tool's result, e.g. JSON text).") }
                guard output.utf8.count <= ChatCompletionRequest.toolResultLimit else {
                    throw .invalidValue("item.output", "The tool output is \(output.utf8.count) bytes; at most \(ChatCompletionRequest.toolResultLimit) are accepted.")
                }
                return .createToolOutput(id: item["id"]?.string, callID: callID, output: output)
            }
            return try userMessage(item)
        case "conversation.item.truncate":
            guard let id = fields["item_id"]?.string else { throw .missing("item_id") }
            guard let end = fields["audio_end_ms"]?.number, end >= 0 else { throw .missing("audio_end_ms") }
            return .truncateItem(id: id, audioEndMilliseconds: Int(end))
        case "response.create": return .createResponse
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
            throw RealtimeProtocolError(code: "unknown_event", message: "Unknown event type '\(type)'. This server takes session.update, input_audio_buffer.append/commit/clear, conversation.item.create/truncate, response.create/cancel and parley.transcript.send/discard.", param: "type")
        }
    }

    private static func userMessage(_ item: JSONObject) throws(RealtimeProtocolError) -> RealtimeClientEvent {
        let type = item["type"]?.string ?? "message"
        guard type == "message" else {
            throw .invalidValue("item.type", "Only message and function_call_output items can be created here, not '\(type)'.")
        }
        guard item["role"]?.string == "user" else {
            throw .invalidValue("item.role", "Only user messages can be created; the assistant's messages come from its replies, and instructions go in session.update.")
        }
        guard let content = item["content"]?.array, !content.isEmpty else { throw .missing("item.content") }
        var texts: [String] = []
        var images: [ChatMessage.Part] = []
        for (index, part) in content.enumerated() {
            let param = "item.content[\(index)]"
            switch part["type"]?.string {
            case "input_text", "text":
                guard let text = part["text"]?.string else { throw .missing("\(param).text") }
                texts.append(text)
            case "input_image":
                guard let url = part["image_url"]?.string else { throw .missing("\(param).image_url") }
                do {
                    images.append(try ChatCompletionRequest.image(fromDataURL: url, param: "\(param).image_url"))
                } catch {
                    throw .invalidValue("\(param).image_url", error.message)
                }
            default:
                throw .invalidValue("\(param).type", "Unsupported content type \(part["type"]?.string.map { "'\($0)'" } ?? "(none)"): use input_text or input_image (speech goes through input_audio_buffer.append).")
            }
        }
        let text = texts.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty || !images.isEmpty else { throw .invalidValue("item.content", "The message has no text and no image.") }
        return .createUserMessage(id: item["id"]?.string, text: text, images: images)
    }
}
