import Foundation

/// Where Parley keeps its data: models, samples and test data.
///
/// The data directory is `$PARLEY_HOME` when set, else `$XDG_DATA_HOME/parley`, else on Apple
/// platforms the app's Application Support folder (`…/Application Support/Parley`, inside the
/// sandbox for an app), else `~/.local/share/parley`. `scripts/setup` fills it on Linux.
public struct ParleyPaths: Sendable, Equatable {
    /// The data directory.
    public var home: URL

    /// Creates paths rooted at `home`.
    public init(home: URL) {
        self.home = home
    }

    /// The paths for the current environment.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> ParleyPaths {
        if let explicit = environment["PARLEY_HOME"], !explicit.isEmpty {
            return ParleyPaths(home: URL(fileURLWithPath: explicit, isDirectory: true))
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return ParleyPaths(home: URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("parley", isDirectory: true))
        }
        #if canImport(Darwin)
        if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
            return ParleyPaths(home: support.appendingPathComponent("Parley", isDirectory: true))
        }
        #endif
        // NSHomeDirectory exists on every platform (homeDirectoryForCurrentUser only on macOS and Linux).
        let user = URL(fileURLWithPath: environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory(), isDirectory: true)
        return ParleyPaths(home: user.appendingPathComponent(".local/share/parley", isDirectory: true))
    }

    /// Model files.
    public var models: URL { home.appendingPathComponent("models", isDirectory: true) }
    /// Sample recordings made by setup.
    public var samples: URL { home.appendingPathComponent("samples", isDirectory: true) }
    /// Reference data for the tests, made by setup.
    public var testData: URL { home.appendingPathComponent("testdata", isDirectory: true) }

    /// The default on-device language model (SmolLM2-135M-Instruct, Q4_1 GGUF).
    public var defaultLanguageModel: URL { models.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf") }
    /// The default on-device speech model (Whisper tiny.en in whisper.cpp's format).
    public var defaultWhisperModel: URL { models.appendingPathComponent(Tunable.defaultSpeechToTextModelFile) }
    /// The multilingual speech model (Whisper base in whisper.cpp's format): it hears every
    /// language but English, and detects the language on `auto`.
    public var multilingualWhisperModel: URL { models.appendingPathComponent("ggml-base.bin") }
    /// Moonshine base (English), the on-device speech model on sherpa-onnx: the folder holding
    /// `moonshine-base-en-encoder.ort`, `-decoder.ort` and `-tokenizer.bin` (``models``).
    public var moonshineModelName: String { "moonshine-base-en" }
    /// sherpa-onnx's tokens files, made from the speech models' tokenizers on first use.
    public var speechCache: URL { home.appendingPathComponent("cache/speech", isDirectory: true) }
    /// The default neural voice (Piper's en_US-joe-medium; its `.onnx.json` sits beside it).
    public var defaultVoiceModel: URL { models.appendingPathComponent(Tunable.defaultVoiceName + ".onnx") }
    /// The default on-device embedding model (all-MiniLM-L6-v2 as a float16 GGUF, converted by
    /// `scripts/setup`).
    public var defaultEmbeddingModel: URL { models.appendingPathComponent("all-MiniLM-L6-v2.f16.gguf") }
    /// Copies of the neural voices prepared for sherpa-onnx (made on first use).
    public var voiceCache: URL { home.appendingPathComponent("cache/voices", isDirectory: true) }
    /// Silero VAD v6 weights exported for the Swift implementation.
    public var sileroWeights: URL { models.appendingPathComponent("silero_vad_v6.weights") }
    /// The spoken sample question setup synthesizes.
    public var sampleQuestion: URL { samples.appendingPathComponent("question.wav") }
    /// Two spoken questions with a two-second pause between them, made by setup.
    public var sampleConversation: URL { samples.appendingPathComponent("two-questions.wav") }
}
