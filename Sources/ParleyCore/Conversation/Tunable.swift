/// A setting people tune, defined once: what it is called, what it means, its default and the
/// values it takes, and how each face spells it (the flag of `parley talk` or `parley serve`,
/// an environment variable, the field of a realtime session). The faces read their spelling,
/// default and range from here, so that a default is written once and every face takes the
/// same values. Settings whose value is a name (the voice, the models) are ``Tunable/Name``s.
public struct Tunable: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// What the value measures.
    public enum Unit: String, Sendable, Hashable {
        /// Seconds (a realtime field may carry milliseconds: see ``Field/scale``).
        case seconds
        /// A probability, from 0 to 1.
        case probability
        /// Minutes.
        case minutes
        /// Megabytes (MiB: 1,048,576 bytes).
        case megabytes
    }

    /// A field of a realtime session's `session.update` that sets the tunable.
    public struct Field: Sendable, Hashable {
        /// The object that holds it (`turn_detection`, Parley's own `parley`).
        public let object: String
        /// Its name, e.g. `silence_duration_ms`.
        public let name: String
        /// The wire value per unit of the tunable: 1000 for milliseconds of a tunable in seconds.
        public let scale: Double

        /// The field's path, e.g. `turn_detection.silence_duration_ms`.
        public var path: String { object + "." + name }
    }

    /// The name the code uses, e.g. `endSilence`.
    public let id: String
    /// What it does, in a sentence a user reads (the flag's help).
    public let summary: String
    /// Its value when no one sets it.
    public let defaultValue: Double
    /// The values it takes.
    public let range: ClosedRange<Double>
    /// A value outside ``range`` that turns the behaviour off (0 for no partial transcripts),
    /// if there is one.
    public let off: Double?
    /// What the value measures.
    public let unit: Unit
    /// The flag of `parley talk` (or `parley serve`, for the server's limits) that sets it,
    /// without its dashes, if the command has one.
    public let flag: String?
    /// The realtime session field that sets it, if there is one.
    public let field: Field?
    /// The environment variable (or settings-file key) that sets it, if there is one.
    public let environment: String?

    /// A tunable; `environment` is `nil` unless the setting has a variable.
    init(
        id: String, summary: String, defaultValue: Double, range: ClosedRange<Double>, off: Double?, unit: Unit,
        flag: String?, field: Field?, environment: String? = nil
    ) {
        self.id = id
        self.summary = summary
        self.defaultValue = defaultValue
        self.range = range
        self.off = off
        self.unit = unit
        self.flag = flag
        self.field = field
        self.environment = environment
    }

    public var description: String { id }

    /// The default as a user reads it (`1.2`, `30`).
    public var defaultText: String { Self.number(defaultValue) }

    /// Whether `value` is one the tunable takes (in its own unit).
    public func accepts(_ value: Double) -> Bool {
        range.contains(value) || value == off
    }

    /// Whether `value`, as the realtime field carries it, is one the tunable takes.
    public func accepts(wire value: Double) -> Bool {
        guard let field else { return false }
        return accepts(value / field.scale)
    }

    /// Why a value given with `spelling` (`--end-silence`, `'silence_duration_ms'`) was
    /// refused, with the values taken in the unit of that face (`scale` per unit).
    public func refusal(_ spelling: String, scale: Double = 1) -> String {
        let lower = Self.number(range.lowerBound * scale), upper = Self.number(range.upperBound * scale)
        let unitName = scale == 1 ? [Unit.seconds: " seconds", .minutes: " minutes", .megabytes: " MB"][unit] ?? "" : ""
        let offText = off.map { ", or \(Self.number($0 * scale)) to turn it off" } ?? ""
        return "\(spelling) must be between \(lower) and \(upper)\(unitName)\(offText)."
    }

    /// The refusal of a value of the realtime field.
    public var fieldRefusal: String {
        guard let field else { return refusal(id) }
        return refusal("'\(field.name)'", scale: field.scale)
    }

    /// `value` as the realtime field reports it: milliseconds, rounded, for seconds.
    public func wire(_ value: Double) -> Double {
        guard let field else { return value }
        return field.scale == 1 ? value : (value * field.scale).rounded()
    }

    /// `value` without a fraction when it has none (`5`, `0.25`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension Tunable {
    /// Silence that ends a turn (whatever the words), and the longest a turn's end waits.
    public static let endSilence = Tunable(
        id: "endSilence", summary: "Seconds of silence that end a turn.",
        defaultValue: 1.2, range: 0.1...30, off: nil, unit: .seconds,
        flag: "end-silence", field: Field(object: "turn_detection", name: "silence_duration_ms", scale: 1_000))

    /// Silence after which words that sound complete end a turn (turn prediction).
    public static let shortSilence = Tunable(
        id: "shortSilence",
        summary: "End a turn after this many seconds of silence when the on-device model finds the words complete; otherwise --end-silence ends it.",
        defaultValue: 0.5, range: 0.1...30, off: nil, unit: .seconds,
        flag: "predict-turn-end", field: nil)

    /// Speech between partial transcripts while the user speaks.
    public static let partialInterval = Tunable(
        id: "partialInterval", summary: "Seconds of speech between partial transcripts (0 for none).",
        defaultValue: 1.0, range: 0.25...10, off: 0, unit: .seconds,
        flag: "partial-interval", field: Field(object: "parley", name: "partial_transcript_interval_ms", scale: 1_000))

    /// Speech over a reply that may cut it; shorter speech resumes it.
    public static let minInterruption = Tunable(
        id: "minInterruption", summary: "Seconds of speech over a reply that may cut it (shorter speech resumes it).",
        defaultValue: 0.4, range: 0...5, off: nil, unit: .seconds,
        flag: "min-interruption", field: Field(object: "parley", name: "min_interruption_ms", scale: 1_000))

    /// The longest turn: speech is cut into turns of at most this length.
    public static let maxTurn = Tunable(
        id: "maxTurn", summary: "The longest turn in seconds.",
        defaultValue: 30, range: 1...600, off: nil, unit: .seconds,
        flag: "max-turn", field: nil)

    /// The voice-activity probability at which speech starts.
    public static let speechThreshold = Tunable(
        id: "speechThreshold", summary: "The voice-activity probability at which speech starts.",
        defaultValue: 0.5, range: 0.05...0.95, off: nil, unit: .probability,
        flag: nil, field: Field(object: "turn_detection", name: "threshold", scale: 1))

    /// Audio kept before (and after) detected speech.
    public static let speechPadding = Tunable(
        id: "speechPadding", summary: "Seconds of audio kept before detected speech.",
        defaultValue: 0.2, range: 0...2, off: nil, unit: .seconds,
        flag: nil, field: Field(object: "turn_detection", name: "prefix_padding_ms", scale: 1_000))

    /// With the wake word on, how long the conversation listens after the phrase or a reply
    /// before it waits for the phrase again.
    public static let wakeWordFollowUp = Tunable(
        id: "wakeWordFollowUp", summary: "With --wake-word: seconds it listens after the phrase or a reply.",
        defaultValue: 6, range: 0.5...600, off: nil, unit: .seconds,
        flag: "wake-word-follow-up", field: nil)

    /// Every tunable of a conversation.
    public static let conversation: [Tunable] = [
        endSilence, shortSilence, partialInterval, minInterruption, maxTurn, speechThreshold, speechPadding, wakeWordFollowUp,
    ]

    /// The largest audio upload the server takes.
    public static let maxAudioUpload = Tunable(
        id: "maxAudioUpload", summary: "The largest audio upload, in megabytes.",
        defaultValue: 25, range: 0.001...65_536, off: nil, unit: .megabytes,
        flag: "max-audio-mb", field: nil)

    /// The longest audio upload the server takes (OpenAI's own limit for its newer
    /// transcription models); a longer file is refused without decoding past the limit.
    public static let maxAudioLength = Tunable(
        id: "maxAudioLength", summary: "The longest audio upload, in minutes (longer files are refused without being decoded).",
        defaultValue: 25, range: 0.001...100_000, off: nil, unit: .minutes,
        flag: "max-audio-minutes", field: nil)

    /// The largest JSON request body the server takes (chat completions take
    /// ``chatBodyFactor`` times as much, for images).
    public static let maxJSONBody = Tunable(
        id: "maxJSONBody", summary: "The largest JSON request body (chat requests: 20 times this, for images), in megabytes.",
        defaultValue: 1, range: 0.001...65_536, off: nil, unit: .megabytes,
        flag: "max-json-mb", field: nil)

    /// How many times ``maxJSONBody`` a chat completion's body may be (images travel in it).
    public static let chatBodyFactor = 20.0

    /// The longest a server request (or a stream) may take.
    public static let requestTimeout = Tunable(
        id: "requestTimeout", summary: "The longest a request (or a stream) may take, in seconds.",
        defaultValue: 300, range: 0.001...31_536_000, off: nil, unit: .seconds,
        flag: "request-timeout", field: nil)

    /// How often the server checks cloud and self-hosted providers.
    public static let probeInterval = Tunable(
        id: "probeInterval", summary: "Seconds between background checks of cloud and self-hosted providers (0: none).",
        defaultValue: 30, range: 0.001...31_536_000, off: 0, unit: .seconds,
        flag: "probe-interval", field: nil)

    /// The server's limits.
    public static let server: [Tunable] = [maxAudioUpload, maxAudioLength, maxJSONBody, requestTimeout, probeInterval]

    /// Every tunable with a number for its value.
    public static let all: [Tunable] = conversation + server

    /// The tunable the realtime field at `path` (`turn_detection.silence_duration_ms`) sets.
    public static func field(_ path: String) -> Tunable? {
        all.first { $0.field?.path == path }
    }

    /// The tunable the flag `name` (without dashes) of `parley talk` or `parley serve` sets.
    public static func flag(_ name: String) -> Tunable? {
        all.first { $0.flag == name }
    }

    /// The tunable the environment variable `name` sets.
    public static func environment(_ name: String) -> Tunable? {
        all.first { $0.environment == name }
    }

    /// `megabytes` in bytes (a limit's value from ``maxAudioUpload`` or ``maxJSONBody``).
    public static func bytes(megabytes: Double) -> Int {
        Int((megabytes * 1_048_576).rounded())
    }
}

extension Tunable {
    /// A setting whose value is a name (a voice, a model), defined once: its default, if one
    /// is written (the language model's is the catalog's preset for the device), and each
    /// face's spelling.
    public struct Name: Sendable, Hashable, Identifiable, CustomStringConvertible {
        /// The name the code uses, e.g. `voice`.
        public let id: String
        /// What it does, in a sentence a user reads (the flag's help).
        public let summary: String
        /// Its value when no one sets it; `nil` when it is chosen at run time.
        public let defaultName: String?
        /// The flag every `parley` command shares that sets it, without its dashes.
        public let flag: String?
        /// The environment variable (or settings-file key) that sets it.
        public let environment: String?
        /// The realtime session fields that set it (the GA path and the beta one), e.g.
        /// `session.audio.output.voice`.
        public let fields: [String]

        public var description: String { id }
    }

    /// The voice replies are spoken in: a neural voice (the default, when installed) or an
    /// espeak-ng voice.
    public static let voice = Name(
        id: "voice", summary: "The voice: a neural voice (joe, the default when installed) or an espeak-ng voice (en-us, en-gb).",
        defaultName: defaultVoiceName, flag: "voice", environment: nil,
        fields: ["session.audio.output.voice", "session.voice"])

    /// The on-device language model: a catalog id or a GGUF file; by default the catalog's
    /// preset for the device.
    public static let languageModel = Name(
        id: "languageModel", summary: "A GGUF language model to use instead of the default.",
        defaultName: nil, flag: "model", environment: "PARLEY_LLM_MODEL", fields: ["session.model"])

    /// The on-device speech-to-text model: a whisper.cpp model file (`--whisper-model`), or
    /// Moonshine (`PARLEY_STT_MODEL=moonshine-base`). A realtime session's transcription model
    /// is reported back as given, not applied, so no field sets it.
    public static let speechToTextModel = Name(
        id: "speechToTextModel", summary: "A whisper.cpp model to use instead of the default.",
        defaultName: defaultSpeechToTextModelFile, flag: "whisper-model", environment: "PARLEY_STT_MODEL", fields: [])

    /// The default neural voice (the model file's name without `.onnx`).
    public static let defaultVoiceName = "en_US-joe-medium"

    /// The default whisper.cpp model file (in the models folder).
    public static let defaultSpeechToTextModelFile = "ggml-tiny.en.bin"

    /// Every setting whose value is a name.
    public static let names: [Name] = [voice, languageModel, speechToTextModel]
}
