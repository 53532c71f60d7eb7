import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore

extension ChatCompletionsEndpoint {
    /// A cached answer in OpenAI's shape, whole or as a stream (a chunk per word, as a model
    /// streams), with `x-parley-cache: hit` and the provider that answered originally in the
    /// headers. No model runs, so no tokens are counted.
    func replay(_ answer: CachedChatAnswer, reply: Reply, streams: Bool, includeUsage: Bool) throws -> Response {
        var headers = HTTPFields()
        headers[.parleyCache] = "hit"
        headers.name(answer.identity)
        if streams {
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            func chunk(_ delta: ChatCompletionResponse.Chunk.Choice.Delta, finish: String? = nil) -> String {
                ChatCompletionResponse.event(
                    ChatCompletionResponse.Chunk(
                        id: reply.id, created: reply.created, model: answer.model, choices: [.init(delta: delta, finish_reason: finish)]))
            }
            var events = chunk(.init(role: "assistant", content: ""))
            for piece in Self.words(of: answer.text) { events += chunk(.init(content: piece)) }
            events += chunk(.init(), finish: answer.finishReason)
            if includeUsage {
                events += ChatCompletionResponse.event(
                    ChatCompletionResponse.Chunk(
                        id: reply.id, created: reply.created, model: answer.model, choices: [], usage: .init(answer.usage)))
            }
            events += ChatCompletionResponse.done
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: events)))
        }
        headers[.contentType] = "application/json"
        let document = ChatCompletionResponse.Completion(
            id: reply.id, created: reply.created, model: answer.model,
            choices: [.init(message: .init(content: answer.text), finish_reason: answer.finishReason)],
            usage: .init(answer.usage))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(document))))
    }

    /// `text` cut before each run of whitespace that follows a word: the pieces join back into
    /// the text.
    static func words(of text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            if character.isWhitespace, let last = current.last, !last.isWhitespace {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
