#if canImport(SwiftUI) && canImport(AVFoundation) && canImport(Speech)
import AVFoundation
import Observation
import ParleyApple
import ParleyCore
import ParleyRuntime
import Speech
import VoiceAppModel

/// Puts the app together: asks for the microphone and speech recognition, makes Parley's
/// runtime (its chains: the configured cloud providers, then Apple's engines on the device),
/// a conversation over `AppleMicrophone`, and the view model that the views draw.
@MainActor
@Observable
final class AppEngine {
    /// The view model, once the conversation is up.
    private(set) var model: VoiceViewModel?
    /// What is happening while it starts, or why it could not.
    private(set) var status = "Starting…"

    @ObservationIgnored private var runtime: Runtime<ContinuousClock>?
    @ObservationIgnored private var tasks: [Task<Void, Never>] = []

    /// Starts everything once.
    func start() async {
        guard model == nil else { return }
        do {
            status = "Asking for the microphone…"
            let microphoneAllowed = await AVAudioApplication.requestRecordPermission()
            status = "Asking for speech recognition…"
            _ = await Self.requestSpeechRecognition()
            status = "Loading…"
            let runtime = try await Runtime.load()
            self.runtime = runtime
            let microphone = AppleMicrophone()
            var options = ConversationOptions()
            options.startsListening = false  // the view model listens when the user says so
            options.saves = false
            let conversation = try await runtime.makeConversation(options: options, output: MicrophoneOutput(microphone))
            let session = conversation.session
            let model = VoiceViewModel(controls: SessionControls(session: session))
            self.model = model
            let updates = await session.updates()
            tasks.append(Task { await model.follow(updates) })
            await refreshProviders()

            try await session.setGate(.permissionGranted, open: microphoneAllowed)
            guard microphoneAllowed else {
                status = "Parley needs the microphone: allow it in Settings › Privacy & Security › Microphone."
                return
            }
            let (audio, levels) = try microphone.start()
            // Off the main actor: the frames go straight to the conversation. (It reports the
            // level itself; the microphone's own is read and dropped, so that it does not pile up.)
            tasks.append(Task.detached { for await _ in levels {} })
            tasks.append(
                Task.detached {
                    for await frame in audio { try? await session.append(frame) }
                })
            try await session.setGate(.audioReady, open: true)
            try await session.arm()
            status = ""
        } catch {
            status = "Parley could not start: \(error)"
        }
    }

    /// Reads the runtime's report again into the settings sheet's list.
    func refreshProviders() async {
        guard let runtime, let model else { return }
        let report = await runtime.report()
        model.show(
            providers: report.flatMap { capability in
                capability.chain.map { provider in
                    ProviderStatus(
                        capability: capability.capability.rawValue, name: provider.name, provider: provider.provider,
                        placement: provider.placement.rawValue, configured: provider.configured, available: provider.available,
                        reason: provider.reason, remedy: provider.remedy)
                }
            })
    }

    private nonisolated static func requestSpeechRecognition() async -> SFSpeechRecognizerAuthorizationStatus {
        await withCheckedContinuation { continuation in
            SFSpeechRecognizer.requestAuthorization { status in continuation.resume(returning: status) }
        }
    }
}

/// The view model's controls, carried out by the conversation.
struct SessionControls: VoiceControls {
    let session: ConversationSession<ContinuousClock>

    func startListening() async throws { try await session.startListening(.user) }
    func stopListening() async throws { try await session.stopListening() }
    func cancelReply() async throws { try await session.cancel() }
}
#endif
