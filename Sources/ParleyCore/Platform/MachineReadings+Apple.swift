#if canImport(Darwin)
import Darwin
import Foundation
#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import os
#endif

// Never compiled on the Linux machines this package is developed on: see README.
extension MachineReadings {
    /// What this process may still allocate (iOS family: the system's own figure for the app),
    /// or the free, inactive and purgeable pages (macOS).
    static func appleAvailableMemory() -> UInt64? {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let available = os_proc_available_memory()
        return available > 0 ? UInt64(available) : nil
        #else
        var statistics = vm_statistics64()
        var count = mach_msg_type_number_t(MemoryLayout<vm_statistics64_data_t>.size / MemoryLayout<integer_t>.size)
        let result = withUnsafeMutablePointer(to: &statistics) { pointer in
            pointer.withMemoryRebound(to: integer_t.self, capacity: Int(count)) { host_statistics64(mach_host_self(), HOST_VM_INFO64, $0, &count) }
        }
        guard result == KERN_SUCCESS else { return nil }
        let pages = UInt64(statistics.free_count) + UInt64(statistics.inactive_count) + UInt64(statistics.purgeable_count)
        return pages * UInt64(vm_kernel_page_size)
        #endif
    }

    /// The system's thermal state.
    static func appleThermalState() -> ThermalState? {
        switch ProcessInfo.processInfo.thermalState {
        case .nominal: return .nominal
        case .fair: return .fair
        case .serious: return .serious
        case .critical: return .critical
        @unknown default: return nil
        }
    }
}
#endif
