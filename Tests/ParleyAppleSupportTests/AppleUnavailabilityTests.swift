import ParleyAppleSupport
import ParleyCore
import Testing

/// What Apple's engines say when they cannot serve: one sentence with what to do.
@Suite("Apple engines' availability reasons")
struct AppleUnavailabilityTests {
    @Test(
        "each reason is an unsupported availability whose sentence names the cause and, where there is one, the fix",
        arguments: [
            (AppleUnavailability.deviceNotEligible, "cannot run Apple Intelligence"),
            (.appleIntelligenceNotEnabled, "turn it on in Settings"),
            (.modelNotReady, "not ready yet"),
            (.modelUnavailable("rateLimited"), "rateLimited"),
            (.systemTooOld(needs: "iOS, iPadOS, macOS or visionOS 26"), "needs iOS, iPadOS, macOS or visionOS 26"),
            (.localeUnsupported(engine: "Apple's speech recognizer", locale: "xx-YY"), "does not support xx-YY"),
            (.speechRecognitionNotDetermined, "requestAuthorization"),
            (.speechRecognitionDenied(restricted: false), "allow it in Settings"),
            (.speechRecognitionDenied(restricted: true), "device policy"),
            (.recognizerBusy(locale: "en-US"), "not available right now"),
            (.onDeviceRecognitionUnsupported(locale: "cy-GB"), "only on Apple's servers"),
            (.noVoice(language: "fr-FR"), "no voice for fr-FR"),
            (.noVoice(language: nil), "no speech voices"),
        ])
    func reasons(_ reason: AppleUnavailability, _ says: String) {
        #expect(reason.availability == .unsupported(reason: reason.reason))
        #expect(!reason.availability.isReady)
        #expect(reason.reason.contains(says), "\(reason.reason)")
    }

    @Test("a language model the system is too old for says so, and fails a request with that reason")
    func standIn() async throws {
        let why = AppleUnavailability.systemTooOld(needs: "macOS 26").availability
        let model = UnavailableLanguageModel(
            identity: ProviderIdentity(name: "apple-foundation-models", model: "system", isLocal: true),
            availability: why)
        #expect(await model.availability() == why)
        await #expect(throws: ProviderError.self) {
            for try await _ in model.complete(ChatRequest(messages: [.user("hi")])) {}
        }
    }
}
