import Foundation

/// A response of a ``ScriptedServer``, step by step: an optional wait before the response
/// head, then body writes and pauses, then one of the endings.
public struct ScriptedReply: Sendable {
    /// One step of the body.
    public enum Step: Sendable {
        /// One write of these bytes, flushed on its own.
        case write(Data)
        /// A wait before the next step.
        case pause(Duration)
        /// A wait until the test opens `gate`.
        case wait(Gate)
    }

    /// How the body ends.
    public enum Ending: Sendable {
        /// The body is finished properly.
        case finish
        /// The connection is dropped without finishing the body.
        case cut
        /// Nothing but `keepAlive` every `interval` until the client goes away; the writes
        /// let the server notice the closed connection.
        case hold(keepAlive: Data, interval: Duration = .milliseconds(20))
    }

    /// The response status.
    public var status: Int
    /// The content type.
    public var contentType: String
    /// Extra response headers.
    public var headers: [String: String]
    /// A wait before the response head is sent (to exercise first-byte timeouts).
    public var headDelay: Duration?
    /// The body.
    public var steps: [Step]
    /// The end of the body.
    public var ending: Ending

    /// Creates a reply.
    public init(
        status: Int = 200, contentType: String, headers: [String: String] = [:], headDelay: Duration? = nil,
        steps: [Step], ending: Ending = .finish
    ) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.headDelay = headDelay
        self.steps = steps
        self.ending = ending
    }

    /// A streamed body written as `chunks`, each write followed by a short `gap` so that it
    /// leaves as its own TCP segment.
    public static func chunks(
        _ chunks: [Data], contentType: String, gap: Duration = .milliseconds(3),
        headDelay: Duration? = nil, ending: Ending = .finish
    ) -> ScriptedReply {
        ScriptedReply(
            contentType: contentType, headDelay: headDelay,
            steps: chunks.flatMap { [Step.write($0), .pause(gap)] }, ending: ending)
    }

    /// A whole JSON body with `status` (an error body, for instance).
    public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> ScriptedReply {
        ScriptedReply(status: status, contentType: "application/json", headers: headers, steps: [.write(Data(text.utf8))])
    }
}

extension Data {
    /// The bytes cut at the given offsets (ascending, each within the data), so that a test
    /// can split a stream exactly inside a character or between CR and LF.
    public func split(at offsets: [Int]) -> [Data] {
        var pieces: [Data] = []
        var start = startIndex
        for offset in offsets.sorted() where offset > start - startIndex && offset < count {
            pieces.append(self[start..<(startIndex + offset)])
            start = startIndex + offset
        }
        pieces.append(self[start...])
        return pieces.map { Data($0) }
    }
}
