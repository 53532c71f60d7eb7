import Foundation
import ParleyCore

/// Prompt memory: the evaluated instructions of a conversation (its system turn with the tools
/// it declares, through the opening of the first user message: the part every run of an
/// assistant shares) kept on disk, so that a new process reads them back in milliseconds
/// instead of evaluating them again (a tool prompt is hundreds of tokens: seconds on two cores).
///
/// Whichever path evaluates the instructions first writes them: a reply, an end-of-turn score
/// (the first thing a real-time conversation evaluates) or a prefill. The file is named after
/// the instructions' tokens, so that other instructions or another tool list never read it, and
/// after the model file (its path, size and modification time) and the context length.
extension LlamaLanguageModel {
    /// Brings the instructions `prompt` starts with into memory before the rest of `prompt` is
    /// evaluated: read back from disk when a run kept them, else evaluated and kept. Does
    /// nothing when memory holds them already, prompt memory is off, or they are too short to
    /// be worth a file (``promptMemoryFile(for:)``).
    ///
    /// - Parameters:
    ///   - history: the conversation the prompt renders (its leading system messages are the
    ///     instructions).
    ///   - prompt: the prompt's tokens, as they will be evaluated.
    ///   - tools: the tools the prompt declares.
    ///   - batch: the most tokens evaluated per turn on the compute lane; between two, a
    ///     cancelled task stops (memory then holds part of the instructions, and the next
    ///     evaluation goes on from there and keeps them).
    /// - Returns: how many tokens were evaluated (0 when they were read back or already there).
    @discardableResult
    func bringInstructions(
        of history: [ChatMessage], before prompt: [Int32], session: LlamaSession,
        tools: [ToolDefinition], batch: Int = .max
    ) throws -> Int {
        guard configuration.promptMemoryDirectory != nil else { return 0 }
        let system = Array(history.prefix { $0.role == .system })
        let opening = try openPrompt(system, words: "", session: session, tools: tools)
        let instructions = Array(prompt.prefix(zip(opening, prompt).prefix { $0 == $1 }.count))
        guard let path = promptMemoryFile(for: instructions), session.sharedPrefix(with: instructions) < instructions.count else { return 0 }
        if FileManager.default.fileExists(atPath: path) {
            // Reading back replaces memory: what it holds after the part it shares with the
            // instructions is not this prompt's, and the shared part is in the file too.
            _ = session.keepCommonPrefix(with: [])
            if let restored = session.restoreMemory(from: path, capacity: session.contextLength), restored.starts(with: instructions) {
                // A file of an earlier generation may hold an earlier run's question after them.
                _ = session.keepCommonPrefix(with: instructions)
                logger.debug("read \(instructions.count) instruction tokens back from \(path)")
                return 0
            }
            _ = session.keepCommonPrefix(with: [])
            logger.warning(
                "the prompt memory in \(path) could not be read back (another llama.cpp build or model?): evaluating the instructions again, and keeping them anew"
            )
        }
        let start = session.keepCommonPrefix(with: instructions)
        var position = start
        while position < instructions.count {
            if position > start, Task.isCancelled { return position - start }
            let next = Array(instructions[position..<(position + min(batch, instructions.count - position))])
            try ComputeLane.shared.run { try session.evaluate(next) }
            position += next.count
        }
        keep(session, at: path)
        return position - start
    }

    /// The file that holds memory of exactly `tokens` on this model (a conversation's start
    /// worth keeping: 64 tokens or more), when prompt memory is on.
    func promptMemoryFile(for tokens: [Int32]) -> String? {
        guard let folder = configuration.promptMemoryDirectory, tokens.count >= 64 else { return nil }
        // FNV-1a over the model file's path, size and modification time, the context length and
        // the tokens: the same prompt on the same model.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            hash = (hash ^ value) &* 0x0000_0100_0000_01B3
        }
        // The files' generation: files of the first were written in place, and one written by
        // two processes at once could be cut short (llama.cpp aborts reading one), so none of
        // them is read again; they are pruned like any old file.
        mix(Self.promptMemoryGeneration)
        for byte in configuration.modelPath.utf8 { mix(UInt64(byte)) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: configuration.modelPath)
        mix(UInt64((attributes?[.size] as? Int) ?? 0))
        // A model file replaced in place by another of the same size.
        mix(UInt64(bitPattern: Int64(((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0).rounded())))
        mix(UInt64(configuration.contextLength))
        for token in tokens { mix(UInt64(UInt32(bitPattern: token))) }
        return folder.appendingPathComponent("prompt-\(String(hash, radix: 16)).bin").path
    }

    /// Writes memory to `path` and keeps only the newest few such files. The file is written
    /// under a name of its own and then renamed over `path`, so that another process reading
    /// `path` (llama.cpp aborts on a file cut short) sees a whole file, old or new, never one
    /// being written.
    func keep(_ session: LlamaSession, at path: String) {
        guard let folder = configuration.promptMemoryDirectory else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = folder.appendingPathComponent(".writing-\(UUID().uuidString)").path
        guard session.saveMemory(to: partial), rename(partial, path) == 0 else {
            unlink(partial)
            logger.warning("could not keep the prompt memory in \(folder.path) (is it writable, with room?): the next run evaluates these instructions again")
            return
        }
        logger.debug("kept \(session.cachedTokens.count) prompt tokens in \(path)")
        let listed = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        // A file a process was writing when it was killed is never renamed: gone after a while
        // (long after any write still under way would have ended).
        for stale in listed where stale.lastPathComponent.hasPrefix(".writing-") {
            let modified = (try? stale.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantFuture
            if modified.timeIntervalSinceNow < -Self.abandonedWriteAge { try? FileManager.default.removeItem(at: stale) }
        }
        let files =
            listed
            .filter { $0.lastPathComponent.hasPrefix("prompt-") && $0.pathExtension == "bin" }
            .sorted {
                let first = (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
                let second = (try? $1.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
                return first > second
            }
        for old in files.dropFirst(Self.promptMemoryFiles) { try? FileManager.default.removeItem(at: old) }
    }

    /// The generation of the prompt memory files' names (see ``promptMemoryFile(for:)``).
    static let promptMemoryGeneration: UInt64 = 2

    /// How many prompt memory files are kept.
    static let promptMemoryFiles = 6

    /// Seconds after which a prompt memory file still under its writing name was abandoned.
    static let abandonedWriteAge: TimeInterval = 600
}
