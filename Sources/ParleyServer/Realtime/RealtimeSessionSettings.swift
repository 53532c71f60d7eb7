import ParleyCore
import ParleyRuntime

/// What a realtime session is set to: what `session.update` changes (in the GA shape or the
/// beta one) and what `session.created` and `session.updated` report.
struct RealtimeSessionSettings: Sendable, Equatable {
    /// How a user's turn ends.
    enum TurnDetection: Sendable, Equatable {
        /// The server's VAD ends the turn after this many seconds of silence, and answers it.
        case serverVAD(silence: Double)
        /// The words decide (`semantic_vad`): words that sound whole end the turn after a short
        /// silence, unfinished ones wait for a long one, as eager as the client asked; the reply
        /// starts during the pause on the on-device model.
        case semanticVAD(eagerness: Eagerness)
        /// The client ends the turn with `input_audio_buffer.commit`.
        case manual
    }

    /// How soon `semantic_vad` takes the turn (OpenAI's `eagerness`; `auto` is `medium`).
    enum Eagerness: String, Sendable, CaseIterable {
        case low, medium, high, auto

        /// Seconds of silence after which words that sound whole end the turn: the
        /// conversation's default (`Tunable.shortSilence`) at medium.
        var shortSilence: Double {
            switch self {
            case .high: 0.3
            case .medium, .auto: Tunable.shortSilence.defaultValue
            case .low: 0.8
            }
        }

        /// Seconds of silence after which any words end the turn: the conversation's default
        /// (`Tunable.endSilence`) at medium.
        var longSilence: Double {
            switch self {
            case .high: 0.8
            case .medium, .auto: Tunable.endSilence.defaultValue
            case .low: 2.0
            }
        }
    }

    /// The rates accepted for input and output PCM (OpenAI's is 24 kHz; others are a Parley
    /// extension for clients that capture at their device's rate).
    static let rates = 8_000...48_000

    /// The model the client asked for (the language model's catalog name or `auto`).
    var model: String
    /// The instructions (the system prompt); `nil` for the runtime's default.
    var instructions: String?
    /// The voice the client named; OpenAI's voice names mean the engine's default voice.
    var voice: String?
    /// The sample rate of the PCM the client sends.
    var inputRate = 24_000
    /// The sample rate of the PCM the server sends.
    var outputRate = 24_000
    /// G.711 instead of 16-bit PCM for the client's audio (`g711_ulaw` / `audio/pcmu`,
    /// `g711_alaw` / `audio/pcma`, at 8 kHz); `nil` for PCM.
    var inputCodec: G711?
    /// G.711 instead of 16-bit PCM for the server's audio; `nil` for PCM.
    var outputCodec: G711?
    /// A transcription session (`type: "transcription"`, or `transcription_session.update`):
    /// speech is transcribed and nothing is answered.
    var transcriptionOnly = false
    /// `input_audio_transcription` (beta) or `audio.input.transcription` (GA): the language and
    /// prompt every transcript is made with; `nil` for the defaults.
    var transcription: TranscriptionOptions?
    /// `turn_detection.threshold`: the voice-activity probability at which speech starts.
    var speechThreshold: Double?
    /// `turn_detection.prefix_padding_ms`: audio kept before detected speech, in seconds.
    var speechPadding: Double?
    /// How turns end.
    var turnDetection: TurnDetection
    /// Whether replies are text only (`output_modalities: ["text"]`): no audio is sent.
    var textOnly = false
    /// The longest reply in tokens; `nil` for the default.
    var maxOutputTokens: Int?
    /// Whether a turn that the server's VAD (or a commit) ends is answered at once
    /// (`turn_detection.create_response`, true by default). When false, its final transcript
    /// is held for the client to review: `response.create` sends it as heard,
    /// `parley.transcript.send` sends the client's correction, `parley.transcript.discard`
    /// drops the turn.
    var createsResponse = true
    /// Whether the user's speech may interrupt a response (`turn_detection.interrupt_response`,
    /// true by default). When it may, speech over a response pauses it (`parley.response.paused`)
    /// and cuts it only when it lasts ``minInterruption`` and its words are no backchannel;
    /// otherwise the response resumes (`parley.response.resumed`) and the speech is no turn.
    /// When it may not, speech during a response is ignored.
    var interruptsResponse = true
    /// Seconds of speech over a response that may cut it; 0 cuts it on the first speech. A
    /// Parley extension: `session.parley.min_interruption_ms` (`Tunable.minInterruption`).
    var minInterruption = InterruptionRules.defaultMinimumSpeech.seconds
    /// The words that never cut a response, replacing the built-in lists (`nil`: those of the
    /// transcription's language). A Parley extension: `session.parley.backchannels`.
    var backchannels: [String]?
    /// Whether the appended audio is cleaned of the response's echo, the streamed response audio
    /// as the reference (for clients that send a raw microphone while playing the response aloud).
    /// A Parley extension: `session.parley.echo_cancellation` (false by default).
    var echoCancellation = false
    /// Which canceller cleans it (`nil`: the standard one, the other when it is missing). A
    /// Parley extension: `session.parley.echo_canceller`, "speex", "webrtc" or "webrtc-then-speex".
    var echoEngine: EchoEngine?
    /// Whether the conversation waits for "Hey Parley" (heard on device) before it listens:
    /// audio appended before the phrase is neither transcribed, saved nor sent (see
    /// `WakeWordGate`). A Parley extension: `session.parley.wake_word` (false by default).
    var wakeWord = false
    /// Seconds of speech between partial transcripts (`transcription.delta` while the user
    /// speaks); `nil` for none. A Parley extension: `session.parley.partial_transcript_interval_ms`.
    var partialInterval: Double?
    /// Whether the client set ``partialInterval`` (to none, perhaps).
    var partialIntervalSet = false
    /// The transcription model the client named, reported back as given.
    var transcriptionModel: String?
    /// The client's tools (`tools`: `[{"type": "function", "name", "description", "parameters"}]`):
    /// a call to one ends the response with a `function_call` item for the client to run.
    var tools: [ToolDefinition] = []
    /// `tool_choice`: auto, none, required or one function.
    var toolChoice: ToolChoice = .auto
    /// Whether the server's built-in tools (the user's materials, assignments, the date) are
    /// offered beside the client's, run by the server. A Parley extension:
    /// `session.parley.builtin_tools`; on unless the server turned them off.
    var builtinTools: Bool

    /// The server's defaults: server VAD after `silence` seconds, 24 kHz PCM both ways, the
    /// built-in tools as `builtinTools` says.
    init(model: String, silence: Double, builtinTools: Bool = false) {
        self.model = model
        self.turnDetection = .serverVAD(silence: silence)
        self.builtinTools = builtinTools
    }

    /// The engine's voice for the voice the client named.
    var engineVoice: String? {
        guard let voice, !voice.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return voice
    }

    /// Whether a turn that ends is answered without a `response.create`: with the server's VAD
    /// and `create_response` (the default). Manual turns (`turn_detection: null`) are
    /// answered on `response.create`, as at OpenAI; a commit alone only transcribes.
    var answersTurns: Bool {
        createsResponse && turnDetection != .manual
    }

    /// Whether a conversation made with `self` must be made anew to follow `other`.
    func needsNewConversation(for other: RealtimeSessionSettings) -> Bool {
        instructions != other.instructions || engineVoice != other.engineVoice || turnDetection != other.turnDetection
            || transcription != other.transcription || transcriptionOnly != other.transcriptionOnly || partialIntervalSet != other.partialIntervalSet
            || speechThreshold != other.speechThreshold || speechPadding != other.speechPadding
            || maxOutputTokens != other.maxOutputTokens || partialInterval != other.partialInterval
            || tools != other.tools || toolChoice != other.toolChoice || builtinTools != other.builtinTools
            || interruptsResponse != other.interruptsResponse || minInterruption != other.minInterruption || backchannels != other.backchannels
            || echoCancellation != other.echoCancellation || echoEngine != other.echoEngine || wakeWord != other.wakeWord
    }

    // MARK: - session.update

    /// Applies the `session` object of a `session.update`; fields it leaves out keep their
    /// values, and nothing changes when one of them is invalid.
    mutating func apply(_ session: JSONValue) throws(RealtimeProtocolError) {
        guard let fields = session.object else { throw .invalidValue("session", "'session' must be an object.") }
        var updated = self
        if let value = fields["type"] {
            switch value.string {
            case "realtime": updated.transcriptionOnly = false
            case "transcription": updated.transcriptionOnly = true
            default: throw .invalidValue("session.type", "'type' must be realtime or transcription.")
            }
        }
        if let value = fields["input_audio_transcription"] {
            updated.transcription = try Self.transcription(value, "session.input_audio_transcription")
            updated.transcriptionModel = value["model"]?.string
        }
        if let value = fields["instructions"] {
            guard let text = value.string ?? (value.isNull ? "" : nil) else {
                throw .invalidValue("session.instructions", "'instructions' must be a string.")
            }
            updated.instructions = text.isEmpty ? nil : text
        }
        if let value = fields["output_modalities"] ?? fields["modalities"] {
            updated.textOnly = try Self.textOnly(value, param: fields["output_modalities"] != nil ? "session.output_modalities" : "session.modalities")
        }
        if let value = fields["max_output_tokens"] ?? fields["max_response_output_tokens"] {
            updated.maxOutputTokens = try Self.maxTokens(value)
        }
        // The beta shape: flat fields.
        if let value = fields["voice"] { updated.voice = try Self.string(value, "session.voice") }
        if let value = fields["input_audio_format"] { (updated.inputRate, updated.inputCodec) = try Self.betaFormat(value, "session.input_audio_format") }
        if let value = fields["output_audio_format"] { (updated.outputRate, updated.outputCodec) = try Self.betaFormat(value, "session.output_audio_format") }
        if let value = fields["turn_detection"] { try updated.applyTurnDetection(value, "session.turn_detection") }
        // The GA shape: audio.input and audio.output.
        if let audio = fields["audio"] {
            guard let audio = audio.object else { throw .invalidValue("session.audio", "'audio' must be an object.") }
            if let input = audio["input"]?.object {
                if let format = input["format"] { (updated.inputRate, updated.inputCodec) = try Self.format(format, "session.audio.input.format") }
                if let value = input["turn_detection"] { try updated.applyTurnDetection(value, "session.audio.input.turn_detection") }
                if let value = input["transcription"] {
                    updated.transcription = try Self.transcription(value, "session.audio.input.transcription")
                    updated.transcriptionModel = value["model"]?.string
                }
            }
            if let output = audio["output"]?.object {
                if let format = output["format"] { (updated.outputRate, updated.outputCodec) = try Self.format(format, "session.audio.output.format") }
                if let value = output["voice"] { updated.voice = try Self.string(value, "session.audio.output.voice") }
            }
        }
        if let value = fields["tools"] { updated.tools = try Self.tools(value) }
        if let value = fields["tool_choice"] { updated.toolChoice = try Self.toolChoice(value, among: updated.tools) }
        if updated.toolChoice.forcesCall, updated.tools.isEmpty {
            throw .invalidValue("session.tool_choice", "'tool_choice' requires a call, but the session has no tools.")
        }
        if case .function(let name) = updated.toolChoice, !updated.tools.contains(where: { $0.name == name }) {
            throw .invalidValue("session.tool_choice", "'tool_choice' names the function '\(name.prefix(64))', which is not among the session's tools.")
        }
        // Parley's extensions, in an object of their own that OpenAI's clients never send.
        if let parley = fields["parley"] {
            guard let parley = parley.object else { throw .invalidValue("session.parley", "'parley' must be an object.") }
            if let value = Self.field(.partialInterval, in: parley) {
                updated.partialInterval = try Self.partialInterval(value)
                updated.partialIntervalSet = true
            }
            if let value = Self.field(.minInterruption, in: parley) {
                updated.minInterruption = try Self.seconds(value, .minInterruption, "session.parley")
            }
            if let value = parley["backchannels"] {
                if value.isNull {
                    updated.backchannels = nil
                } else {
                    let words = value.array?.compactMap(\.string) ?? []
                    guard words.count == value.array?.count, !words.isEmpty, words.count <= 200 else {
                        throw .invalidValue(
                            "session.parley.backchannels",
                            "'backchannels' must be an array of words such as [\"mm-hmm\", \"yeah\"], or null for the built-in lists.")
                    }
                    updated.backchannels = words
                }
            }
            if let value = parley["builtin_tools"] {
                guard let on = value.bool else { throw .invalidValue("session.parley.builtin_tools", "'builtin_tools' must be true or false.") }
                updated.builtinTools = on
            }
            if let value = parley["echo_cancellation"] {
                guard let on = value.bool else { throw .invalidValue("session.parley.echo_cancellation", "'echo_cancellation' must be true or false.") }
                updated.echoCancellation = on
            }
            if let value = parley["echo_canceller"] {
                if value.isNull {
                    updated.echoEngine = nil
                } else {
                    guard let name = value.string, let engine = EchoEngine(rawValue: name) else {
                        throw .invalidValue(
                            "session.parley.echo_canceller", "'echo_canceller' must be \"speex\", \"webrtc\", \"webrtc-then-speex\" or null (the standard one)."
                        )
                    }
                    updated.echoEngine = engine
                }
            }
            if let value = parley["wake_word"] {
                guard let on = value.bool else { throw .invalidValue("session.parley.wake_word", "'wake_word' must be true or false.") }
                updated.wakeWord = on
            }
        }
        self = updated
    }

    /// A turn detection object: how turns end, whether they are answered, and the VAD's
    /// `threshold` and `prefix_padding_ms`.
    private mutating func applyTurnDetection(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) {
        turnDetection = try Self.turnDetection(value, param)
        createsResponse = try Self.createsResponse(value, param)
        interruptsResponse = try Self.flag(value, "interrupt_response", param)
        guard let detection = value.object else { return }
        if let threshold = Self.field(.speechThreshold, in: detection), !threshold.isNull {
            speechThreshold = try Self.seconds(threshold, .speechThreshold, param)
        }
        if let padding = Self.field(.speechPadding, in: detection), !padding.isNull {
            speechPadding = try Self.seconds(padding, .speechPadding, param)
        }
    }

    /// A transcription object (`{"model", "language", "prompt"}`) or null for the defaults.
    private static func transcription(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> TranscriptionOptions? {
        if value.isNull { return nil }
        guard let fields = value.object else {
            throw .invalidValue(param, "'\(param)' must be an object such as {\"model\": \"whisper-1\", \"language\": \"en\"}, or null.")
        }
        // No language: the server's (`parley serve --language`), else English (RealtimeConnection).
        var options = TranscriptionOptions(language: nil)
        if let language = fields["language"], !language.isNull {
            guard let code = language.string, code.count <= 16, (try? LanguageSetting(parsing: code)) != nil else {
                throw .invalidValue("\(param).language", "'language' must be auto or a language code such as en, it, es, fr or de.")
            }
            options.language = code
        }
        if let prompt = fields["prompt"], !prompt.isNull {
            guard let text = prompt.string else { throw .invalidValue("\(param).prompt", "'prompt' must be a string.") }
            options.prompt = text.isEmpty ? nil : text
        }
        return options
    }

    /// `tools`: realtime's flat function tools (`{"type": "function", "name", "description",
    /// "parameters"}`); the Chat Completions shape (`"function": {…}`) is read too.
    private static func tools(_ value: JSONValue) throws(RealtimeProtocolError) -> [ToolDefinition] {
        if value.isNull { return [] }
        guard let items = value.array else { throw .invalidValue("session.tools", "'tools' must be an array of function tools.") }
        do {
            return try ToolDefinition.openAI(items)
        } catch {
            if case .notAFunction = error.reason {
                throw .invalidValue("session.tools[\(error.index)]", "Each tool must be {\"type\": \"function\", \"name\": …, \"parameters\": {…}}.")
            }
            throw .invalidValue("session.tools[\(error.index)]", error.description)
        }
    }

    /// `tool_choice`: `"auto"`, `"none"`, `"required"` or `{"type": "function", "name": …}`.
    private static func toolChoice(_ value: JSONValue, among tools: [ToolDefinition]) throws(RealtimeProtocolError) -> ToolChoice {
        switch value {
        case .string("auto"), .null: return .auto
        case .string("none"): return .none
        case .string("required"): return .required
        default:
            guard value["type"]?.string == "function", let name = value["name"]?.string ?? value["function"]?["name"]?.string else {
                throw .invalidValue("session.tool_choice", "'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"name\": …}.")
            }
            return .function(name)
        }
    }

    /// `create_response` of a turn detection object (true when absent, or for manual turns).
    private static func createsResponse(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> Bool {
        guard let detection = value.object, let create = detection["create_response"] else { return true }
        guard case .bool(let flag) = create else {
            throw .invalidValue("\(param).create_response", "'create_response' must be true or false.")
        }
        return flag
    }

    /// A true-or-false field of a turn detection object (true when absent, or for manual turns).
    private static func flag(_ value: JSONValue, _ name: String, _ param: String) throws(RealtimeProtocolError) -> Bool {
        guard let detection = value.object, let field = detection[name] else { return true }
        guard case .bool(let flag) = field else {
            throw .invalidValue("\(param).\(name)", "'\(name)' must be true or false.")
        }
        return flag
    }

    /// The interruption rules of a conversation made with these settings (`nil`: the first
    /// speech cuts a response).
    var interruption: InterruptionRules? {
        guard interruptsResponse, minInterruption > 0 else { return nil }
        var rules = InterruptionRules(minimumSpeech: .seconds(minInterruption))
        if let backchannels { rules.backchannels = Backchannels(phrases: ["*": backchannels]) }
        return rules
    }

    /// `partial_transcript_interval_ms` (`Tunable.partialInterval`), or 0 or null for no
    /// partial transcripts.
    private static func partialInterval(_ value: JSONValue) throws(RealtimeProtocolError) -> Double? {
        if value.isNull || value.number == 0 { return nil }
        return try seconds(value, .partialInterval, "session.parley")
    }

    // MARK: - Tunables

    /// The name of `tunable`'s realtime field.
    static func name(_ tunable: Tunable) -> String {
        tunable.field?.name ?? tunable.id
    }

    /// The value of `tunable`'s realtime field in `object`, if it is there.
    private static func field(_ tunable: Tunable, in object: JSONObject) -> JSONValue? {
        tunable.field.flatMap { object[$0.name] }
    }

    /// `value` of `tunable`'s field of the object at `param`, checked against the tunable's
    /// range, in the tunable's unit (seconds for a field in milliseconds).
    private static func seconds(_ value: JSONValue, _ tunable: Tunable, _ param: String) throws(RealtimeProtocolError) -> Double {
        let scale = tunable.field?.scale ?? 1
        guard let number = value.number, tunable.accepts(number / scale) else {
            throw .invalidValue("\(param).\(tunable.field?.name ?? tunable.id)", tunable.fieldRefusal)
        }
        return number / scale
    }

    private static func string(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> String {
        guard let text = value.string else { throw .invalidValue(param, "'\(param)' must be a string.") }
        return text
    }

    private static func textOnly(_ value: JSONValue, param: String) throws(RealtimeProtocolError) -> Bool {
        guard let items = value.array?.compactMap(\.string), items.count == value.array?.count, !items.isEmpty,
            items.allSatisfy({ $0 == "text" || $0 == "audio" })
        else {
            throw .invalidValue(param, "'\(param)' must be [\"audio\"] or [\"text\"].")
        }
        return !items.contains("audio")
    }

    private static func maxTokens(_ value: JSONValue) throws(RealtimeProtocolError) -> Int? {
        if value.string == "inf" || value.isNull { return nil }
        guard let number = value.integer(in: 1...4_096) else {
            throw .invalidValue("session.max_output_tokens", "'max_output_tokens' must be an integer from 1 to 4096, or \"inf\".")
        }
        return number
    }

    /// A GA format object: `{"type": "audio/pcm", "rate": 24000}`, or G.711's
    /// `{"type": "audio/pcmu"}` / `{"type": "audio/pcma"}` (8 kHz).
    private static func format(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> (Int, G711?) {
        guard let format = value.object else { throw .invalidValue(param, "'\(param)' must be an object such as {\"type\": \"audio/pcm\", \"rate\": 24000}.") }
        let type = format["type"]?.string ?? "audio/pcm"
        switch type {
        case "audio/pcm": break
        case "audio/pcmu": return (G711.sampleRate, .muLaw)
        case "audio/pcma": return (G711.sampleRate, .aLaw)
        default:
            throw .invalidValue(
                "\(param).type", "Unsupported audio format '\(type)': this server speaks audio/pcm (16-bit little-endian mono), audio/pcmu and audio/pcma.")
        }
        guard let rate = format["rate"] else { return (24_000, nil) }
        guard let number = rate.integer(in: rates) else {
            throw .invalidValue(
                "\(param).rate", "'rate' must be a whole number of samples per second from \(rates.lowerBound) to \(rates.upperBound) (24000 by default).")
        }
        return (number, nil)
    }

    /// A beta format name: `pcm16` (at 24 kHz), `g711_ulaw` or `g711_alaw` (at 8 kHz).
    private static func betaFormat(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> (Int, G711?) {
        switch value.string {
        case "pcm16": return (24_000, nil)
        case "g711_ulaw": return (G711.sampleRate, .muLaw)
        case "g711_alaw": return (G711.sampleRate, .aLaw)
        default:
            throw .invalidValue(
                param, "Unsupported audio format \(value.string.map { "'\($0)'" } ?? "value"): this server speaks pcm16, g711_ulaw and g711_alaw.")
        }
    }

    private static func turnDetection(_ value: JSONValue, _ param: String) throws(RealtimeProtocolError) -> TurnDetection {
        if value.isNull { return .manual }
        guard let detection = value.object else { throw .invalidValue(param, "'\(param)' must be an object or null.") }
        let type = detection["type"]?.string ?? "server_vad"
        if type == "semantic_vad" {
            guard let value = detection["eagerness"] else { return .semanticVAD(eagerness: .auto) }
            guard let eagerness = value.string.flatMap(Eagerness.init(rawValue:)) else {
                throw .invalidValue("\(param).eagerness", "'eagerness' must be one of low, medium, high or auto.")
            }
            return .semanticVAD(eagerness: eagerness)
        }
        guard type == "server_vad" else {
            throw .invalidValue("\(param).type", "Unsupported turn detection '\(type)': use server_vad, semantic_vad, or null to commit turns yourself.")
        }
        guard let silence = field(.endSilence, in: detection) else { return .serverVAD(silence: Tunable.endSilence.defaultValue) }
        return .serverVAD(silence: try seconds(silence, .endSilence, param))
    }

    // MARK: - Reporting

    /// The session object of `session.created` and `session.updated` (GA shape).
    func json(id: String, transcriptionModel: String) -> JSONValue {
        let pcm = { (rate: Int, codec: G711?) -> JSONValue in
            switch codec {
            case .muLaw?: .object(["type": .string("audio/pcmu")])
            case .aLaw?: .object(["type": .string("audio/pcma")])
            case nil: .object(["type": .string("audio/pcm"), "rate": .number(Double(rate))])
            }
        }
        var detectionFields: JSONObject = ["create_response": .bool(createsResponse), "interrupt_response": .bool(interruptsResponse)]
        detectionFields[Self.name(.speechThreshold)] = .number(Tunable.speechThreshold.wire(speechThreshold ?? Tunable.speechThreshold.defaultValue))
        detectionFields[Self.name(.speechPadding)] = .number(Tunable.speechPadding.wire(speechPadding ?? Tunable.speechPadding.defaultValue))
        let detection: JSONValue =
            switch turnDetection {
            case .manual: .null
            case .serverVAD(let silence):
                .object(detectionFields.merging(["type": .string("server_vad"), Self.name(.endSilence): .number(Tunable.endSilence.wire(silence))]))
            case .semanticVAD(let eagerness):
                .object(detectionFields.merging(["type": .string("semantic_vad"), "eagerness": .string(eagerness.rawValue)]))
            }
        var transcriptionFields: JSONObject = ["model": .string(self.transcriptionModel ?? transcriptionModel)]
        if let language = transcription?.language { transcriptionFields["language"] = .string(language) }
        if let prompt = transcription?.prompt { transcriptionFields["prompt"] = .string(prompt) }
        return .object([
            "type": .string(transcriptionOnly ? "transcription" : "realtime"), "object": .string("realtime.session"), "id": .string(id),
            "model": .string(model),
            "instructions": instructions.map(JSONValue.string) ?? .null,
            "output_modalities": .array([.string(textOnly ? "text" : "audio")]),
            "max_output_tokens": maxOutputTokens.map { .number(Double($0)) } ?? .string("inf"),
            "audio": .object([
                "input": .object([
                    "format": pcm(inputRate, inputCodec), "turn_detection": detection,
                    "transcription": .object(transcriptionFields),
                ]),
                "output": .object(["format": pcm(outputRate, outputCodec), "voice": voice.map(JSONValue.string) ?? .string("default")]),
            ]),
            "tools": .array(
                tools.map { tool in
                    [
                        "type": "function", "name": .string(tool.name), "description": tool.description.map(JSONValue.string) ?? .null,
                        "parameters": tool.parameters,
                    ]
                }),
            "tool_choice": Self.choiceJSON(toolChoice),
            "parley": .object([
                Self.name(.partialInterval): partialInterval.map { .number(Tunable.partialInterval.wire($0)) } ?? .null,
                "builtin_tools": .bool(builtinTools),
                Self.name(.minInterruption): .number(Tunable.minInterruption.wire(minInterruption)),
                "backchannels": backchannels.map { .array($0.map(JSONValue.string)) } ?? .null,
                "echo_cancellation": .bool(echoCancellation),
                "echo_canceller": echoEngine.map { .string($0.rawValue) } ?? .null,
                "wake_word": .bool(wakeWord),
            ]),
        ])
    }

    private static func choiceJSON(_ choice: ToolChoice) -> JSONValue {
        switch choice {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .function(let name): ["type": "function", "name": .string(name)]
        }
    }
}
