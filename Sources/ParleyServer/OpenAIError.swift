import Foundation
import HTTPTypes
import Hummingbird
import ParleyCloud
import ParleyCore
import ParleyRuntime
import ParleyData

/// A failed request in OpenAI's shape, `{"error":{"message","type","param","code"}}`, with
/// the status code OpenAI uses for the same failure, so the official SDKs raise their usual
/// exceptions (`BadRequestError`, `AuthenticationError`, `NotFoundError`, …).
public struct OpenAIError: Error, HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// What went wrong and what to do, for a person.
    public var message: String
    /// OpenAI's category: `invalid_request_error`, `authentication_error`, `rate_limit_error`,
    /// `server_error`.
    public var type: String
    /// The request field at fault, if one is.
    public var param: String?
    /// A machine-readable reason, e.g. `invalid_api_key`, `model_not_found`.
    public var code: String?
    /// Seconds a client should wait before trying again (`Retry-After`); 503 and 429 say 5
    /// when nothing more precise is known.
    public var retryAfter: Int?

    /// Creates an error.
    public init(status: HTTPResponse.Status, message: String, type: String, param: String? = nil, code: String? = nil) {
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
    }

    public var description: String { "\(status.code) \(type): \(message)" }

    /// 400: the request cannot be served as it is.
    public static func invalidRequest(_ message: String, param: String? = nil, code: String? = nil) -> OpenAIError {
        OpenAIError(status: .badRequest, message: message, type: "invalid_request_error", param: param, code: code)
    }

    /// 401: no key, or not one of the server's.
    public static func unauthorized(keyGiven: Bool) -> OpenAIError {
        OpenAIError(
            status: .unauthorized,
            message: keyGiven
                ? "Incorrect API key provided; use one of the keys in the server's PARLEY_API_KEYS."
                : "You didn't provide an API key: send it as `Authorization: Bearer KEY`.",
            type: "invalid_request_error", code: "invalid_api_key")
    }

    /// 404: no such endpoint.
    public static func unknownURL(method: HTTPRequest.Method, path: String) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "Invalid URL (\(method.rawValue) \(path)).", type: "invalid_request_error",
            code: "unknown_url")
    }

    /// 404: no such model.
    public static func modelNotFound(_ model: String) -> OpenAIError {
        OpenAIError(
            status: .notFound, message: "The model `\(model)` does not exist; GET /v1/models lists the ones this server knows.",
            type: "invalid_request_error", param: "model", code: "model_not_found")
    }

    /// 413: the body is larger than the server accepts.
    public static func tooLarge(limit: Int) -> OpenAIError {
        OpenAIError(
            status: .contentTooLarge, message: "The request body is larger than this server accepts (\(limit) bytes).",
            type: "invalid_request_error", code: "request_too_large")
    }

    /// 504: the request ran out of time.
    public static func timedOut(after limit: Duration) -> OpenAIError {
        OpenAIError(
            status: .gatewayTimeout, message: "The request took longer than the server allows (\(limit)).",
            type: "server_error", code: "timeout")
    }

    /// The error a client sees for `error`, whatever was thrown while serving it.
    public static func from(_ error: any Error) -> OpenAIError {
        if let fault = EngineFault(error) {
            let text = "\(error)"
            switch fault {
            case .promptTooLong: return .invalidRequest(text, param: "messages", code: "context_length_exceeded")
            case .languageModelFailed: return OpenAIError(status: .internalServerError, message: "The server failed: \(text)", type: "server_error")
            case .audioEncodingFailed: return OpenAIError(status: .internalServerError, message: text, type: "server_error", code: "encoding_failed")
            case .audioTooLong: return .invalidRequest(text, param: "file", code: "audio_too_long")
            case .invalidAudio: return .invalidRequest(text, param: "file", code: "invalid_audio")
            }
        }
        switch error {
        case let error as OpenAIError:
            return error
        case let error as ChainExhaustedError:
            return OpenAIError(status: .serviceUnavailable, message: error.description, type: "server_error", code: "no_provider_available")
        case let error as StructuredGenerationError:
            return OpenAIError(status: .badGateway, message: error.description, type: "server_error", code: "invalid_structured_output")
        case let error as ProviderError:
            switch error {
            case .invalidInput(let detail): return .invalidRequest(detail)
            case .contextOverflow: return .invalidRequest(error.description, param: "messages", code: "context_length_exceeded")
            case .unavailable: return OpenAIError(status: .serviceUnavailable, message: error.description, type: "server_error", code: "provider_unavailable")
            case .engineFailure: return OpenAIError(status: .internalServerError, message: error.description, type: "server_error")
            }
        case let error as HTTPProviderError:
            switch error.kind {
            case .rateLimited: return OpenAIError(status: .tooManyRequests, message: error.description, type: "rate_limit_error", code: "rate_limit_exceeded")
            case .badRequest: return .invalidRequest(error.description)
            case .transport: return OpenAIError(status: .serviceUnavailable, message: error.description, type: "server_error", code: "provider_unavailable")
            case .timeout: return OpenAIError(status: .gatewayTimeout, message: error.description, type: "server_error", code: "timeout")
            case .authentication, .server, .malformedResponse:
                return OpenAIError(status: .badGateway, message: error.description, type: "server_error", code: "upstream_error")
            }
        case let error as UnsupportedCapabilityError:
            return .invalidRequest(error.description, param: "messages", code: "unsupported_content")
        case let error as ImageReadingError:
            switch error {
            case .noReader: return .invalidRequest(error.description, param: "messages", code: "unsupported_content")
            case .failed: return OpenAIError(status: .internalServerError, message: error.description, type: "server_error", code: "ocr_failed")
            }
        case let error as ImageError:
            return .invalidRequest(error.description, param: "messages", code: "invalid_image")
        case let error as ProviderTimeoutError:
            return OpenAIError(status: .gatewayTimeout, message: "The provider sent \(error.description).", type: "server_error", code: "timeout")
        case let error as StoreError:
            return .from(error)
        case let error as RuntimeError:
            return .invalidRequest(error.description, param: "model")
        case let error as WAVError:
            return .invalidRequest(error.description, param: "file", code: "invalid_audio")
        case let error as HTTPError:
            let type = error.status.code >= 500 ? "server_error" : "invalid_request_error"
            return OpenAIError(status: error.status, message: error.body ?? error.status.reasonPhrase, type: type)
        default:
            return OpenAIError(status: .internalServerError, message: "The server failed: \(error).", type: "server_error")
        }
    }

    /// The JSON body.
    public var body: Data {
        struct Document: Encodable {
            struct Detail: Encodable {
                var message: String
                var type: String
                var param: String?
                var code: String?

                func encode(to encoder: any Encoder) throws {
                    // OpenAI sends `null` for an absent param or code, and clients read the keys.
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(message, forKey: .message)
                    try container.encode(type, forKey: .type)
                    try container.encode(param, forKey: .param)
                    try container.encode(code, forKey: .code)
                }

                enum CodingKeys: String, CodingKey { case message, type, param, code }
            }
            var error: Detail
        }
        let document = Document(error: .init(message: message, type: type, param: param, code: code))
        return (try? JSONEncoder().encode(document)) ?? Data(#"{"error":{"message":"error","type":"server_error","param":null,"code":null}}"#.utf8)
    }

    /// The event a stream ends with when it fails after its head was sent.
    var streamEvent: String { "data: \(String(decoding: body, as: UTF8.self))\n\n" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        // When to try again, so the SDKs' retries wait rather than hammer a server that is busy
        // or whose providers are down.
        if status == .serviceUnavailable || status == .tooManyRequests, let name = HTTPField.Name("retry-after") {
            headers[name] = "\(retryAfter ?? 5)"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
