#if canImport(AVFoundation)
import Foundation
import ParleyAppleSupport
import ParleyCore

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here (see docs/apple.md).

/// Apple's own engines as the runtime's provider catalog lists them, each under the name
/// `apple`: Foundation Models (LLM), the on-device speech recognizer (STT) and the system's
/// voices (TTS). `ParleyRuntime` places them among the on-device providers of its standard
/// catalog, after every configured cloud and self-hosted one, so they need no setting; each says
/// why when it cannot serve (``AppleUnavailability``).
public enum AppleProviders {
    /// The setting naming the language the user speaks, a locale identifier (`en-US`, `fr-CA`):
    /// the recognizer's language, and the one Foundation Models is asked to support. The device's
    /// language when unset.
    public static let localeSetting = "PARLEY_SPEECH_LOCALE"

    /// Every Apple engine this platform has, in chain order within each capability.
    public static var standard: [PlatformProvider] {
        var providers: [PlatformProvider] = []
        #if canImport(FoundationModels)
        providers.append(
            PlatformProvider(
                name: "apple", variables: [localeSetting], defaultModel: "system",
                remedy: "turn on Apple Intelligence (iOS or macOS 26 on an eligible device) and wait for its model",
                factory: .languageModel { setting in
                    let locale = Self.locale(setting)
                    guard #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) else {
                        return UnavailableLanguageModel(
                            identity: ProviderIdentity(name: "apple-foundation-models", model: "system", isLocal: true),
                            availability: AppleUnavailability.systemTooOld(needs: "iOS, iPadOS, macOS or visionOS 26").availability)
                    }
                    return AppleLanguageModel(locale: locale)
                }))
        #endif
        #if canImport(Speech)
        providers.append(
            PlatformProvider(
                name: "apple", variables: [localeSetting],
                remedy: "allow speech recognition for the app, in a language the device recognizes on device",
                factory: .speechToText { setting in AppleSpeechToText(locale: Self.locale(setting)) }))
        #endif
        providers.append(
            PlatformProvider(
                name: "apple", remedy: "add a voice in Settings › Accessibility › Spoken Content",
                factory: .textToSpeech { _ in AppleTextToSpeech() }))
        return providers
    }

    /// The locale ``localeSetting`` names, else the device's.
    static func locale(_ setting: (String) -> String?) -> Locale {
        setting(localeSetting).map { Locale(identifier: $0) } ?? Locale.current
    }
}
#endif
