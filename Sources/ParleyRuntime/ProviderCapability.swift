/// A capability a provider serves.
public enum ProviderCapability: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Language model (text generation).
    case languageModel = "LLM"
    /// Speech to text.
    case speechToText = "STT"
    /// Text to speech.
    case textToSpeech = "TTS"
    /// Voice activity detection.
    case voiceActivity = "VAD"

    public var description: String { rawValue }
}

/// Where a provider runs.
public enum ProviderPlacement: String, Sendable, Hashable, Codable {
    /// A paid service on the internet.
    case cloud
    /// A server the user runs (Ollama, Piper, any OpenAI-compatible server).
    case selfHosted = "self-hosted"
    /// An engine in this process or on this machine.
    case onDevice = "on-device"
}
