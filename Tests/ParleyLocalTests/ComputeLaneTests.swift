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
