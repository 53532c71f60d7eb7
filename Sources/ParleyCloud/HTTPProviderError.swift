import Foundation
import ParleyCore

/// A failure of an HTTP provider, sorted the way a fallback chain needs: configuration
/// problems, passing faults (with the server's Retry-After), and bad requests.
public struct HTTPProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// 401 or 403: the key is missing, wrong or lacks access.
        case authentication(status: Int)
        /// 429: too many requests or quota exceeded; come back after `retryAfter`.
        case rateLimited(retryAfter: Duration?)
        /// 5xx: the service failed.
        case server(status: Int)
        /// Another 4xx: the request was refused as it was.
        case badRequest(status: Int)
        /// The connection failed or broke (refused, reset, DNS).
        case transport
        /// A timeout: connecting, waiting for the first byte, or between chunks.
        case timeout(Phase)
        /// The response could not be understood, or the stream ended before its last event.
        case malformedResponse
    }

    /// Which wait ran out.
    public enum Phase: String, Sendable, Equatable {
        case connect
        case firstByte = "first byte"
        case idle = "next chunk"
    }

    /// The provider, e.g. "openai".
    public var provider: String
    public var kind: Kind
    /// The provider's own message, or a description of the fault.
    public var message: String

    /// Creates an error.
    public init(provider: String, kind: Kind, message: String) {
        self.provider = provider
        self.kind = kind
        self.message = message
    }

    public var description: String {
        switch kind {
        case .authentication(let status):
            return "\(provider) refused the credentials (HTTP \(status)): \(message); check the API key"
        case .rateLimited(let retryAfter):
            let wait = retryAfter.map { ", retry after \($0)" } ?? ""
            return "\(provider) is rate limiting (HTTP 429)\(wait): \(message)"
        case .server(let status):
            return "\(provider) failed (HTTP \(status)): \(message)"
        case .badRequest(let status):
            return "\(provider) rejected the request (HTTP \(status)): \(message)"
        case .transport:
            return "\(provider) could not be reached: \(message)"
        case .timeout(let phase):
            return "\(provider) timed out waiting for the \(phase.rawValue)"
        case .malformedResponse:
            return "\(provider) sent an unusable response: \(message)"
        }
    }
}

extension HTTPProviderError: ClassifiedError {
    public var failureKind: FailureKind {
        switch kind {
        case .authentication: return .configuration
        case .rateLimited(let retryAfter): return .transient(retryAfter: retryAfter)
        case .badRequest: return .invalidRequest
        case .server, .transport, .timeout, .malformedResponse: return .transient(retryAfter: nil)
        }
    }
}

extension HTTPProviderError {
    /// The error for a non-success status, with the provider's message from its error body.
    static func from(status: Int, body: Data, retryAfter: String?, provider: String) -> HTTPProviderError {
        let message = errorMessage(in: body) ?? (String(data: body.prefix(300), encoding: .utf8) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let text = message.isEmpty ? "no details" : message
        switch status {
        case 401, 403: return .init(provider: provider, kind: .authentication(status: status), message: text)
        case 429: return .init(provider: provider, kind: .rateLimited(retryAfter: parseRetryAfter(retryAfter)), message: text)
        case 500...: return .init(provider: provider, kind: .server(status: status), message: text)
        default: return .init(provider: provider, kind: .badRequest(status: status), message: text)
        }
    }

    /// The message in the error bodies the providers document: `{"error":{"message"}}`
    /// (OpenAI, Anthropic), `{"error":"…"}` (Ollama, AssemblyAI), `{"err_msg"}` (Deepgram),
    /// `{"detail":{"message"}}` or `{"detail":"…"}` (ElevenLabs), `{"message"}`.
    static func errorMessage(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        if let error = object["error"] as? [String: Any], let message = error["message"] as? String { return message }
        if let error = object["error"] as? String { return error }
        if let message = object["err_msg"] as? String { return message }
        if let detail = object["detail"] as? [String: Any], let message = detail["message"] as? String { return message }
        if let detail = object["detail"] as? String { return detail }
        return object["message"] as? String
    }

    /// Retry-After as seconds or an HTTP date.
    static func parseRetryAfter(_ value: String?) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return .milliseconds(Int64(max(0, seconds) * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
    }
}
