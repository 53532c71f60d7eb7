#if canImport(CLlama) || canImport(ParleyEngines)
#if canImport(CLlama)
import CLlama
#else
import ParleyEngines  // Apple platforms with the AppleEngines trait: llama.cpp in the ParleyEngines binary target
#endif
import Foundation
import Logging
import ParleyCore

/// One loaded llama.cpp model and context. Owns the C objects and frees them in `deinit`;
/// no C pointer leaves this class. Not thread-safe: ``LlamaLanguageModel`` (an actor) is its
/// only user.
final class LlamaSession {
    private let model: LlamaModelHandle
    private let context: OpaquePointer
    private let vocab: OpaquePointer
    private let template: String
    /// The tokens whose keys and values are in the context's memory (sequence 0), in order.
    private(set) var cachedTokens: [llama_token] = []
    let contextLength: Int

    init(modelPath: String, contextLength: Int, threads: Int) throws(LlamaError) {
        let model = try LlamaModelHandle(path: modelPath)
        var contextParams = llama_context_default_params()
        contextParams.n_ctx = UInt32(contextLength)
        contextParams.n_batch = UInt32(min(contextLength, 512))
        contextParams.n_threads = Int32(threads)
        contextParams.n_threads_batch = Int32(threads)
        contextParams.no_perf = true
        // A computation under way when the process exits stops at its next step (EngineExit).
        contextParams.abort_callback = { _ in EngineExit.isExiting }
        guard let context = llama_init_from_model(model.pointer, contextParams) else {
            throw .contextCreationFailed(contextLength: contextLength)
        }
        guard let vocab = llama_model_get_vocab(model.pointer), let cTemplate = llama_model_chat_template(model.pointer, nil) else {
            llama_free(context)
            throw .chatTemplateUnavailable
        }
        self.model = model
        self.context = context
        self.vocab = vocab
        self.template = String(cString: cTemplate)
        self.contextLength = Int(llama_n_ctx(context))
    }

    deinit {
        llama_free(context)  // before the model, which `model` frees after this
    }

    /// Sets the threads the next evaluations use (prompt and generation alike).
    func useThreads(_ threads: Int) {
        LlamaModelHandle.useThreads(threads, in: context)
    }

    /// The model's description from its metadata (e.g. "llama 135M Q4_1").
    var modelDescription: String { model.description }

    /// Renders `messages` with the model's chat template, ending with the assistant's turn.
    func formatPrompt(_ messages: [ChatMessage]) throws(LlamaError) -> String {
        // strdup'd copies stay valid for the whole call and are freed afterwards.
        let roles = messages.map { strdup($0.role.rawValue) }
        let contents = messages.map { strdup($0.text) }
        defer {
            roles.forEach { free($0) }
            contents.forEach { free($0) }
        }
        var chat = zip(roles, contents).map { llama_chat_message(role: $0, content: $1) }
        var capacity = max(1024, messages.reduce(0) { $0 + $1.text.utf8.count } * 2 + 256)
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let rendered = EngineExit.guarded { llama_chat_apply_template(template, &chat, chat.count, true, &buffer, Int32(capacity)) }
            guard let written = rendered, written >= 0 else { throw .chatTemplateUnavailable }
            if Int(written) <= capacity {
                return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity = Int(written)
        }
    }

    /// Tokenizes `text`, parsing the template's special tokens; `addingStart` adds the
    /// model's start-of-text token where it wants one (a whole prompt, not a continuation).
    func tokenize(_ text: String, addingStart: Bool = true) throws(LlamaError) -> [llama_token] {
        guard EngineExit.enter() else { throw .tokenizationFailed }
        defer { EngineExit.leave() }
        let length = Int32(text.utf8.count)
        var tokens = [llama_token](repeating: 0, count: Int(length) + 8)
        var count = llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), addingStart, true)
        if count < 0 {
            tokens = [llama_token](repeating: 0, count: Int(-count))
            count = llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), addingStart, true)
        }
        guard count >= 0 else { throw .tokenizationFailed }
        return Array(tokens.prefix(Int(count)))
    }

    /// Brings the context's memory to exactly `prompt`, reusing the longest prefix already
    /// there, and evaluates the rest. Returns how many prompt tokens were reused.
    func load(prompt: [llama_token]) throws(LlamaError) -> Int {
        // The last token must be evaluated for its logits.
        let reused = keep(prefixOf: prompt, atMost: prompt.count - 1)
        try evaluate(Array(prompt[reused...]))
        return reused
    }

    /// Drops from memory whatever follows the longest prefix it shares with `prompt`, and
    /// returns that prefix's length: where evaluating `prompt` can go on from.
    func keepCommonPrefix(with prompt: [llama_token]) -> Int {
        keep(prefixOf: prompt, atMost: prompt.count)
    }

    /// Writes memory (sequence 0: the tokens of ``cachedTokens`` and their keys and values) to
    /// `path`; `false` when it could not be written.
    func saveMemory(to path: String) -> Bool {
        guard !cachedTokens.isEmpty else { return false }
        let written = cachedTokens.withUnsafeBufferPointer { tokens in
            llama_state_seq_save_file(context, path, 0, tokens.baseAddress, tokens.count)
        }
        return written > 0
    }

    /// Reads memory written by ``saveMemory(to:)`` into empty memory; returns the tokens it
    /// holds, or `nil` (memory left empty) when the file does not fit this model and context.
    func restoreMemory(from path: String, capacity: Int) -> [llama_token]? {
        guard cachedTokens.isEmpty, capacity > 0 else { return nil }
        var tokens = [llama_token](repeating: 0, count: capacity)
        var count = 0
        let read = tokens.withUnsafeMutableBufferPointer { buffer in
            llama_state_seq_load_file(context, path, 0, buffer.baseAddress, buffer.count, &count)
        }
        guard read > 0, count > 0, count <= capacity else {
            llama_memory_clear(llama_get_memory(context), true)
            return nil
        }
        cachedTokens = Array(tokens.prefix(count))
        return cachedTokens
    }

    /// How many of `prompt`'s first tokens memory already holds.
    func sharedPrefix(with prompt: [llama_token]) -> Int {
        zip(cachedTokens, prompt).prefix { $0 == $1 }.count
    }

    private func keep(prefixOf prompt: [llama_token], atMost limit: Int) -> Int {
        var reused = min(sharedPrefix(with: prompt), max(0, limit))
        let memory = llama_get_memory(context)
        if !llama_memory_seq_rm(memory, 0, llama_pos(reused), -1) {
            llama_memory_clear(memory, true)
            reused = 0
        }
        cachedTokens = Array(prompt.prefix(reused))
        return reused
    }

    /// Evaluates `tokens` after what is in memory, in batches.
    func evaluate(_ tokens: [llama_token]) throws(LlamaError) {
        let batchSize = Int(llama_n_batch(context))
        var start = 0
        while start < tokens.count {
            var chunk = Array(tokens[start..<min(tokens.count, start + batchSize)])
            guard EngineExit.enter() else { throw .decodeFailed(code: 2) }
            defer { EngineExit.leave() }
            let code = chunk.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
            }
            guard code == 0 else { throw .decodeFailed(code: code) }
            cachedTokens.append(contentsOf: chunk)
            start += chunk.count
        }
    }

    /// The probability, at the last evaluated position, that the next token ends the turn
    /// (any end-of-generation token: `<|im_end|>`, `<|endoftext|>`, …), from the logits.
    func endOfTurnProbability() -> Double {
        probability { llama_vocab_is_eog(vocab, $0) }
    }

    /// The probability, at the last evaluated position, that the words end here: that the next
    /// token closes the sentence (`.`, `?` or `!`, alone or leading the token, but not an
    /// ellipsis, which trails off) or the turn.
    func sentenceEndProbability() -> Double {
        let ending = sentenceEnds
        return probability { ending.contains($0) }
    }

    /// The tokens ``sentenceEndProbability()`` counts, found in the vocabulary once.
    private lazy var sentenceEnds: Set<llama_token> = {
        var found = Set<llama_token>()
        for index in 0..<llama_vocab_n_tokens(vocab) {
            let token = llama_token(index)
            if llama_vocab_is_eog(vocab, token) {
                found.insert(token)
                continue
            }
            let text = String(decoding: bytes(of: token), as: UTF8.self).drop { $0 == " " }
            guard let first = text.first, ".?!".contains(first), !text.hasPrefix("..") else { continue }
            found.insert(token)
        }
        return found
    }()

    /// The probability, at the last evaluated position, that the next token is one of `tokens`.
    func probability(ofAnyOf tokens: Set<llama_token>) -> Double {
        probability { tokens.contains($0) }
    }

    /// The first token of each of `words` written at the start of a reply (with no space
    /// before it), for ``probability(ofAnyOf:)``; words that do not tokenize are left out.
    func firstTokens(of words: [String]) -> Set<llama_token> {
        Set(words.compactMap { try? tokenize($0, addingStart: false).first })
    }

    /// The softmax mass, at the last evaluated position, of the tokens `counted` selects.
    private func probability(of counted: (llama_token) -> Bool) -> Double {
        guard let logits = llama_get_logits_ith(context, -1) else { return 0 }
        let count = Int(llama_vocab_n_tokens(vocab))
        var largest = -Float.infinity
        for index in 0..<count { largest = max(largest, logits[index]) }
        var total = 0.0, selected = 0.0
        for index in 0..<count {
            let weight = Double(expf(logits[index] - largest))
            total += weight
            if counted(llama_token(index)) { selected += weight }
        }
        return total > 0 ? selected / total : 0
    }

    /// Samples the next token from the last evaluated position.
    func sample(with sampler: LlamaSampler) -> llama_token {
        // When the process exits, the end of the text: generation stops.
        EngineExit.guarded { sampler.sample(context: context) } ?? llama_vocab_eos(vocab)
    }

    /// Evaluates `token`, then `drafts` (tokens guessed to follow it), in one batch, and samples
    /// with `sampler` (which must have no grammar) the token after each position for as long as
    /// the samples agree with the drafts: each sample is drawn from the model's prediction
    /// after the true tokens before it, so the tokens are those one-at-a-time generation would
    /// give. Drafts that were not confirmed are dropped from memory. Returns the samples: the
    /// confirmed drafts (in memory) and then one more token, not yet evaluated.
    ///
    /// On a CPU a batch of a few tokens costs little more than one (each step reads every
    /// weight once), so each confirmed draft saves most of a step.
    func evaluate(_ token: llama_token, drafts: [llama_token], sampler: LlamaSampler) throws(LlamaError) -> [llama_token] {
        let count = 1 + drafts.count
        let start = cachedTokens.count
        var batch = llama_batch_init(Int32(count), 0, 1)
        defer { llama_batch_free(batch) }
        for (index, item) in ([token] + drafts).enumerated() {
            batch.token[index] = item
            batch.pos[index] = llama_pos(start + index)
            batch.n_seq_id[index] = 1
            batch.seq_id[index]?[0] = 0
            batch.logits[index] = 1
        }
        batch.n_tokens = Int32(count)
        guard EngineExit.enter() else { throw .decodeFailed(code: 2) }
        let code = llama_decode(context, batch)
        EngineExit.leave()
        guard code == 0 else {
            // Nothing of the batch is kept: memory holds what it held before.
            _ = llama_memory_seq_rm(llama_get_memory(context), 0, llama_pos(start), -1)
            throw .decodeFailed(code: code)
        }
        var samples: [llama_token] = []
        for index in 0..<count {
            guard let sample = EngineExit.guarded({ sampler.sample(context: context, at: Int32(index)) }) else {
                samples.append(llama_vocab_eos(vocab))
                break
            }
            samples.append(sample)
            guard index < drafts.count, sample == drafts[index] else { break }
        }
        let confirmed = samples.count - 1
        cachedTokens.append(token)
        cachedTokens.append(contentsOf: drafts.prefix(confirmed))
        if confirmed < drafts.count {
            _ = llama_memory_seq_rm(llama_get_memory(context), 0, llama_pos(cachedTokens.count), -1)
        }
        return samples
    }

    /// Whether `token` is a control token (a chat template's markers: `<|im_start|>` …).
    func isControl(_ token: llama_token) -> Bool {
        llama_vocab_is_control(vocab, token)
    }

    func isEndOfGeneration(_ token: llama_token) -> Bool {
        llama_vocab_is_eog(vocab, token)
    }

    /// The bytes of `token`'s text (special tokens rendered only when `special`, e.g. Qwen2.5's
    /// `<tool_call>`).
    func bytes(of token: llama_token, special: Bool = false) -> [UInt8] {
        guard EngineExit.enter() else { return [] }
        defer { EngineExit.leave() }
        var buffer = [CChar](repeating: 0, count: 64)
        var count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        if count < 0 {
            buffer = [CChar](repeating: 0, count: Int(-count))
            count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        }
        return buffer.prefix(Int(max(0, count))).map { UInt8(bitPattern: $0) }
    }

    /// Whether the model's own chat template writes tool calls as `<tool_call>` (Qwen2.5's).
    var templateHasToolCalls: Bool { template.contains(ToolCallFormat.open) }

    /// The tokens a call could open with: `<tool_call>`, a brace, or a code fence (after
    /// any spaces), found in the vocabulary once.
    private(set) lazy var callOpeningTokens: Set<llama_token> = {
        var found = Set<llama_token>()
        for index in 0..<llama_vocab_n_tokens(vocab) {
            let token = llama_token(index)
            let text = String(decoding: bytes(of: token, special: true), as: UTF8.self).drop { $0.isWhitespace }
            if text.hasPrefix("{") || text.hasPrefix("`") || text.hasPrefix("<tool") { found.insert(token) }
        }
        return found
    }()

    /// A sampler chain that never picks `banned`.
    func makeSampler(_ options: SamplingOptions, banning banned: Set<llama_token>) throws(LlamaError) -> LlamaSampler {
        try LlamaSampler(options: options, vocab: vocab, grammar: nil, banned: banned)
    }

    /// A sampler chain for this model's vocabulary, constrained by `grammar` when given.
    func makeSampler(_ options: SamplingOptions, grammar: JSONGrammar? = nil) throws(LlamaError) -> LlamaSampler {
        try LlamaSampler(options: options, vocab: vocab, grammar: grammar)
    }
}

/// A llama.cpp sampler chain, and a grammar sampler when output is constrained; freed in
/// `deinit`.
///
/// With a grammar, each token is first sampled freely and then checked against the grammar
/// alone; only when the grammar rejects it is the whole vocabulary filtered by the grammar
/// and the token sampled again. Checking one token is cheap, filtering the vocabulary is
/// not, and a model asked for JSON mostly proposes tokens the grammar allows.
final class LlamaSampler {
    private let chain: UnsafeMutablePointer<llama_sampler>
    private let grammar: UnsafeMutablePointer<llama_sampler>?
    private var candidates: [llama_token_data]
    /// Tokens the grammar rejected, so the vocabulary was filtered (for benchmarks).
    private(set) var resamples = 0

    init(options: SamplingOptions, vocab: OpaquePointer, grammar: JSONGrammar?, banned: Set<llama_token> = []) throws(LlamaError) {
        let vocabularySize = llama_vocab_n_tokens(vocab)
        if let grammar {
            // Parsing the grammar reads llama.cpp's statics too (EngineExit).
            guard let made = EngineExit.guarded({ llama_sampler_init_grammar(vocab, grammar.text, "root") }), let sampler = made else {
                throw .grammarRejected
            }
            self.grammar = sampler
            candidates = [llama_token_data](repeating: llama_token_data(id: 0, logit: 0, p: 0), count: Int(vocabularySize))
        } else {
            self.grammar = nil
            candidates = []
        }
        var params = llama_sampler_chain_default_params()
        params.no_perf = true
        chain = llama_sampler_chain_init(params)
        if !banned.isEmpty {
            let biases = banned.map { llama_logit_bias(token: $0, bias: -Float.infinity) }
            llama_sampler_chain_add(
                chain,
                biases.withUnsafeBufferPointer { buffer in
                    llama_sampler_init_logit_bias(vocabularySize, Int32(buffer.count), buffer.baseAddress)
                })
        }
        llama_sampler_chain_add(chain, llama_sampler_init_penalties(vocabularySize, 64, 1.1, 0, 0))
        if options.temperature <= 0 {
            llama_sampler_chain_add(chain, llama_sampler_init_greedy())
        } else {
            if options.topK > 0 { llama_sampler_chain_add(chain, llama_sampler_init_top_k(Int32(options.topK))) }
            llama_sampler_chain_add(chain, llama_sampler_init_top_p(Float(options.topP), 1))
            llama_sampler_chain_add(chain, llama_sampler_init_temp(Float(options.temperature)))
            llama_sampler_chain_add(chain, llama_sampler_init_dist(options.seed ?? UInt32.random(in: 0...UInt32.max)))
        }
    }

    deinit {
        llama_sampler_free(chain)
        if let grammar { llama_sampler_free(grammar) }
    }

    /// Whether a grammar constrains the tokens.
    var hasGrammar: Bool { grammar != nil }

    /// Samples from the logits of the batch's position `index` (-1: its last).
    fileprivate func sample(context: OpaquePointer, at index: Int32 = -1) -> llama_token {
        // llama_sampler_sample also accepts the token into the chain (for the penalties).
        guard let grammar, let logits = llama_get_logits_ith(context, index) else { return llama_sampler_sample(chain, context, index) }
        let token = candidates.withUnsafeMutableBufferPointer { buffer -> llama_token in
            guard let base = buffer.baseAddress else { return 0 }
            func fill() -> llama_token_data_array {
                for index in buffer.indices { buffer[index] = llama_token_data(id: llama_token(index), logit: logits[index], p: 0) }
                return llama_token_data_array(data: base, size: buffer.count, selected: -1, sorted: false)
            }
            var all = fill()
            llama_sampler_apply(chain, &all)
            var proposed = all.selected >= 0 ? all.data[Int(all.selected)] : llama_token_data(id: 0, logit: 0, p: 0)
            proposed.logit = 1
            // The one-candidate array points at `proposed` only while the grammar reads it.
            let allowed = withUnsafeMutablePointer(to: &proposed) { pointer in
                var single = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
                llama_sampler_apply(grammar, &single)
                return pointer.pointee.logit.isFinite
            }
            if allowed { return proposed.id }
            resamples += 1
            var constrained = fill()
            llama_sampler_apply(grammar, &constrained)
            llama_sampler_apply(chain, &constrained)
            return constrained.selected >= 0 ? constrained.data[Int(constrained.selected)].id : 0
        }
        llama_sampler_accept(grammar, token)
        llama_sampler_accept(chain, token)
        return token
    }
}

/// Process-wide llama.cpp initialisation and log routing.
enum LlamaBackend {
    static let logger = Logger(label: "parley.llama.cpp")

    private static let initialized: Bool = {
        llama_log_set(
            { level, text, _ in
                guard let text else { return }
                let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !message.isEmpty else { return }
                if level == GGML_LOG_LEVEL_ERROR {
                    LlamaBackend.logger.error("\(message)")
                } else {
                    LlamaBackend.logger.trace("\(message)")
                }
            }, nil)
        llama_backend_init()
        return true
    }()

    static func initializeOnce() { _ = initialized }
}
#endif
