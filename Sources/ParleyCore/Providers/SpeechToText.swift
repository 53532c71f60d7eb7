/// Options for a transcription.
public struct TranscriptionOptions: Sendable, Equatable {
    /// BCP-47 language code, or `nil` (or `auto`) to let the engine detect it.
    public var language: String?
    /// Words or phrases that bias recognition (names, jargon), where the engine supports it.
    public var prompt: String?
    /// Whether each word's start and end are wanted (``Transcript/words``), where the engine
    /// can time them.
    public var wordTimestamps: Bool
    /// Whether the speech is to be written in English whatever language it is in, where the
    /// engine can translate (a multilingual Whisper, OpenAI).
    public var translate: Bool

    /// Creates options.
    public init(language: String? = "en", prompt: String? = nil, wordTimestamps: Bool = false, translate: Bool = false) {
        self.language = language
        self.prompt = prompt
        self.wordTimestamps = wordTimestamps
        self.translate = translate
    }
}

/// The result of transcribing audio.
public struct Transcript: Sendable, Equatable {
    /// The recognised text, trimmed.
    public var text: String
    /// Timed pieces of the text, if the engine reports them.
    public var segments: [Segment]
    /// The provider that transcribed, set by a chain (the provider that served, not the
    /// chain); `nil` from a single provider, which is the one asked.
    public var provider: ProviderIdentity?
    /// Each word with its times (a segment of one word), when they were asked for and the
    /// engine times words.
    public var words: [Segment]
    /// The language the speech was transcribed in (a code such as `it`): the one detected
    /// when none was asked for, where the engine says; `nil` when it does not.
    public var language: String?

    /// A timed piece of a transcript.
    public struct Segment: Sendable, Equatable {
        /// Start in seconds from the start of the audio.
        public var start: Double
        /// End in seconds from the start of the audio.
        public var end: Double
        /// The text of this piece.
        public var text: String

        /// Creates a segment.
        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    /// Creates a transcript.
    public init(
        text: String, segments: [Segment] = [], provider: ProviderIdentity? = nil, words: [Segment] = [],
        language: String? = nil
    ) {
        self.text = text
        self.language = language
        self.segments = segments
        self.provider = provider
        self.words = words
    }
}

/// An update from a streaming transcription.
public enum TranscriptUpdate: Sendable, Equatable {
    /// A provisional transcript of the audio so far; later updates replace it.
    case partial(String)
    /// The final transcript of the whole stream.
    case final(Transcript)
}

/// Turns speech into text.
public protocol SpeechToTextProvider: Provider {
    /// The sample rate the engine works at; input at another rate is resampled.
    var preferredSampleRate: Int { get }

    /// Transcribes a complete buffer.
    func transcribe(_ audio: AudioBuffer, options: TranscriptionOptions) async throws -> Transcript

    /// Transcribes audio as it arrives, yielding partial transcripts and then the final one.
    func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer

    /// Whether ``transcribe(stream:options:)``, started now, would be a live session on the
    /// provider's side, whose final transcript is ready moments after the audio ends, rather
    /// than whole-buffer transcriptions repeated as the audio grows. A chain answers for the
    /// provider it would use now.
    var transcribesLive: Bool { get async }

    /// Loads what the first transcription needs (an on-device engine's weights), so that it
    /// does not wait for them; nothing by default.
    func prepare() async

    /// The providers that may transcribe, in the order they are tried: a chain's members, or
    /// itself, the default. The one that serves names itself in ``Transcript/provider``.
    var members: [any SpeechToTextProvider] { get }

    /// The provider that would transcribe now: a chain's first ready member, or itself, the
    /// default.
    func answerer() async -> any SpeechToTextProvider
}

extension SpeechToTextProvider {
    /// Engines that transcribe whole buffers are not live.
    public var transcribesLive: Bool { false }

    public func prepare() async {}

    public var members: [any SpeechToTextProvider] { [self] }

    public func answerer() async -> any SpeechToTextProvider { self }

    /// A streaming session for engines that only transcribe whole buffers: the audio so far
    /// is re-transcribed each time another `partialInterval` seconds have arrived, and once
    /// more when the stream ends.
    public func transcribe<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        transcribeByWindows(stream: frames, options: options, partialInterval: 1.0)
    }

    /// The windowed streaming strategy behind the default `transcribe(stream:options:)`.
    public func transcribeByWindows<Frames: AsyncSequence & Sendable>(
        stream frames: Frames, options: TranscriptionOptions, partialInterval: Double
    ) -> AsyncThrowingStream<TranscriptUpdate, any Error> where Frames.Element == AudioBuffer {
        .producing { continuation in
            var audio = AudioBuffer(samples: [], sampleRate: preferredSampleRate)
            var sinceLastPartial = 0.0
            for try await frame in frames {
                let converted = frame.resampled(to: preferredSampleRate)
                audio.append(converted)
                sinceLastPartial += converted.duration
                if sinceLastPartial >= partialInterval {
                    sinceLastPartial = 0
                    let partial = try await transcribe(audio, options: options)
                    continuation.yield(.partial(partial.text))
                }
            }
            continuation.yield(.final(try await transcribe(audio, options: options)))
        }
    }
}
