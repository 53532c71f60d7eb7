import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension Request {
    /// The whole body, refusing one larger than `limit` bytes with 413 (at once when the
    /// `Content-Length` says so, else as soon as the bytes pass the limit).
    func collectBody(limit: Int) async throws -> ByteBuffer {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw OpenAIError.tooLarge(limit: limit)
        }
        var collected = ByteBuffer()
        do {
            for try await var part in body {
                guard collected.readableBytes + part.readableBytes <= limit else { throw OpenAIError.tooLarge(limit: limit) }
                collected.writeBuffer(&part)
            }
        } catch let error as OpenAIError {
            throw error
        } catch {
            // The client's fault: a body that ends before its Content-Length, or a broken upload.
            throw OpenAIError.invalidRequest(
                "The request body could not be read whole: it ended before its Content-Length, or the upload broke off.",
                code: "incomplete_body")
        }
        return collected
    }

    /// One decoder for every request body (it keeps no state between calls).
    static let decoder = JSONDecoder()

    /// The body decoded as JSON, with OpenAI's messages for a body that is not JSON, lacks a
    /// required field or has one of the wrong type.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        try await decodeJSONKeepingBody(type, limit: limit).value
    }

    /// Decodes the body as ``decodeJSON(_:limit:)`` does, and returns its bytes too (to read
    /// parts whose member order matters, such as a response schema, with ``JSONValue``).
    func decodeJSONKeepingBody<T: Decodable>(_ type: T.Type, limit: Int) async throws -> (value: T, body: Data) {
        let buffer = try await collectBody(limit: limit)
        guard buffer.readableBytes > 0 else {
            throw OpenAIError.invalidRequest("The request has no body: send a JSON object.")
        }
        do {
            let data = Data(buffer.readableBytesView)
            return (try Self.decoder.decode(T.self, from: data), data)
        } catch let error as OpenAIError {
            throw error
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw OpenAIError.invalidRequest("We could not parse the JSON body of your request: \(error).")
        }
    }

    /// OpenAI's wording for a JSON body that does not decode.
    static func describe(_ error: DecodingError) -> OpenAIError {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
        }
        switch error {
        case .keyNotFound(let key, let context):
            let name = path(context.codingPath + [key])
            return .invalidRequest("Missing required parameter: '\(name)'.", param: name, code: "missing_required_parameter")
        case .typeMismatch(let expected, let context):
            let name = path(context.codingPath)
            return .invalidRequest("Invalid type for '\(name)': expected \(Self.typeName(expected)).", param: name, code: "invalid_type")
        case .valueNotFound(let expected, let context):
            let name = path(context.codingPath)
            return .invalidRequest("Invalid value for '\(name)': expected \(Self.typeName(expected)), got null.", param: name, code: "invalid_type")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .invalidRequest("We could not parse the JSON body of your request: it is not valid JSON.")
            }
            let name = path(context.codingPath)
            return .invalidRequest("Invalid value for '\(name)': \(context.debugDescription)", param: name, code: "invalid_value")
        @unknown default:
            return .invalidRequest("We could not parse the JSON body of your request.")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is Double.Type, is UInt32.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}
