#if canImport(Darwin)
import Darwin
import Foundation
#if canImport(os)
import os
#endif

// Type-checked on Linux against declarations written from Apple's documentation
// (scripts/check-apple), never compiled with Apple's SDK here: see README.
extension MachineReadings {
    /// What this process may still allocate (iOS family: the system's own figure for the app),
    /// or the free, inactive and purgeable pages (macOS).
    static func appleAvailableMemory() -> UInt64? {
        #if os(macOS)
        return hostAvailableMemory()
        #elseif canImport(os)
        return processAvailableMemory()
        #else
        return hostAvailableMemory()
        #endif
    }

    /// The free, inactive and purgeable pages, in bytes (Mach's host statistics; the page size
    /// from getpagesize(), not the `vm_kernel_page_size` global, which Swift 6 cannot read safely).
    static func hostAvailableMemory() -> UInt64? {
        var statistics = vm_statistics64()
        var count = mach_msg_type_number_t(MemoryLayout<vm_statistics64_data_t>.size / MemoryLayout<integer_t>.size)
        let result = withUnsafeMutablePointer(to: &statistics) { pointer in
            pointer.withMemoryRebound(to: integer_t.self, capacity: Int(count)) { host_statistics64(mach_host_self(), HOST_VM_INFO64, $0, &count) }
        }
        guard result == KERN_SUCCESS else { return nil }
        let pages = UInt64(statistics.free_count) + UInt64(statistics.inactive_count) + UInt64(statistics.purgeable_count)
        return pages * UInt64(getpagesize())
    }

    #if !os(macOS) && canImport(os)
    /// What the system still grants this app (iOS, iPadOS, tvOS, watchOS, visionOS).
    static func processAvailableMemory() -> UInt64? {
        let available = os_proc_available_memory()
        return available > 0 ? UInt64(available) : nil
    }
    #endif

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
