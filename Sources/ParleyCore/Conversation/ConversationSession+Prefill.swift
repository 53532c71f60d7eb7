extension ConversationSession {
    /// Evaluates, while the user speaks, the prompt of the reply their turn would get if its
    /// words so far were all of it (see ``ConversationConfiguration/prefiller``), replacing the
    /// evaluation under way: that one is out of date.
    func prefillReply(upTo words: String) {
        guard let prefiller = configuration.prefiller, reply == nil, speculation == nil, pendingImages.isEmpty,
            machine.state == .listening
        else { return }
        let messages = replyRequest(history + [.user(words)]).messages
        let tools = configuration.tools?.definitions ?? []
        prefill?.cancel()
        let logger = self.logger
        prefill = Task {
            do {
                try await prefiller.prefill(messages, tools: tools)
            } catch {
                // Only time is lost: the reply evaluates its whole prompt itself.
                logger.debug("conversation: evaluating the prompt ahead failed: \(error)")
            }
        }
    }

    /// Stops evaluating the prompt ahead: the reply (or one started early) evaluates its own
    /// prompt now, and waits at most for the batch in progress.
    func stopPrefill() {
        prefill?.cancel()
        prefill = nil
    }

    /// The words of a partial transcript that later audio will not change, most likely: all
    /// but the last (which may be cut off mid-word: "What is the capy?"), without the
    /// punctuation the transcriber adds.
    static func settledWords(of partial: String) -> String {
        var words = partial.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return "" }
        words.removeLast()
        guard let last = words.last else { return "" }
        let trimmed = String(last).trimmingCharacters(in: ".?!,;:…\"'”’")
        if trimmed.isEmpty {
            words.removeLast()
        } else {
            words[words.count - 1] = Substring(trimmed)
        }
        return words.joined(separator: " ")
    }
}
