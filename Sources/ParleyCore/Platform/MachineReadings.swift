import Foundation

/// What the platform says about the machine's memory and heat, read the way each platform
/// allows: on Linux from the kernel's files (`/proc/meminfo`, the control group's limit,
/// `/sys/class/thermal`), on Apple platforms from the system (see `MachineReadings+Apple`).
/// The Linux files are read under ``root``, which a test points at a folder of its own.
public struct MachineReadings: Sendable {
    /// Where the Linux files are read.
    public let root: URL

    /// Readings of the machine this runs on (`root` for tests).
    public init(root: URL = URL(fileURLWithPath: "/")) {
        self.root = root
    }

    /// Bytes of memory a new allocation can use without swapping: `MemAvailable`, the tighter
    /// of it and the control group's room on Linux; what the system grants this process on
    /// iOS, free and reclaimable pages on macOS; `nil` where nothing says.
    public func availableMemory() -> UInt64? {
        #if os(Linux)
        var available = read("proc/meminfo").flatMap { Self.parseMeminfo($0)["MemAvailable"] }
        if let limit = read("sys/fs/cgroup/memory.max").flatMap(Self.parseBytes),
            let used = read("sys/fs/cgroup/memory.current").flatMap(Self.parseBytes)
        {
            let room = limit > used ? limit - used : 0
            available = min(available ?? room, room)
        }
        return available
        #elseif canImport(Darwin)
        return Self.appleAvailableMemory()
        #else
        return nil
        #endif
    }

    /// How hot the machine runs: the system's thermal state on Apple platforms; on Linux the
    /// hottest thermal zone against its own trip points (passive: fair, hot: serious,
    /// critical: critical), or against 75, 85 and 95 °C when it has none. `nil` where nothing
    /// says (most virtual machines have no thermal zones).
    public func thermalState() -> ThermalState? {
        #if os(Linux)
        return Self.thermalState(ofZonesIn: root.appendingPathComponent("sys/class/thermal", isDirectory: true))
        #elseif canImport(Darwin)
        return Self.appleThermalState()
        #else
        return nil
        #endif
    }

    // MARK: - Linux files (parsed on every platform, so tests run anywhere)

    /// The text of the file at `path` under ``root``, or `nil`.
    public func read(_ path: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The byte values of `/proc/meminfo` ("MemAvailable:  123 kB").
    public static func parseMeminfo(_ text: String) -> [String: UInt64] {
        var fields: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
            guard parts.count >= 2, let value = UInt64(parts[1]) else { continue }
            let unit = parts.count >= 3 ? parts[2].lowercased() : ""
            fields[String(parts[0])] = unit == "kb" ? value * 1024 : value
        }
        return fields
    }

    /// A control group's byte count; `nil` for "max" (no limit).
    public static func parseBytes(_ text: String) -> UInt64? {
        UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The state of the hottest zone under `directory` (`thermal_zone*/temp` in millidegrees,
    /// with `trip_point_N_type` and `trip_point_N_temp`); `nil` when there is no zone.
    public static func thermalState(ofZonesIn directory: URL) -> ThermalState? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var hottest: ThermalState?
        for name in names.sorted() where name.hasPrefix("thermal_zone") {
            let zone = directory.appendingPathComponent(name, isDirectory: true)
            func value(_ file: String) -> String? {
                (try? String(contentsOf: zone.appendingPathComponent(file), encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let temperature = value("temp").flatMap(Int.init) else { continue }
            var trips: [(type: String, millidegrees: Int)] = []
            for index in 0..<16 {
                guard let type = value("trip_point_\(index)_type"), let limit = value("trip_point_\(index)_temp").flatMap(Int.init),
                    limit > 0
                else { continue }
                trips.append((type, limit))
            }
            let state = zoneState(millidegrees: temperature, trips: trips)
            hottest = max(hottest ?? state, state)
        }
        return hottest
    }

    /// One zone's state: the highest trip point it has reached, by type.
    static func zoneState(millidegrees: Int, trips: [(type: String, millidegrees: Int)]) -> ThermalState {
        let limits: [(String, ThermalState)] = [("critical", .critical), ("hot", .serious), ("passive", .fair)]
        let known = trips.filter { trip in limits.contains { $0.0 == trip.type } }
        guard !known.isEmpty else {
            switch millidegrees {
            case 95_000...: return .critical
            case 85_000...: return .serious
            case 75_000...: return .fair
            default: return .nominal
            }
        }
        for (type, state) in limits {
            if known.contains(where: { $0.type == type && millidegrees >= $0.millidegrees }) { return state }
        }
        return .nominal
    }
}
