import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// The three waits of an HTTP provider — connecting, the response head, the gap between two
/// chunks — each ending in its own typed timeout. The servers hold far longer than the
/// timeouts, so the tests check which wait ran out, never how fast anything was.
@Suite("Connect, first-byte and idle timeouts", .timeLimit(.minutes(1)))
struct StreamTimeoutTests {
    @Test("a port that never completes the handshake is a connect timeout", arguments: WireFormat.allCases)
    func connect(format: WireFormat) async throws {
        let listener = try UnacceptingListener()
        defer { listener.close() }
        let timeouts = HTTPTimeouts(connect: .milliseconds(300), firstByte: .seconds(20), idle: .seconds(20))
        let transcript = await ChatTranscript.collect(format.provider(listener.baseURL, timeouts: timeouts), plainRequest)
        #expect(transcript.kind == .timeout(.connect))
        #expect((transcript.error as? HTTPProviderError)?.failureKind == .transient(retryAfter: nil))
    }

    @Test("a server that never sends the response head is a first-byte timeout", arguments: WireFormat.allCases)
    func firstByte(format: WireFormat) async throws {
        let (opening, closing) = format.reply("late", " reply")
        let server = try await ScriptedServer.start { _ in
            .chunks([Data((opening + closing).utf8)], contentType: format.contentType, headDelay: .seconds(20))
        }
        defer { server.stop() }
        let timeouts = HTTPTimeouts(connect: .seconds(5), firstByte: .milliseconds(500), idle: .seconds(20))
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL, timeouts: timeouts), plainRequest)
        #expect(transcript.kind == .timeout(.firstByte))
        #expect(await server.observer.wait(for: .requests))
    }

    @Test("a stream that stops between chunks is an idle timeout, after the text received", arguments: WireFormat.allCases)
    func idle(format: WireFormat) async throws {
        let (opening, closing) = format.reply("Hello", " there")
        let server = try await ScriptedServer.start { _ in
            ScriptedReply(contentType: format.contentType, steps: [.write(Data(opening.utf8)), .pause(.seconds(20)), .write(Data(closing.utf8))])
        }
        defer { server.stop() }
        let timeouts = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(5), idle: .seconds(1))
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL, timeouts: timeouts), plainRequest)
        #expect(transcript.text == "Hello")
        #expect(transcript.kind == .timeout(.idle))
        #expect(await server.observer.wait(for: .requests))
    }

    @Test("the first-byte deadline ends with the response head: a long, steady stream is not cut", arguments: WireFormat.allCases)
    func longStreamOutlivesFirstByteDeadline(format: WireFormat) async throws {
        let (opening, closing) = format.reply("Slow", " but steady")
        let bytes = Data((opening + closing).utf8)
        let pieces = bytes.split(at: Array(stride(from: bytes.count / 6, to: bytes.count, by: bytes.count / 6)))
        let server = try await ScriptedServer.start { _ in
            // Each gap is well under the idle timeout; together they are well past the first-byte one.
            .chunks(pieces, contentType: format.contentType, gap: .milliseconds(1500))
        }
        defer { server.stop() }
        let timeouts = HTTPTimeouts(connect: .seconds(10), firstByte: .seconds(5), idle: .seconds(30))
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL, timeouts: timeouts), plainRequest)
        #expect(transcript.error == nil)
        #expect(transcript.text == "Slow but steady")
    }

    @Test("a response head slower than the idle timeout but within the first-byte one is waited for", arguments: WireFormat.allCases)
    func slowHeadWithinFirstByte(format: WireFormat) async throws {
        let (opening, closing) = format.reply("Worth", " the wait")
        let server = try await ScriptedServer.start { _ in
            .chunks([Data((opening + closing).utf8)], contentType: format.contentType, headDelay: .seconds(1))
        }
        defer { server.stop() }
        let timeouts = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(15), idle: .milliseconds(200))
        let transcript = await ChatTranscript.collect(format.provider(server.baseURL, timeouts: timeouts), plainRequest)
        #expect(transcript.error == nil)
        #expect(transcript.text == "Worth the wait")
        #expect(await server.observer.wait(for: .requests))
    }
}
