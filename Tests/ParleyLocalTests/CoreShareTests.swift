import Foundation
import Synchronization
import Testing
@testable import ParleyLocal

@Suite("the cores the engines may use")
struct CoreShareTests {
    /// Scripted readings: the machine's (total, busy) ticks and this process's ticks, in turn.
    final class Script: Sendable {
        let readings: Mutex<[(total: UInt64, busy: UInt64, own: UInt64)]>
        init(_ readings: [(UInt64, UInt64, UInt64)]) { self.readings = Mutex(readings.map { (total: $0.0, busy: $0.1, own: $0.2) }) }
        var current: (total: UInt64, busy: UInt64, own: UInt64) { readings.withLock { $0[0] } }
        func advance() { readings.withLock { if $0.count > 1 { $0.removeFirst() } } }
    }

    func share(_ script: Script) -> CoreShare {
        CoreShare(cores: 2, machine: { (script.current.total, script.current.busy) }, own: { script.current.own })
    }

    @Test("another process using one of two cores leaves one thread; ours does not count; idle leaves both")
    func decisions() {
        // Each step: 1 s on 2 cores = 200 ticks.
        let script = Script([(0, 0, 0), (200, 100, 0), (400, 300, 100), (600, 320, 120), (605, 325, 120)])
        let cores = share(script)
        script.advance()
        #expect(cores.threads(upTo: 2) == 1, "a busy loop elsewhere: 100 of 200 ticks, none ours")
        script.advance()
        #expect(cores.threads(upTo: 2) == 1, "200 busy ticks, 100 ours: the other process still holds a core")
        script.advance()
        #expect(cores.threads(upTo: 2) == 2, "20 busy ticks, all ours: both cores are free")
        script.advance()
        #expect(cores.threads(upTo: 2) == 2, "too little time to tell keeps the last figure")
        #expect(cores.threads(upTo: 1) == 1)
    }

    @Test("/proc's formats: the cpu line, and a command name with spaces and parentheses")
    func parsing() throws {
        let stat = "cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n"
        let machine = try #require(CoreShare.parseStat(stat))
        #expect(machine.total == 980 && machine.busy == 160)
        let selfStat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1000 0 0 0 70 30 5 2 20 0 8 0 100 0 0"
        #expect(CoreShare.parseSelfStat(selfStat) == 107)
        #expect(CoreShare.procStat() != nil && CoreShare.procSelfStat() != nil, "readable on Linux")
    }
}
