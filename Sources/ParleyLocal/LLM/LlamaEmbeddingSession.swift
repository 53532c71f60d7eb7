#if canImport(CLlama) || canImport(ParleyEngines)
#if canImport(CLlama)
import CLlama
#else
import ParleyEngines  // Apple platforms with the AppleEngines trait: llama.cpp in the ParleyEngines binary target
#endif
import Foundation

/// One llama.cpp embedding model (a BERT-style encoder such as all-MiniLM-L6-v2 in GGUF) and a
/// context that pools each sequence into one vector. Owns the C objects and frees them in
/// `deinit`; no C pointer leaves this class. Not thread-safe: ``LlamaEmbedder`` (an actor) is its
/// only user.
final class LlamaEmbeddingSession {
    private let model: LlamaModelHandle
    private let context: OpaquePointer
    private let vocab: OpaquePointer
    private var batch: llama_batch
    /// The most tokens one evaluation takes (the context and batch size).
    let batchTokens: Int
    /// The most sequences one evaluation pools.
    let batchSequences: Int
    /// The length of each vector.
    let dimensions: Int
    /// The most tokens one text is read to (longer texts are cut there).
    let tokensPerText: Int

    init(modelPath: String, threads: Int, tokensPerText: Int, batchSequences: Int = 16) throws(LlamaError) {
        let model = try LlamaModelHandle(path: modelPath)
        // The encoder attends over whole texts: one batch is one evaluation, so it is as long as
        // the longest text the model was trained on.
        let trained = Int(llama_model_n_ctx_train(model.pointer))
        let length = trained > 0 ? min(trained, 512) : 512
        var contextParams = llama_context_default_params()
        contextParams.n_ctx = UInt32(length)
        contextParams.n_batch = UInt32(length)
        contextParams.n_ubatch = UInt32(length)
        contextParams.n_seq_max = UInt32(batchSequences)
        // One window for every sequence of a batch (not a share each): an encoder keeps no memory.
        contextParams.kv_unified = true
        contextParams.n_threads = Int32(threads)
        contextParams.n_threads_batch = Int32(threads)
        contextParams.embeddings = true
        contextParams.pooling_type = LLAMA_POOLING_TYPE_UNSPECIFIED
        contextParams.no_perf = true
        contextParams.abort_callback = { _ in EngineExit.isExiting }
        guard let context = llama_init_from_model(model.pointer, contextParams) else {
            throw .contextCreationFailed(contextLength: length)
        }
        // A model that pools nothing (a chat model) gives one vector per token, not per text.
        let pooling = llama_pooling_type(context)
        guard pooling == LLAMA_POOLING_TYPE_MEAN || pooling == LLAMA_POOLING_TYPE_CLS || pooling == LLAMA_POOLING_TYPE_LAST,
            let vocab = llama_model_get_vocab(model.pointer)
        else {
            llama_free(context)
            throw .notAnEmbeddingModel(path: modelPath)
        }
        self.model = model
        self.context = context
        self.vocab = vocab
        self.batchTokens = length
        self.batchSequences = batchSequences
        self.dimensions = Int(llama_model_n_embd(model.pointer))
        self.tokensPerText = max(2, min(tokensPerText, length))
        batch = llama_batch_init(Int32(length), 0, 1)
    }

    deinit {
        llama_batch_free(batch)
        llama_free(context)  // before the model, which `model` frees after this
    }

    /// Sets the threads the next evaluations use.
    func useThreads(_ threads: Int) {
        LlamaModelHandle.useThreads(threads, in: context)
    }

    /// The model's description from its metadata (e.g. "bert 22M F16").
    var modelDescription: String { model.description }

    /// `text`'s tokens with the model's own start and separator tokens (`[CLS] … [SEP]`), cut to
    /// ``tokensPerText`` with the separator kept last. Special tokens' text in `text` is read as
    /// plain words.
    func tokenize(_ text: String) throws(LlamaError) -> [llama_token] {
        guard EngineExit.enter() else { throw .tokenizationFailed }
        defer { EngineExit.leave() }
        let length = Int32(text.utf8.count)
        var tokens = [llama_token](repeating: 0, count: Int(length) + 8)
        var count = llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), true, false)
        if count < 0 {
            tokens = [llama_token](repeating: 0, count: Int(-count))
            count = llama_tokenize(vocab, text, length, &tokens, Int32(tokens.count), true, false)
        }
        guard count >= 0 else { throw .tokenizationFailed }
        tokens = Array(tokens.prefix(Int(count)))
        if tokens.count > tokensPerText {
            let separator = llama_vocab_sep(vocab)
            let ended = tokens.last == separator && separator != LLAMA_TOKEN_NULL
            tokens = Array(tokens.prefix(ended ? tokensPerText - 1 : tokensPerText))
            if ended { tokens.append(separator) }
        }
        return tokens
    }

    /// One pooled vector per text (as the model's pooling makes it, not yet normalized), in
    /// order. The texts are evaluated together, as many as fit one batch at a time.
    func embed(_ texts: [[llama_token]]) throws(LlamaError) -> [[Float]] {
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            var end = start
            var tokens = 0
            while end < texts.count, end - start < batchSequences, tokens + texts[end].count <= batchTokens {
                tokens += texts[end].count
                end += 1
            }
            // Each text fits alone: tokenize(_:) cut it to at most the batch.
            if end == start { end = start + 1 }
            vectors += try evaluate(Array(texts[start..<end]))
            start = end
        }
        return vectors
    }

    /// Evaluates `texts` as sequences 0, 1, … of one batch and reads each one's pooled vector.
    private func evaluate(_ texts: [[llama_token]]) throws(LlamaError) -> [[Float]] {
        var index = 0
        for (sequence, tokens) in texts.enumerated() {
            for (position, token) in tokens.enumerated() where index < batchTokens {
                batch.token[index] = token
                batch.pos[index] = llama_pos(position)
                batch.n_seq_id[index] = 1
                batch.seq_id[index]?[0] = llama_seq_id(sequence)
                batch.logits[index] = 1
                index += 1
            }
        }
        batch.n_tokens = Int32(index)
        guard EngineExit.enter() else { throw .decodeFailed(code: 2) }
        let code = llama_encode(context, batch)
        EngineExit.leave()
        guard code == 0 else { throw .decodeFailed(code: code) }
        var vectors: [[Float]] = []
        for sequence in texts.indices {
            guard let pooled = llama_get_embeddings_seq(context, llama_seq_id(sequence)) else { throw .embeddingUnavailable }
            vectors.append(Array(UnsafeBufferPointer(start: pooled, count: dimensions)))
        }
        return vectors
    }
}
#endif
