import Foundation
import ParleyCore
import ParleyTestLanes
import Testing
@testable import ParleyLocal

/// These run llama.cpp's embedding API on all-MiniLM-L6-v2, converted to GGUF by
/// `scripts/setup` (scripts/convert_bert_gguf.py), and compare it with the original model's
/// embeddings (scripts/embedding_reference.py: its tokenizer and float32 weights in numpy).
@Suite("llama.cpp embeddings", .serialized, .onDeviceEngines)
struct LlamaEmbedderTests {
    static let embedder = LlamaEmbedder(configuration: .init(modelPath: TestEnvironment.paths.defaultEmbeddingModel.path, threads: 2))

    func embedder() throws -> LlamaEmbedder {
        _ = try TestEnvironment.require(TestEnvironment.paths.defaultEmbeddingModel)
        return Self.embedder
    }

    static func cosine(_ a: [Float], _ b: [Float]) -> Float {
        let dot = zip(a, b).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        let lengths = (a.reduce(Float(0)) { $0 + $1 * $1 } * b.reduce(Float(0)) { $0 + $1 * $1 }).squareRoot()
        return dot / lengths
    }

    struct Reference: Decodable {
        struct Sentence: Decodable {
            var text: String
            var tokens: [Int]
            var embedding: [Float]
        }

        var sentences: [Sentence]
    }

    @Test("vectors match the original model's (cosine ≥ 0.99) with the same token counts")
    func matchesReference() async throws {
        let file = try TestEnvironment.require(TestEnvironment.paths.testData.appendingPathComponent("embedding_reference.json"))
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: file))
        #expect(reference.sentences.count >= 5)
        let result = try await embedder().embed(reference.sentences.map(\.text))
        #expect(result.inputTokens == reference.sentences.reduce(0) { $0 + $1.tokens.count })
        for (sentence, vector) in zip(reference.sentences, result.vectors) {
            let similarity = Self.cosine(vector, sentence.embedding)
            #expect(similarity >= 0.99, "\(sentence.text): cosine \(similarity)")
        }
        // One at a time gives the same vectors as the batch.
        let alone = try await embedder().embed([reference.sentences[2].text]).vectors[0]
        #expect(Self.cosine(alone, result.vectors[2]) > 0.9999)
    }

    @Test("384 dimensions, each vector of length 1, one per input in order")
    func normalized() async throws {
        let texts = ["One.", "Two sentences here. And a second one.", String(repeating: "word ", count: 600)]
        let result = try await embedder().embed(texts)
        #expect(result.vectors.count == 3)
        #expect(result.model == "all-MiniLM-L6-v2.f16")
        for vector in result.vectors {
            #expect(vector.count == 384)
            let length = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(length - 1) < 1e-4)
        }
        // The long text was cut to 256 tokens: its count is there with the others'.
        #expect(result.inputTokens <= 256 + 20)
        #expect(try await embedder().dimensions == 384)
    }

    @Test("similar sentences are closer than unrelated ones")
    func similarity() async throws {
        let texts = [
            "The cat sits on the mat.", "A kitten is resting on a rug.", "The stock market fell sharply on Monday.",
            "How do I get to the train station?", "Where is the railway station?",
        ]
        let v = try await embedder().embed(texts).vectors
        #expect(Self.cosine(v[0], v[1]) > Self.cosine(v[0], v[2]) + 0.2)
        #expect(Self.cosine(v[3], v[4]) > Self.cosine(v[3], v[2]) + 0.2)
        #expect(Self.cosine(v[3], v[4]) > 0.6)
    }

    @Test("a batch larger than one evaluation (many texts) comes back whole and in order")
    func largeBatch() async throws {
        let texts = (0..<40).map { "Sentence number \($0) talks about topic \($0 % 3 == 0 ? "music" : "sport")." }
        let batch = try await embedder().embed(texts).vectors
        #expect(batch.count == 40)
        let single = try await embedder().embed([texts[37]]).vectors[0]
        #expect(Self.cosine(batch[37], single) > 0.9999)
    }

    @Test("an empty text is refused with a message that says what to send")
    func emptyText() async throws {
        await #expect(throws: ProviderError.self) { try await embedder().embed(["fine", "  "]) }
        let none = try await embedder().embed([])
        #expect(none.vectors.isEmpty)
    }

    @Test(
        "a chat model is not an embedding model: a clear error",
        .enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.paths.defaultLanguageModel.path)))
    func chatModelRefused() async throws {
        let chat = LlamaEmbedder(configuration: .init(modelPath: TestEnvironment.paths.defaultLanguageModel.path, threads: 1))
        await #expect(throws: LlamaError.notAnEmbeddingModel(path: TestEnvironment.paths.defaultLanguageModel.path)) {
            try await chat.embed(["hello"])
        }
    }

    @Test("a missing model file says how to get it")
    func missingModel() async throws {
        let missing = LlamaEmbedder(configuration: .init(modelPath: "/nonexistent/model.gguf"))
        guard case .missingModel(_, let hint) = await missing.availability() else {
            Issue.record("expected a missing model")
            return
        }
        #expect(hint.contains("scripts/setup"))
        await #expect(throws: LlamaError.modelNotFound(path: "/nonexistent/model.gguf")) { try await missing.embed(["hello"]) }
    }
}
