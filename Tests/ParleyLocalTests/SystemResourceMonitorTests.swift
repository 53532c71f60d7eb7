import Foundation
import Testing
@testable import ParleyLocal
import ParleyCore

@Suite("Reading this machine's resources")
struct SystemResourceMonitorTests {
    @Test("meminfo, pressure and cgroup files are parsed; the tighter memory limit wins")
    func parsesFiles() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-proc-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000000 kB\nMemAvailable:    8192000 kB\nHugePages_Total:       0\n")
        try write("proc/pressure/memory", "some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=2.00 avg60=0.00 avg300=0.00 total=9\n")
        try write("sys/fs/cgroup/memory.max", "4294967296\n")
        try write("sys/fs/cgroup/memory.current", "1073741824\n")
        let snapshot = await SystemResourceMonitor(root: root).snapshot()
        #if os(Linux)
        #expect(snapshot.totalMemory == 4_294_967_296)
        #expect(snapshot.availableMemory == 3_221_225_472)
        #expect(snapshot.memoryPressure == 12.5)
        #endif
        #expect(SystemResourceMonitor.parseBytes("max\n") == nil)
        #expect(SystemResourceMonitor.parseMeminfo("MemAvailable:  10 kB")["MemAvailable"] == 10_240)
    }

    @Test("on this machine the figures are real: some memory is free and no more than exists")
    func realMachine() async {
        let snapshot = await SystemResourceMonitor().snapshot()
        let total = snapshot.totalMemory ?? 0
        #expect(total > 0)
        #if os(Linux)
        let available = snapshot.availableMemory ?? 0
        #expect(available > 0 && available <= total)
        #endif
    }
}
