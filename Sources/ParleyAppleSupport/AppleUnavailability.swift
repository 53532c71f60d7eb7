import ParleyCore

/// Why one of Apple's engines cannot serve, in the terms Apple's frameworks report it, and what
/// the user can do: the sentences `Runtime.report()` (`parley doctor` on a Mac) and an app's
/// settings show. The Apple shells (`AppleLanguageModel`, `AppleSpeechToText`,
/// `AppleTextToSpeech`) only translate the framework's answer into a case; the wording lives
/// here, where it is tested.
public enum AppleUnavailability: Sendable, Hashable {
    /// Foundation Models: the device cannot run Apple Intelligence.
    case deviceNotEligible
    /// Foundation Models: Apple Intelligence is turned off.
    case appleIntelligenceNotEnabled
    /// Foundation Models: the model is not on the device yet (downloading, or being prepared).
    case modelNotReady
    /// Foundation Models answered with a reason this version of Parley does not know.
    case modelUnavailable(String)
    /// The system is older than the framework (`needs`: the systems that have it).
    case systemTooOld(needs: String)
    /// The engine does not support the language of `locale` (an identifier such as `fr-CA`).
    case localeUnsupported(engine: String, locale: String)
    /// Speech recognition: the user has not been asked yet.
    case speechRecognitionNotDetermined
    /// Speech recognition: the user (or a device policy) said no.
    case speechRecognitionDenied(restricted: Bool)
    /// Speech recognition: the recognizer for `locale` exists but cannot serve right now.
    case recognizerBusy(locale: String)
    /// Speech recognition: `locale` is only recognized on Apple's servers, which Parley never uses.
    case onDeviceRecognitionUnsupported(locale: String)
    /// Speech synthesis: the system has no voice (for `language`, when one was asked for).
    case noVoice(language: String?)

    /// The availability a provider reports for this reason.
    public var availability: Availability { .unsupported(reason: reason) }

    /// What happened and what to do, in one sentence.
    public var reason: String {
        switch self {
        case .deviceNotEligible:
            return "this device cannot run Apple Intelligence, so the system language model is not available"
        case .appleIntelligenceNotEnabled:
            return "Apple Intelligence is off: turn it on in Settings › Apple Intelligence & Siri"
        case .modelNotReady:
            return "the system language model is not ready yet (it may still be downloading): try again later"
        case .modelUnavailable(let detail):
            return "the system language model is unavailable (\(detail))"
        case .systemTooOld(let needs):
            return "Apple's on-device language model needs \(needs)"
        case .localeUnsupported(let engine, let locale):
            return "\(engine) does not support \(locale): choose another language (PARLEY_SPEECH_LOCALE) or another provider"
        case .speechRecognitionNotDetermined:
            return "speech recognition has not been allowed yet: the app must ask (SFSpeechRecognizer.requestAuthorization)"
        case .speechRecognitionDenied(let restricted):
            return restricted
                ? "speech recognition is restricted on this device (a device policy)"
                : "speech recognition was not allowed: allow it in Settings › Privacy & Security › Speech Recognition"
        case .recognizerBusy(let locale):
            return "the speech recognizer for \(locale) is not available right now: try again later"
        case .onDeviceRecognitionUnsupported(let locale):
            return "\(locale) is recognized only on Apple's servers, which Parley does not use: choose another language (PARLEY_SPEECH_LOCALE)"
        case .noVoice(let language?):
            return "the system has no voice for \(language): add one in Settings › Accessibility › Spoken Content"
        case .noVoice(nil):
            return "the system has no speech voices"
        }
    }
}
