/// When the machine is too short of memory or too hot to run an on-device model: a pure
/// rule, so hosts can tune it and tests can check it with made-up snapshots.
public struct ResourcePolicy: Sendable, Equatable {
    /// What a model may do under the current resources.
    public enum Assessment: Sendable, Equatable {
        /// Run it.
        case run
        /// Do not start it; `unload` asks to free it too if it is loaded.
        case avoid(reason: String, unload: Bool)
    }

    /// Free memory needed to load a model, as a multiple of the model's file size (weights
    /// plus context and scratch buffers).
    public var loadHeadroom: Double
    /// Memory pressure (percent of time stalled) above which local models are avoided.
    public var maximumPressure: Double
    /// Memory pressure above which loaded models are also unloaded.
    public var unloadPressure: Double
    /// The thermal state at which local models are avoided (and unloaded).
    public var avoidAtThermalState: ThermalState

    /// Creates a policy; the defaults keep a model off a machine that would have to swap or
    /// that runs seriously hot (where Apple asks apps to cut heavy work; the chain then steps
    /// down to the small model, which heats the device far less).
    public init(
        loadHeadroom: Double = 1.5, maximumPressure: Double = 25, unloadPressure: Double = 60,
        avoidAtThermalState: ThermalState = .serious
    ) {
        self.loadHeadroom = loadHeadroom
        self.maximumPressure = maximumPressure
        self.unloadPressure = unloadPressure
        self.avoidAtThermalState = avoidAtThermalState
    }

    /// Whether a model of `modelBytes` may run, given whether it is already loaded.
    public func assess(_ snapshot: ResourceSnapshot, modelBytes: UInt64, isLoaded: Bool) -> Assessment {
        if let thermal = snapshot.thermalState, thermal >= avoidAtThermalState {
            return .avoid(reason: "the device is running \(thermal) hot", unload: true)
        }
        if let pressure = snapshot.memoryPressure {
            if pressure >= unloadPressure {
                return .avoid(reason: "memory pressure is \(Int(pressure))%", unload: true)
            }
            if pressure >= maximumPressure, !isLoaded {
                return .avoid(reason: "memory pressure is \(Int(pressure))%", unload: false)
            }
        }
        if !isLoaded, let available = snapshot.availableMemory {
            let needed = UInt64(Double(modelBytes) * loadHeadroom)
            if available < needed {
                return .avoid(reason: "\(Self.megabytes(available)) MB free, \(Self.megabytes(needed)) MB needed", unload: false)
            }
        }
        return .run
    }

    static func megabytes(_ bytes: UInt64) -> UInt64 { bytes / 1_048_576 }
}
