import Foundation
import ParleyCore
import Testing

/// The machine's memory and heat read from Linux's files, on fake `/proc` and `/sys` trees.
@Suite("Machine readings")
struct MachineReadingsTests {
    /// A folder standing for `/`, with `files` written under it.
    static func tree(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-machine-\(UUID())", isDirectory: true)
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test("free memory: MemAvailable, within the control group's room")
    func memory() throws {
        let root = try Self.tree([
            "proc/meminfo": "MemTotal: 16384000 kB\nMemAvailable: 8192000 kB\n",
            "sys/fs/cgroup/memory.max": "4294967296\n", "sys/fs/cgroup/memory.current": "1073741824\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #if os(Linux)
        #expect(MachineReadings(root: root).availableMemory() == 3_221_225_472)
        let unlimited = try Self.tree([
            "proc/meminfo": "MemAvailable: 1000 kB\n", "sys/fs/cgroup/memory.max": "max\n",
            "sys/fs/cgroup/memory.current": "5\n",
        ])
        defer { try? FileManager.default.removeItem(at: unlimited) }
        #expect(MachineReadings(root: unlimited).availableMemory() == 1_024_000)
        #expect(MachineReadings(root: root.appendingPathComponent("nothing")).availableMemory() == nil)
        #endif
    }

    @Test("heat: the hottest zone against its trip points; absolute limits for a zone without them; nil without zones")
    func thermal() throws {
        let zones = "sys/class/thermal/"
        let root = try Self.tree([
            zones + "thermal_zone0/temp": "45000\n",
            zones + "thermal_zone0/trip_point_0_type": "passive\n", zones + "thermal_zone0/trip_point_0_temp": "80000\n",
            zones + "thermal_zone1/temp": "88000\n",
            zones + "thermal_zone1/trip_point_0_type": "passive\n", zones + "thermal_zone1/trip_point_0_temp": "70000\n",
            zones + "thermal_zone1/trip_point_1_type": "hot\n", zones + "thermal_zone1/trip_point_1_temp": "85000\n",
            zones + "thermal_zone1/trip_point_2_type": "critical\n", zones + "thermal_zone1/trip_point_2_temp": "100000\n",
            zones + "cooling_device0/cur_state": "0\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent(zones, isDirectory: true)
        #expect(MachineReadings.thermalState(ofZonesIn: directory) == .serious)
        let plain = try Self.tree([zones + "thermal_zone0/temp": "76000\n"])
        defer { try? FileManager.default.removeItem(at: plain) }
        #expect(MachineReadings.thermalState(ofZonesIn: plain.appendingPathComponent(zones)) == .fair)
        let none = try Self.tree(["sys/class/thermal/cooling_device0/cur_state": "0\n"])
        defer { try? FileManager.default.removeItem(at: none) }
        #expect(MachineReadings.thermalState(ofZonesIn: none.appendingPathComponent(zones)) == nil)
        #if os(Linux)
        #expect(MachineReadings(root: root).thermalState() == .serious)
        #endif
    }
}
