import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// Streamed replies whose bytes are cut, write by write, exactly where parsers go wrong:
/// inside two-, three- and four-byte characters and between the CR and LF of a line end.
@Suite("Streams split inside characters and line ends", .timeLimit(.minutes(1)))
struct ExactSplitStreamingTests {
    static let first = "Café — "
    static let second = "très bien 🇫🇷."

    @Test("every awkward offset is its own TCP write; the text arrives whole", arguments: WireFormat.allCases, ["\n", "\r\n"])
    func awkwardWrites(format: WireFormat, newline: String) async throws {
        let (opening, closing) = format.reply(Self.first, Self.second, newline: newline)
        let bytes = Data((opening + closing).utf8)
        let offsets = awkwardOffsets(bytes)
        #expect(offsets.count >= (newline == "\r\n" ? 12 : 8), "the sample must hold multi-byte characters to split")
        let server = try await ScriptedServer.start { _ in .chunks(bytes.split(at: offsets), contentType: format.contentType) }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        #expect(transcript.error == nil)
        #expect(transcript.text == Self.first + Self.second)
        #expect(transcript.finish == .stop)
        #expect(transcript.usage == format.reportedUsage)
    }

    @Test("one byte per write", arguments: WireFormat.allCases)
    func byteByByte(format: WireFormat) async throws {
        let (opening, closing) = format.reply(Self.first, Self.second, newline: "\r\n")
        let bytes = Data((opening + closing).utf8)
        let server = try await ScriptedServer.start { _ in
            .chunks(bytes.map { Data([$0]) }, contentType: format.contentType, gap: .zero)
        }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        #expect(transcript.error == nil)
        #expect(transcript.text == Self.first + Self.second)
    }

    @Test("the token limit is reported as finish reason length", arguments: WireFormat.allCases)
    func lengthLimit(format: WireFormat) async throws {
        let (opening, closing) = format.reply("Cut ", "short", finish: .length)
        let server = try await ScriptedServer.start { _ in
            .chunks(chunked(opening + closing, size: 5), contentType: format.contentType)
        }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        #expect(transcript.error == nil)
        #expect(transcript.finish == .length)
    }

    @Test("a stream cut after its first event delivers that text, then a typed, retryable error", arguments: WireFormat.allCases)
    func cutAfterFirstEvent(format: WireFormat) async throws {
        let (opening, _) = format.reply(Self.first, Self.second)
        let bytes = Data(opening.utf8)
        let gate = Gate()
        let server = try await ScriptedServer.start { _ in
            // The cut waits until the client has shown the first text, so it cannot overtake it.
            ScriptedReply(
                contentType: format.contentType,
                steps: bytes.split(at: awkwardOffsets(bytes)).flatMap { [.write($0), .pause(.milliseconds(3))] } + [.wait(gate)],
                ending: .cut)
        }
        defer { server.stop() }
        var text = ""
        var finished = false
        var failure: (any Error)?
        do {
            for try await event in format.provider(server.baseURL).complete(plainRequest) {
                switch event {
                case .text(let piece):
                    text += piece
                    if text == Self.first { await gate.open() }
                case .finished: finished = true
                case .provider, .toolCall, .toolCallDelta: break
                }
            }
        } catch {
            failure = error
        }
        await gate.open()
        #expect(text == Self.first)
        #expect(!finished)
        let error = try #require(failure as? HTTPProviderError)
        #expect(error.kind == .transport || error.kind == .malformedResponse)
        #expect(error.failureKind == .transient(retryAfter: nil))
    }

    @Test("a stream that ends cleanly without its terminal event is malformed", arguments: WireFormat.allCases)
    func endWithoutTerminalEvent(format: WireFormat) async throws {
        let (opening, _) = format.reply(Self.first, Self.second)
        let server = try await ScriptedServer.start { _ in .chunks([Data(opening.utf8)], contentType: format.contentType) }
        defer { server.stop() }
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL), plainRequest)
        #expect(transcript.text == Self.first)
        #expect(transcript.kind == .malformedResponse)
    }
}
