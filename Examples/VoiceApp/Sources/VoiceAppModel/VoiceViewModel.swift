import Observation
import ParleyCore

/// The app's state and what its controls do, for SwiftUI to draw and call: the orb, the talk
/// mode, the transcript, the providers in use, and the last problem to tell the user about.
///
/// It reads the conversation's ``ParleyCore/ConversationUpdate``s (``apply(_:)``) and sends the
/// user's gestures to ``VoiceControls``. The rules of the two modes live here, so they are tested
/// on every platform:
/// - **Hold to talk**: pressing starts listening (and cuts a reply short, when one is playing);
///   letting go stops listening, and what was said is answered. When the conversation goes back
///   to listening by itself after a reply (a conversation loop), listening is stopped again.
/// - **Hands-free**: switching it on starts listening; after each reply listening resumes (when
///   the conversation does not already do so); speaking over a reply interrupts it (the
///   conversation's barge-in). Switching back stops listening.
@MainActor
@Observable
public final class VoiceViewModel {
    /// What the orb shows.
    public private(set) var orb: Orb = .idle
    /// How the user talks.
    public private(set) var mode: TalkMode
    /// What was said, oldest first.
    public private(set) var transcript: [TranscriptEntry] = []
    /// The providers in use and why, for the settings sheet.
    public private(set) var providers: [ProviderSection] = []
    /// The last thing that went wrong or was refused, for a banner; `nil` when there is none.
    public private(set) var notice: String?
    /// Whether the talk button is held down.
    public private(set) var isHolding = false

    private let controls: any VoiceControls
    private var nextID = 0

    /// A view model driving `controls`, in `mode`.
    public init(controls: any VoiceControls, mode: TalkMode = .holdToTalk) {
        self.controls = controls
        self.mode = mode
    }

    // MARK: - Gestures

    /// The talk button was pressed (hold to talk).
    public func pressTalk() async {
        guard mode == .holdToTalk, !isHolding else { return }
        isHolding = true
        if orb == .speaking || orb == .thinking { await perform { try await $0.cancelReply() } }
        await perform { try await $0.startListening() }
    }

    /// The talk button was let go (hold to talk): what was said is answered.
    public func releaseTalk() async {
        guard mode == .holdToTalk, isHolding else { return }
        isHolding = false
        await perform { try await $0.stopListening() }
    }

    /// Switches between hold to talk and hands-free.
    public func setMode(_ newMode: TalkMode) async {
        guard newMode != mode else { return }
        mode = newMode
        isHolding = false
        switch newMode {
        case .handsFree:
            if !isListening { await perform { try await $0.startListening() } }
        case .holdToTalk:
            if isListening { await perform { try await $0.stopListening() } }
        }
    }

    /// Cuts the reply short (the stop button).
    public func stopReply() async {
        await perform { try await $0.cancelReply() }
    }

    /// Clears the notice.
    public func dismissNotice() {
        notice = nil
    }

    /// Replaces the provider list (after the runtime's report).
    public func show(providers statuses: [ProviderStatus]) {
        providers = ProviderSection.sections(statuses)
    }

    // MARK: - The conversation

    /// Applies every update of `updates` until it ends.
    public func follow(_ updates: AsyncStream<ConversationUpdate>) async {
        for await update in updates { await apply(update) }
    }

    /// Applies one update of the conversation.
    public func apply(_ update: ConversationUpdate) async {
        switch update {
        case .transition(let from, let to):
            orb = Orb(to)
            if case .error(let message) = to { notice = message }
            await keepMode(from: from, to: to)
        case .rejected(let reason):
            notice = reason
        case .speechStarted, .speechStopped, .replyInterrupted:
            break
        case .replyResumed:
            // The speech over the reply was a backchannel or a noise: its words are no turn, and
            // the reply written on meanwhile joins the reply before them.
            if let user = transcript.lastIndex(where: { $0.speaker == .user && $0.isPending }) {
                transcript.remove(at: user)
                if user > 0, user < transcript.count, transcript[user - 1].speaker == .assistant, transcript[user].speaker == .assistant,
                    transcript[user - 1].isPending
                {
                    transcript[user - 1].text += transcript[user].text
                    transcript.remove(at: user)
                }
            }
        case .partialTranscript(let text):
            write(.user, text, pending: true)
        case .finalTranscript(let text):
            write(.user, text, pending: false)
        case .replyText(let piece):
            if let last = transcript.indices.last, transcript[last].speaker == .assistant, transcript[last].isPending {
                transcript[last].text += piece
            } else {
                append(.assistant, piece, pending: true)
            }
        case .turn(let result):
            if let last = transcript.indices.last, transcript[last].speaker == .assistant, transcript[last].isPending {
                transcript[last].isPending = false
                transcript[last].wasInterrupted = result.interrupted
                if !result.reply.isEmpty { transcript[last].text = result.reply }
            } else if !result.reply.isEmpty {
                append(.assistant, result.reply, pending: false)
                transcript[transcript.count - 1].wasInterrupted = result.interrupted
            }
        case .audioLevel(let level):
            if case .listening = orb { orb = .listening(level: min(1, max(0, level))) }
        }
    }

    private var isListening: Bool {
        if case .listening = orb { return true }
        return false
    }

    /// Keeps the conversation in the user's mode when it moves by itself.
    private func keepMode(from: ConversationState, to: ConversationState) async {
        switch (mode, to) {
        case (.holdToTalk, .listening) where !isHolding && (from == .speaking || from == .thinking):
            // A conversation loop listening again after a reply: in this mode only a press listens.
            await perform { try await $0.stopListening() }
        case (.handsFree, .armed) where from == .speaking || from == .thinking:
            // The reply is over and the conversation waits: listen for the next turn.
            await perform { try await $0.startListening() }
        default:
            break
        }
    }

    /// The user's line: a provisional one is replaced as it grows, a final one settles it.
    private func write(_ speaker: TranscriptEntry.Speaker, _ text: String, pending: Bool) {
        if let last = transcript.indices.last, transcript[last].speaker == speaker, transcript[last].isPending {
            transcript[last].text = text
            transcript[last].isPending = pending
        } else {
            append(speaker, text, pending: pending)
        }
    }

    private func append(_ speaker: TranscriptEntry.Speaker, _ text: String, pending: Bool) {
        transcript.append(TranscriptEntry(id: nextID, speaker: speaker, text: text, isPending: pending))
        nextID += 1
    }

    private func perform(_ action: (any VoiceControls) async throws -> Void) async {
        do {
            try await action(controls)
        } catch {
            notice = "\(error)"
        }
    }
}
