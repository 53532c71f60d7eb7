import Foundation
import ParleyCore

/// Reads this machine's resources: on Linux the kernel's memory figures (`/proc/meminfo`),
/// its pressure stall information (`/proc/pressure/memory`) and the control group's memory
/// limit (`/sys/fs/cgroup`), so a container's limit counts; on Apple platforms the thermal
/// state and the physical memory.
public struct SystemResourceMonitor: ResourceMonitor {
    /// Where the Linux files are read (a test points it at a folder of its own).
    public let root: URL

    /// Creates a monitor of the machine it runs on.
    public init(root: URL = URL(fileURLWithPath: "/")) {
        self.root = root
    }

    public func snapshot() async -> ResourceSnapshot {
        var snapshot = ResourceSnapshot()
        #if os(Linux)
        if let meminfo = read("proc/meminfo") {
            let fields = Self.parseMeminfo(meminfo)
            snapshot.totalMemory = fields["MemTotal"]
            snapshot.availableMemory = fields["MemAvailable"]
        }
        if let pressure = read("proc/pressure/memory") {
            snapshot.memoryPressure = Self.parsePressure(pressure)
        }
        if let limit = read("sys/fs/cgroup/memory.max").flatMap(Self.parseBytes),
           let used = read("sys/fs/cgroup/memory.current").flatMap(Self.parseBytes) {
            let room = limit > used ? limit - used : 0
            snapshot.availableMemory = min(snapshot.availableMemory ?? room, room)
            snapshot.totalMemory = min(snapshot.totalMemory ?? limit, limit)
        }
        #else
        snapshot.totalMemory = ProcessInfo.processInfo.physicalMemory
        #if canImport(Darwin)
        switch ProcessInfo.processInfo.thermalState {
        case .nominal: snapshot.thermalState = .nominal
        case .fair: snapshot.thermalState = .fair
        case .serious: snapshot.thermalState = .serious
        case .critical: snapshot.thermalState = .critical
        @unknown default: snapshot.thermalState = nil
        }
        #endif
        #endif
        return snapshot
    }

    private func read(_ path: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The byte values of `/proc/meminfo` ("MemAvailable:  123 kB").
    static func parseMeminfo(_ text: String) -> [String: UInt64] {
        var fields: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
            guard parts.count >= 2, let value = UInt64(parts[1]) else { continue }
            let unit = parts.count >= 3 ? parts[2].lowercased() : ""
            fields[String(parts[0])] = unit == "kb" ? value * 1024 : value
        }
        return fields
    }

    /// The `some avg10` figure of a pressure file ("some avg10=1.23 avg60=…").
    static func parsePressure(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some") }) else { return nil }
        for field in line.split(separator: " ") where field.hasPrefix("avg10=") {
            return Double(field.dropFirst("avg10=".count))
        }
        return nil
    }

    /// A cgroup byte count; `nil` for "max" (no limit).
    static func parseBytes(_ text: String) -> UInt64? {
        UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
