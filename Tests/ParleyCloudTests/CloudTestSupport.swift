import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// Splits `text`'s bytes into chunks of `size` (so events and characters straddle chunks).
func chunked(_ text: String, size: Int) -> [Data] {
    let bytes = Array(text.utf8)
    return stride(from: 0, to: bytes.count, by: size).map { Data(bytes[$0..<min(bytes.count, $0 + size)]) }
}

/// SSE text of `data:` events (and optional event names).
func sse(_ events: [(String?, String)]) -> String {
    events.map { name, data in (name.map { "event: \($0)\n" } ?? "") + "data: \(data)\n\n" }.joined()
}

/// Runs a request to the end, returning the text, the finish event, or the error.
func run(_ provider: some LanguageModelProvider, _ request: ChatRequest) async -> (text: String, usage: Usage?, error: (any Error)?) {
    var text = ""
    var usage: Usage?
    do {
        for try await event in provider.complete(request) {
            switch event {
            case .text(let piece): text += piece
            case .finished(_, let reported): usage = reported
            case .provider, .toolCall, .toolCallDelta: break
            }
        }
        return (text, usage, nil)
    } catch {
        return (text, usage, error)
    }
}

/// The typed HTTP error kind, if `error` is one.
func httpKind(_ error: (any Error)?) -> HTTPProviderError.Kind? {
    (error as? HTTPProviderError)?.kind
}

/// A short request with an image, to check how each provider encodes images.
let pictureRequest = ChatRequest(
    messages: [
        .system("Be brief."),
        ChatMessage(role: .user, parts: [.text("What is in the picture?"), .image(data: Data([0x89, 0x50, 0x4E, 0x47]), mimeType: "image/png")]),
    ],
    sampling: SamplingOptions(temperature: 0.3, maxTokens: 64))

let plainRequest = ChatRequest(messages: [.system("Be brief."), .user("Capital of France?")], sampling: SamplingOptions(temperature: 0, maxTokens: 32))

/// Short timeouts for tests of stalls (real time, but nothing asserts on speed).
let testTimeouts = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(30), idle: .milliseconds(300))
