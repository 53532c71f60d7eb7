import Foundation
import ParleyCloud
import ParleyCore

/// Everything a provider streamed for one request: the text, how it finished, and the error
/// that ended it, if any.
struct ChatTranscript: Sendable {
    var text = ""
    var finish: FinishReason?
    var usage: Usage?
    var error: (any Error)?

    /// The typed HTTP error kind, if the stream ended with one.
    var kind: HTTPProviderError.Kind? { (error as? HTTPProviderError)?.kind }

    /// Runs `request` to its end.
    static func collect(_ provider: some LanguageModelProvider, _ request: ChatRequest) async -> ChatTranscript {
        var transcript = ChatTranscript()
        do {
            for try await event in provider.complete(request) {
                switch event {
                case .text(let piece): transcript.text += piece
                case .finished(let reason, let usage):
                    transcript.finish = reason
                    transcript.usage = usage
                case .provider, .toolCall, .toolCallDelta: break
                }
            }
        } catch {
            transcript.error = error
        }
        return transcript
    }
}
