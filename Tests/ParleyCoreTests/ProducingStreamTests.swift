import Testing
@testable import ParleyCore

@Suite("AsyncThrowingStream.producing")
struct ProducingStreamTests {
    struct Boom: Error, Equatable {}

    /// Collects a stream's elements, and its error if it ends with one.
    func collect(_ stream: AsyncThrowingStream<Int, any Error>) async -> (values: [Int], error: (any Error)?) {
        var values: [Int] = []
        do {
            for try await value in stream { values.append(value) }
            return (values, nil)
        } catch {
            return (values, error)
        }
    }

    @Test("finishes when the body returns")
    func returns() async {
        let result = await collect(
            .producing { continuation in
                for value in 1...3 { continuation.yield(value) }
            })
        #expect(result.values == [1, 2, 3])
        #expect(result.error == nil)
    }

    @Test("finishes with the body's error, after what it yielded")
    func throwsError() async {
        let result = await collect(
            .producing { continuation in
                continuation.yield(1)
                throw Boom()
            })
        #expect(result.values == [1])
        #expect(result.error as? Boom == Boom())
    }

    @Test("a CancellationError from the body ends the stream without an error")
    func cancellationIsAPlainEnd() async {
        let result = await collect(
            .producing { continuation in
                continuation.yield(7)
                throw CancellationError()
            })
        #expect(result.values == [7])
        #expect(result.error == nil)
    }

    @Test("a consumer that stops listening cancels the body, and the termination is reported")
    func consumerStops() async throws {
        let (events, sink) = AsyncStream.makeStream(of: String.self)
        // Nothing is ever sent on `silence`: waiting on it ends only when the task is cancelled.
        let (silence, keepOpen) = AsyncStream.makeStream(of: Void.self)
        try await listenToFirst(
            of: .producing(onTermination: { termination in
                if case .cancelled = termination { sink.yield("terminated: cancelled") }
            }) { continuation in
                continuation.yield(1)
                for await _ in silence {}
                sink.yield("body cancelled: \(Task.isCancelled)")
                sink.finish()
            })
        var seen: [String] = []
        for await event in events { seen.append(event) }
        keepOpen.finish()
        #expect(seen == ["terminated: cancelled", "body cancelled: true"])
    }

    /// Takes the first element and stops listening: the stream and its iterator go away.
    func listenToFirst(of stream: AsyncThrowingStream<Int, any Error>) async throws {
        for try await value in stream {
            #expect(value == 1)
            return
        }
    }
}
