import Foundation
import ParleyLocal
import Synchronization
import Testing

@Suite("the compute lane the on-device engines share")
struct ComputeLaneTests {
    @Test("work from many threads never overlaps, and each caller is served in the order it came")
    func exclusiveAndInOrder() throws {
        let lane = ComputeLane()
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let order = Mutex<[Int]>([])
        let arrivals = Mutex<[Int]>([])
        // One thread holds the lane while the others queue up behind it in a known order.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Thread {
            lane.run {
                holding.signal()
                release.wait()
            }
        }
        first.start()
        holding.wait()
        let done = DispatchGroup()
        for index in 0..<6 {
            done.enter()
            Thread {
                arrivals.withLock { $0.append(index) }
                lane.run {
                    if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlaps.add(1, ordering: .sequentiallyConsistent) }
                    order.withLock { $0.append(index) }
                    Thread.sleep(forTimeInterval: 0.005)
                    inside.subtract(1, ordering: .sequentiallyConsistent)
                }
                done.leave()
            }.start()
            // Let this thread take its ticket before the next one starts.
            while arrivals.withLock({ $0.count }) <= index { Thread.sleep(forTimeInterval: 0.001) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        release.signal()
        done.wait()
        #expect(overlaps.load(ordering: .sequentiallyConsistent) == 0)
        #expect(order.withLock { $0 } == Array(0..<6))
    }
}

@Suite("the compute lane's urgent work")
struct ComputeLaneUrgencyTests {
    /// Holds `lane` on a thread of its own until the returned semaphore is signalled.
    private func hold(_ lane: ComputeLane) -> DispatchSemaphore {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            lane.run {
                holding.signal()
                release.wait()
            }
        }.start()
        holding.wait()
        return release
    }

    @Test("urgent work goes before every caller that is not urgent, whenever it came")
    func urgentFirst() {
        let lane = ComputeLane()
        let release = hold(lane)
        let order = Mutex<[String]>([])
        let arrived = Atomic<Int>(0)
        let done = DispatchGroup()
        for (index, name) in ["first", "second", "voice", "third"].enumerated() {
            done.enter()
            Thread {
                arrived.add(1, ordering: .sequentiallyConsistent)
                lane.run(urgent: name == "voice") { order.withLock { $0.append(name) } }
                done.leave()
            }.start()
            while arrived.load(ordering: .sequentiallyConsistent) <= index { Thread.sleep(forTimeInterval: 0.001) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        release.signal()
        done.wait()
        #expect(order.withLock { $0 } == ["voice", "first", "second", "third"])
    }

    @Test("a lane that never served urgent work does not make anyone give way")
    func noWayToGive() {
        let lane = ComputeLane()
        let clock = ContinuousClock()
        var waited = true
        let took = clock.measure { waited = lane.giveWay(for: .seconds(5), longest: .seconds(5)) }
        #expect(!waited)
        #expect(took < .seconds(1))
    }

    @Test("giving way waits for announced urgent work to begin, and no longer than the longest")
    func givesWayToAnnouncedWork() {
        let lane = ComputeLane()
        lane.expectUrgent()
        let order = Mutex<[String]>([])
        let done = DispatchGroup()
        done.enter()
        Thread {
            lane.giveWay(for: .milliseconds(1), longest: .seconds(30))
            lane.run { order.withLock { $0.append("model") } }
            done.leave()
        }.start()
        // The announced work is still preparing: the model waits for it.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(order.withLock { $0 }.isEmpty)
        lane.run(urgent: true, announced: true) { order.withLock { $0.append("voice") } }
        done.wait()
        #expect(order.withLock { $0 } == ["voice", "model"])
        // Running the announced work ended its announcement: no one waits for it any more.
        let clock = ContinuousClock()
        let after = clock.measure { lane.giveWay(for: .milliseconds(1), longest: .seconds(30)) }
        #expect(after < .seconds(5))

        // Announced work that never comes holds it up only until the longest wait.
        lane.expectUrgent()
        let took = clock.measure { lane.giveWay(for: .milliseconds(1), longest: .milliseconds(20)) }
        #expect(took >= .milliseconds(20))
        #expect(took < .seconds(5))
        lane.withdrawUrgent()
    }
}
