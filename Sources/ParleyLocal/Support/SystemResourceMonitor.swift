import Foundation
import ParleyCore

/// Reads this machine's resources through ``MachineReadings``: free memory (on Linux the
/// tighter of the kernel's figure and the control group's room, so a container's limit counts;
/// on Apple platforms what the system grants), the thermal state (Apple's, or Linux's thermal
/// zones against their trip points), and on Linux the memory pressure stall information
/// (`/proc/pressure/memory`).
public struct SystemResourceMonitor: ResourceMonitor {
    /// Where the Linux files are read (a test points it at a folder of its own).
    public let root: URL

    /// Creates a monitor of the machine it runs on.
    public init(root: URL = URL(fileURLWithPath: "/")) {
        self.root = root
    }

    public func snapshot() async -> ResourceSnapshot {
        let readings = MachineReadings(root: root)
        var snapshot = ResourceSnapshot(availableMemory: readings.availableMemory(), thermalState: readings.thermalState())
        #if os(Linux)
        if let meminfo = readings.read("proc/meminfo") {
            snapshot.totalMemory = MachineReadings.parseMeminfo(meminfo)["MemTotal"]
        }
        if let limit = readings.read("sys/fs/cgroup/memory.max").flatMap(MachineReadings.parseBytes) {
            snapshot.totalMemory = min(snapshot.totalMemory ?? limit, limit)
        }
        if let pressure = readings.read("proc/pressure/memory") {
            snapshot.memoryPressure = Self.parsePressure(pressure)
        }
        #else
        snapshot.totalMemory = ProcessInfo.processInfo.physicalMemory
        #endif
        return snapshot
    }

    /// The byte values of `/proc/meminfo` ("MemAvailable:  123 kB").
    static func parseMeminfo(_ text: String) -> [String: UInt64] { MachineReadings.parseMeminfo(text) }

    /// A cgroup byte count; `nil` for "max" (no limit).
    static func parseBytes(_ text: String) -> UInt64? { MachineReadings.parseBytes(text) }

    /// The `some avg10` figure of a pressure file ("some avg10=1.23 avg60=…").
    static func parsePressure(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some") }) else { return nil }
        for field in line.split(separator: " ") where field.hasPrefix("avg10=") {
            return Double(field.dropFirst("avg10=".count))
        }
        return nil
    }
}
