import Foundation
import ParleyCloud
import ParleyCore
import ParleyTestServers
import Testing

/// Cancelling the task that consumes a reply must close the HTTP connection: the server,
/// which keeps writing keep-alives, sees a write fail. The tests await the server's
/// observation (bounded against hanging, not timed).
@Suite("Cancellation closes the connection", .timeLimit(.minutes(1)))
struct StreamCancellationTests {
    @Test("cancelling the consuming task mid-stream", arguments: WireFormat.allCases)
    func cancelMidStream(format: WireFormat) async throws {
        let (opening, _) = format.reply("First words", "never sent")
        let server = try await ScriptedServer.start { _ in
            .chunks([Data(opening.utf8)], contentType: format.contentType, ending: .hold(keepAlive: format.keepAlive))
        }
        defer { server.stop() }
        let provider = format.provider(server.baseURL)
        let (received, receivedSink) = AsyncStream.makeStream(of: String.self)
        let consumer = Task {
            var text = ""
            for try await event in provider.complete(plainRequest) {
                if case .text(let piece) = event {
                    text += piece
                    receivedSink.yield(piece)
                }
            }
            return text
        }
        var iterator = received.makeAsyncIterator()
        #expect(await iterator.next() == "First words")
        consumer.cancel()
        #expect(await server.observer.waitForAbandoned(1))
        // The consumer ends: with what it had, or with a cancellation, never with a fault.
        switch await consumer.result {
        case .success(let text): #expect(text == "First words")
        case .failure(let error): #expect(error is CancellationError)
        }
        #expect(await server.observer.completed == 0)
    }

    @Test("leaving the loop early", arguments: WireFormat.allCases)
    func breakOut(format: WireFormat) async throws {
        let (opening, _) = format.reply("Enough", "never sent")
        let server = try await ScriptedServer.start { _ in
            .chunks([Data(opening.utf8)], contentType: format.contentType, ending: .hold(keepAlive: format.keepAlive))
        }
        defer { server.stop() }
        let provider = format.provider(server.baseURL)
        var first: String?
        for try await event in provider.complete(plainRequest) {
            if case .text(let piece) = event {
                first = piece
                break
            }
        }
        #expect(first == "Enough")
        #expect(await server.observer.waitForAbandoned(1))
    }

    @Test("cancelling before the response head ends the request without an error", arguments: WireFormat.allCases)
    func cancelWhileWaitingForHead(format: WireFormat) async throws {
        let (opening, _) = format.reply("Too", "late")
        let server = try await ScriptedServer.start { _ in
            .chunks([Data(opening.utf8)], contentType: format.contentType, headDelay: .milliseconds(300), ending: .hold(keepAlive: format.keepAlive))
        }
        defer { server.stop() }
        let provider = format.provider(server.baseURL)
        let consumer = Task {
            var count = 0
            for try await _ in provider.complete(plainRequest) { count += 1 }
            return count
        }
        // Cancel once the server has the request, while the client waits for the head.
        #expect(await server.observer.wait(for: .requests))
        consumer.cancel()
        switch await consumer.result {
        case .success(let count): #expect(count == 0)
        case .failure(let error): #expect(error is CancellationError)
        }
        #expect(await server.observer.waitForAbandoned(1))
    }
}
