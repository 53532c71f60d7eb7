import ParleyCore

/// A server event of the OpenAI Realtime protocol that Parley sends, with its fields typed:
/// one case per event, one `Encodable` struct per event's body.
///
/// Encoded (``text(eventID:beta:)``) as one JSON object: the body's fields in their declared
/// order, then `type` and `event_id`. Event names are the GA ones; a client of the beta
/// protocol (`OpenAI-Beta: realtime=v1`) gets the beta names of the renamed events, and no
/// `conversation.item.done` (the beta protocol has none).
enum RealtimeServerEvent: Sendable, Equatable {
    case sessionCreated(Session)
    case sessionUpdated(Session)
    case inputAudioBufferCleared
    case speechStarted(SpeechStarted)
    case speechStopped(SpeechStopped)
    case inputAudioBufferCommitted(Committed)
    case itemAdded(ItemAdded)
    case itemDone(ItemDone)
    case itemDeleted(ItemID)
    case itemRetrieved(ItemRetrieved)
    case itemTruncated(ItemTruncated)
    case transcriptionDelta(TranscriptionDelta)
    case transcriptionCompleted(TranscriptionCompleted)
    case responseCreated(ResponseBody)
    case responseDone(ResponseBody)
    case outputItemAdded(OutputItem)
    case outputItemDone(OutputItem)
    case contentPartAdded(ContentPartEvent)
    case contentPartDone(ContentPartEvent)
    case outputTextDelta(Delta)
    case outputTextDone(TextDone)
    case outputAudioDelta(Delta)
    case outputAudioDone(ContentRef)
    case outputAudioTranscriptDelta(Delta)
    case outputAudioTranscriptDone(TranscriptDone)
    case functionCallArgumentsDelta(ArgumentsDelta)
    case functionCallArgumentsDone(ArgumentsDone)
    case rateLimitsUpdated(RateLimits)
    case error(ErrorEvent)
    /// A Parley extension: the user speaks over the reply, which is paused.
    case responsePaused(Paused)
    /// A Parley extension: the speech over the paused reply was no interruption; it goes on.
    case responseResumed(Resumed)

    /// The GA name.
    var type: String {
        switch self {
        case .sessionCreated: "session.created"
        case .sessionUpdated: "session.updated"
        case .inputAudioBufferCleared: "input_audio_buffer.cleared"
        case .speechStarted: "input_audio_buffer.speech_started"
        case .speechStopped: "input_audio_buffer.speech_stopped"
        case .inputAudioBufferCommitted: "input_audio_buffer.committed"
        case .itemAdded: "conversation.item.added"
        case .itemDone: "conversation.item.done"
        case .itemDeleted: "conversation.item.deleted"
        case .itemRetrieved: "conversation.item.retrieved"
        case .itemTruncated: "conversation.item.truncated"
        case .transcriptionDelta: "conversation.item.input_audio_transcription.delta"
        case .transcriptionCompleted: "conversation.item.input_audio_transcription.completed"
        case .responseCreated: "response.created"
        case .responseDone: "response.done"
        case .outputItemAdded: "response.output_item.added"
        case .outputItemDone: "response.output_item.done"
        case .contentPartAdded: "response.content_part.added"
        case .contentPartDone: "response.content_part.done"
        case .outputTextDelta: "response.output_text.delta"
        case .outputTextDone: "response.output_text.done"
        case .outputAudioDelta: "response.output_audio.delta"
        case .outputAudioDone: "response.output_audio.done"
        case .outputAudioTranscriptDelta: "response.output_audio_transcript.delta"
        case .outputAudioTranscriptDone: "response.output_audio_transcript.done"
        case .functionCallArgumentsDelta: "response.function_call_arguments.delta"
        case .functionCallArgumentsDone: "response.function_call_arguments.done"
        case .rateLimitsUpdated: "rate_limits.updated"
        case .error: "error"
        case .responsePaused: "parley.response.paused"
        case .responseResumed: "parley.response.resumed"
        }
    }

    /// The beta protocol's name; `nil` for an event the beta protocol does not have.
    var betaType: String? {
        switch self {
        case .itemAdded: "conversation.item.created"
        case .itemDone: nil
        case .outputTextDelta: "response.text.delta"
        case .outputTextDone: "response.text.done"
        case .outputAudioDelta: "response.audio.delta"
        case .outputAudioDone: "response.audio.done"
        case .outputAudioTranscriptDelta: "response.audio_transcript.delta"
        case .outputAudioTranscriptDone: "response.audio_transcript.done"
        default: type
        }
    }

    /// The event as one JSON text frame, or `nil` when the protocol spoken has no such event.
    func text(eventID: String, beta: Bool = false) -> String? {
        guard let name = beta ? betaType : type else { return nil }
        let envelope = Envelope(body: body, type: name, eventID: eventID)
        // Every body is made of strings, numbers, booleans, arrays and JSON values: encoding
        // into a JSONValue cannot fail.
        return (try? OrderedJSONEncoder().encode(envelope))?.text
    }

    private var body: any Encodable & Sendable {
        switch self {
        case .sessionCreated(let body), .sessionUpdated(let body): body
        case .inputAudioBufferCleared: Empty()
        case .speechStarted(let body): body
        case .speechStopped(let body): body
        case .inputAudioBufferCommitted(let body): body
        case .itemAdded(let body): body
        case .itemDone(let body): body
        case .itemDeleted(let body): body
        case .itemRetrieved(let body): body
        case .itemTruncated(let body): body
        case .transcriptionDelta(let body): body
        case .transcriptionCompleted(let body): body
        case .responseCreated(let body), .responseDone(let body): body
        case .outputItemAdded(let body), .outputItemDone(let body): body
        case .contentPartAdded(let body), .contentPartDone(let body): body
        case .outputTextDelta(let body), .outputAudioDelta(let body), .outputAudioTranscriptDelta(let body): body
        case .outputTextDone(let body): body
        case .outputAudioDone(let body): body
        case .outputAudioTranscriptDone(let body): body
        case .functionCallArgumentsDelta(let body): body
        case .functionCallArgumentsDone(let body): body
        case .rateLimitsUpdated(let body): body
        case .error(let body): body
        case .responsePaused(let body): body
        case .responseResumed(let body): body
        }
    }

    /// The body's fields, then the event's name and id.
    private struct Envelope: Encodable {
        var body: any Encodable & Sendable
        var type: String
        var eventID: String

        enum CodingKeys: String, CodingKey { case type, eventID }

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(eventID, forKey: .eventID)
        }
    }

    // MARK: - Bodies

    struct Empty: Encodable, Sendable, Equatable {}

    /// `session.created` and `session.updated`: the session's settings
    /// (``RealtimeSessionSettings/json(id:transcriptionModel:)``).
    struct Session: Encodable, Sendable, Equatable {
        var session: JSONValue
    }

    struct SpeechStarted: Encodable, Sendable, Equatable {
        var audioStartMs: Int
        var itemID: String
    }

    struct SpeechStopped: Encodable, Sendable, Equatable {
        var audioEndMs: Int
        var itemID: String
    }

    struct Committed: Encodable, Sendable, Equatable {
        @ExplicitNull var previousItemID: String?
        var itemID: String
    }

    struct ItemAdded: Encodable, Sendable, Equatable {
        @ExplicitNull var previousItemID: String?
        var item: RealtimeItem
    }

    /// `conversation.item.done`: with `previous_item_id` for an item the client created, without
    /// it for one the server made.
    struct ItemDone: Encodable, Sendable, Equatable {
        var previousItemID: ExplicitNull<String>?
        var item: RealtimeItem

        init(item: RealtimeItem) {
            self.item = item
        }

        init(previousItemID: String?, item: RealtimeItem) {
            self.previousItemID = ExplicitNull(wrappedValue: previousItemID)
            self.item = item
        }
    }

    struct ItemID: Encodable, Sendable, Equatable {
        var itemID: String
    }

    struct ItemRetrieved: Encodable, Sendable, Equatable {
        var item: RealtimeItem
    }

    struct ItemTruncated: Encodable, Sendable, Equatable {
        var itemID: String
        var contentIndex = 0
        var audioEndMs: Int
    }

    /// A partial transcript as a delta, with the whole partial transcript beside it (a Parley
    /// extension: a partial that is not an extension of the last cannot be told as a delta).
    struct TranscriptionDelta: Encodable, Sendable, Equatable {
        struct Whole: Encodable, Sendable, Equatable { var transcript: String }
        var itemID: String
        var contentIndex = 0
        var delta: String
        var parley: Whole
    }

    /// The final transcript; when the language was `auto`, the language it was heard in beside
    /// it (a Parley extension: `"parley": {"language": "it"}`).
    struct TranscriptionCompleted: Encodable, Sendable, Equatable {
        struct Heard: Encodable, Sendable, Equatable { var language: String }
        var itemID: String
        var contentIndex = 0
        var transcript: String
        var parley: Heard?
    }

    struct ResponseBody: Encodable, Sendable, Equatable {
        var response: RealtimeResponse
    }

    struct OutputItem: Encodable, Sendable, Equatable {
        var responseID: String
        var outputIndex: Int
        var item: RealtimeItem
    }

    /// Where a piece of a reply goes: the response, its item, the item's place among the
    /// response's output, and the content part's place in the item.
    struct ContentRef: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex = 0
        var contentIndex = 0
    }

    struct ContentPartEvent: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex = 0
        var contentIndex = 0
        var part: RealtimeContentPart

        init(_ ref: ContentRef, part: RealtimeContentPart) {
            responseID = ref.responseID
            itemID = ref.itemID
            outputIndex = ref.outputIndex
            contentIndex = ref.contentIndex
            self.part = part
        }
    }

    /// A piece of text, transcript or base64 audio.
    struct Delta: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex = 0
        var contentIndex = 0
        var delta: String

        init(_ ref: ContentRef, delta: String) {
            responseID = ref.responseID
            itemID = ref.itemID
            outputIndex = ref.outputIndex
            contentIndex = ref.contentIndex
            self.delta = delta
        }
    }

    struct TextDone: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex = 0
        var contentIndex = 0
        var text: String

        init(_ ref: ContentRef, text: String) {
            responseID = ref.responseID
            itemID = ref.itemID
            outputIndex = ref.outputIndex
            contentIndex = ref.contentIndex
            self.text = text
        }
    }

    struct TranscriptDone: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex = 0
        var contentIndex = 0
        var transcript: String

        init(_ ref: ContentRef, transcript: String) {
            responseID = ref.responseID
            itemID = ref.itemID
            outputIndex = ref.outputIndex
            contentIndex = ref.contentIndex
            self.transcript = transcript
        }
    }

    struct ArgumentsDelta: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex: Int
        var callID: String
        var delta: String
    }

    struct ArgumentsDone: Encodable, Sendable, Equatable {
        var responseID: String
        var itemID: String
        var outputIndex: Int
        var callID: String
        var name: String
        var arguments: String
    }

    /// `rate_limits.updated`: the key's limits (``RateLimits/realtimeEntries(_:at:)``).
    struct RateLimits: Encodable, Sendable, Equatable {
        var rateLimits: [JSONValue]
    }

    struct ErrorEvent: Encodable, Sendable, Equatable {
        struct Body: Encodable, Sendable, Equatable {
            var type: String
            var code: String
            var message: String
            @ExplicitNull var param: String?
            /// The client's event at fault.
            @ExplicitNull var eventID: String?
        }

        var error: Body

        init(_ error: RealtimeProtocolError, eventID: String?) {
            self.error = Body(type: error.type, code: error.code, message: error.message, param: error.param, eventID: eventID)
        }
    }

    struct Paused: Encodable, Sendable, Equatable {
        /// The reply paused, when one is open.
        var responseID: String?
        /// The user's speech.
        var itemID: String
    }

    struct Resumed: Encodable, Sendable, Equatable {
        /// The user's speech.
        @ExplicitNull var itemID: String?
        /// What was heard of it (no turn).
        @ExplicitNull var transcript: String?
        /// The reply that goes on, when one is open.
        var responseID: String?
    }
}

/// An item of a realtime conversation as the protocol shows it.
enum RealtimeItem: Encodable, Sendable, Equatable {
    /// A message: the user's (typed or spoken), the assistant's, or a system instruction.
    case message(id: String, role: String, status: String, content: [RealtimeContentPart])
    /// A tool the model called, for the client to run.
    case functionCall(id: String, status: String, name: String, callID: String, arguments: String)
    /// The output of a tool the client ran.
    case functionCallOutput(id: String, callID: String, output: String)

    /// The item's id.
    var id: String {
        switch self {
        case .message(let id, _, _, _), .functionCall(let id, _, _, _, _), .functionCallOutput(let id, _, _): id
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, object, type, role, status, content, name, callID, arguments, output
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .message(let id, let role, let status, let content):
            try container.encode(id, forKey: .id)
            try container.encode("realtime.item", forKey: .object)
            try container.encode("message", forKey: .type)
            try container.encode(role, forKey: .role)
            try container.encode(status, forKey: .status)
            try container.encode(content, forKey: .content)
        case .functionCall(let id, let status, let name, let callID, let arguments):
            try container.encode(id, forKey: .id)
            try container.encode("realtime.item", forKey: .object)
            try container.encode("function_call", forKey: .type)
            try container.encode(status, forKey: .status)
            try container.encode(name, forKey: .name)
            try container.encode(callID, forKey: .callID)
            try container.encode(arguments, forKey: .arguments)
        case .functionCallOutput(let id, let callID, let output):
            try container.encode(id, forKey: .id)
            try container.encode("realtime.item", forKey: .object)
            try container.encode("function_call_output", forKey: .type)
            try container.encode(callID, forKey: .callID)
            try container.encode(output, forKey: .output)
        }
    }
}

/// A content part of a message item.
enum RealtimeContentPart: Encodable, Sendable, Equatable {
    /// Text: `input_text` (the user's or an instruction), `output_text` or `text` (a reply's).
    case text(kind: String, text: String)
    /// Audio, by its transcript (`nil` until transcribed): `input_audio`, `output_audio` or
    /// `audio`.
    case audio(kind: String, transcript: String?)
    /// An image the user sent (its bytes are not repeated).
    case inputImage

    /// The part of a reply: text only or spoken, as the finished item (`output_…`) or the
    /// response's content part.
    static func reply(_ transcript: String, textOnly: Bool, output: Bool = false) -> RealtimeContentPart {
        textOnly
            ? .text(kind: output ? "output_text" : "text", text: transcript)
            : .audio(kind: output ? "output_audio" : "audio", transcript: transcript)
    }

    private enum CodingKeys: String, CodingKey { case type, text, transcript }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let kind, let text):
            try container.encode(kind, forKey: .type)
            try container.encode(text, forKey: .text)
        case .audio(let kind, let transcript):
            try container.encode(kind, forKey: .type)
            if let transcript { try container.encode(transcript, forKey: .transcript) } else { try container.encodeNil(forKey: .transcript) }
        case .inputImage:
            try container.encode("input_image", forKey: .type)
        }
    }
}

/// A response as `response.created` and `response.done` show it.
struct RealtimeResponse: Encodable, Sendable, Equatable {
    var id: String
    var object = "realtime.response"
    /// `in_progress`, `completed`, `cancelled`, `incomplete` or `failed`.
    var status: String
    var output: [RealtimeItem]
    var outputModalities: [String]
    /// The session's id; `nil` (written as null) for an out-of-band response.
    @ExplicitNull var conversationID: String?
    /// The client's metadata of `response.create`, echoed.
    @ExplicitNull var metadata: JSONValue?
    var usage: Usage?
    /// What Parley tells beside OpenAI's fields (a Parley extension).
    var parley: ParleyTurn?

    struct Usage: Encodable, Sendable, Equatable {
        var inputTokens: Int
        var outputTokens: Int
        var totalTokens: Int

        init(_ usage: ParleyCore.Usage) {
            inputTokens = usage.inputTokens
            outputTokens = usage.outputTokens
            totalTokens = usage.totalTokens
        }
    }

    /// The saved thread, who answered, how long each stage took, and (with `semantic_vad`) why
    /// the turn ended and whether the reply was started during the pause.
    struct ParleyTurn: Encodable, Sendable, Equatable {
        @ExplicitNull var threadID: Int64?
        /// ``TurnResult/providers``, with its own key spellings.
        var providers: JSONValue
        /// ``TurnResult/latency``, with its own key spellings.
        var latencyMs: JSONValue
        /// ``TurnResult/timings``, with its own key spellings.
        var timingsMs: JSONValue
        var interrupted: Bool
        @ExplicitNull var endOfTurn: String?
        var replyStartedEarly: Bool
        /// The built-in tools the server ran for this reply, for a face to show.
        var tools: [Tool]

        struct Tool: Encodable, Sendable, Equatable {
            var name: String
            var arguments: String
            var output: String
            var isError: Bool
            var ms: Double
        }
    }
}
