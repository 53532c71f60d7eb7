/// How hot a device is running, as Apple platforms report it.
public enum ThermalState: Int, Sendable, Comparable, Codable, CustomStringConvertible {
    /// Normal.
    case nominal
    /// Slightly raised.
    case fair
    /// High: heavy work should be reduced.
    case serious
    /// Critical: heavy work must stop.
    case critical

    public static func < (lhs: ThermalState, rhs: ThermalState) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .nominal: return "nominal"
        case .fair: return "fair"
        case .serious: return "serious"
        case .critical: return "critical"
        }
    }
}

/// What the machine has to spare right now. Fields a platform cannot report are `nil`.
public struct ResourceSnapshot: Sendable, Equatable {
    /// Bytes of memory that can be used without swapping (the tighter of the system's and
    /// the process's control group's).
    public var availableMemory: UInt64?
    /// Bytes of memory in all.
    public var totalMemory: UInt64?
    /// The share of the last ten seconds (0–100) in which some task waited for memory
    /// (Linux pressure stall information).
    public var memoryPressure: Double?
    /// The device's thermal state (Apple platforms).
    public var thermalState: ThermalState?

    /// Creates a snapshot.
    public init(
        availableMemory: UInt64? = nil, totalMemory: UInt64? = nil, memoryPressure: Double? = nil,
        thermalState: ThermalState? = nil
    ) {
        self.availableMemory = availableMemory
        self.totalMemory = totalMemory
        self.memoryPressure = memoryPressure
        self.thermalState = thermalState
    }
}

/// Reads what the machine has to spare.
public protocol ResourceMonitor: Sendable {
    /// The resources now.
    func snapshot() async -> ResourceSnapshot
}
