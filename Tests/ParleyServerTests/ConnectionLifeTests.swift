import NIOCore
import NIOHTTP1
import Testing
@testable import ParleyServer

/// The connection state the relay handler keeps for every request on a connection: when an idle
/// connection is closed, and when a graceful shutdown closes a busy one.
@Suite("a connection's life: idle timeout and graceful shutdown")
struct ConnectionLifeTests {
    static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/health"))

    @Test("an idle connection is closed at its deadline, and checked again when it was active meanwhile")
    func idle() throws {
        var life = ConnectionLife(idleTimeout: .seconds(5))
        let activated = life.activated()
        let first = try #require(activated)
        #expect(life.timedOut(now: first - .seconds(1)) == .checkAgain(first))
        #expect(life.timedOut(now: first) == .close)
        // A request read whole and being answered is never timed out; its answer restarts the clock.
        life.read(Self.head)
        life.read(.end(nil))
        #expect(life.timedOut(now: first + .seconds(60)) == .nothing)
        guard case .idleFrom(let next) = life.answered() else {
            Issue.record("the last answer must start the idle clock")
            return
        }
        #expect(next > first && life.timedOut(now: next) == .close)
    }

    @Test("a request still being read (a slow upload) is timed out")
    func slowUpload() throws {
        var life = ConnectionLife(idleTimeout: .seconds(5))
        _ = life.activated()
        life.read(Self.head)
        #expect(life.timedOut(now: .now() + .seconds(6)) == .close)
    }

    @Test("pipelined requests: only the last answer starts the idle clock")
    func pipelined() {
        var life = ConnectionLife(idleTimeout: .seconds(5))
        _ = life.activated()
        for _ in 1...3 {
            life.read(Self.head)
            life.read(.end(nil))
        }
        let answers = (1...3).map { _ in life.answered() }
        #expect(answers.prefix(2).allSatisfy { $0 == .keepOpen } && answers[2] != .keepOpen, "\(answers)")
    }

    @Test("a graceful shutdown closes an idle connection at once and a busy one after its last answer")
    func shutdown() {
        var idle = ConnectionLife(idleTimeout: nil)
        _ = idle.activated()
        let closesIdle = idle.quiesce()
        #expect(closesIdle)
        var busy = ConnectionLife(idleTimeout: nil)
        _ = busy.activated()
        busy.read(Self.head)
        busy.read(.end(nil))
        busy.read(Self.head)
        let closesBusy = busy.quiesce()
        let answers = [busy.answered(), busy.answered()]
        #expect(!closesBusy && answers == [.keepOpen, .close], "\(answers)")
    }

    @Test("with no idle timeout nothing is scheduled")
    func noTimeout() {
        var life = ConnectionLife(idleTimeout: nil)
        let activated = life.activated()
        life.read(Self.head)
        let answered = life.answered()
        #expect(activated == nil && answered == .keepOpen)
        #expect(life.timedOut() == .nothing)
    }

    @Test("a provider's name goes into a relayed answer's headers only when it cannot break them")
    func fieldValues() {
        #expect(ChatRelayHandler.isFieldValue("openai") && ChatRelayHandler.isFieldValue("gpt-4o mini\t2"))
        for bad in ["", " openai", "openai ", "open\r\nx-injected: 1", "open\nai", "open\u{7F}ai", "open\u{0}ai"] {
            #expect(!ChatRelayHandler.isFieldValue(bad), "\(bad.debugDescription)")
        }
    }
}
