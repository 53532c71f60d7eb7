// Stub of Darwin for scripts/check-apple. The POSIX part comes from glibc (re-exported), so
// POSIX calls are checked against glibc's declarations, not Darwin's; the Mach calls below
// are written from Apple's documentation (https://developer.apple.com/documentation/kernel/…)
// and the Mach headers' types as Swift imports them.
@_exported import Glibc

/// …/natural_t
public typealias natural_t = UInt32
/// …/integer_t
public typealias integer_t = Int32
/// …/mach_port_t
public typealias mach_port_t = natural_t
/// …/host_t
public typealias host_t = mach_port_t
/// …/host_flavor_t
public typealias host_flavor_t = integer_t
/// …/kern_return_t
public typealias kern_return_t = Int32
/// …/mach_msg_type_number_t
public typealias mach_msg_type_number_t = natural_t
/// …/host_info64_t
public typealias host_info64_t = UnsafeMutablePointer<integer_t>

/// https://developer.apple.com/documentation/kernel/1502546-mach_host_self
public func mach_host_self() -> mach_port_t { 0 }

/// https://developer.apple.com/documentation/kernel/1502863-host_statistics64
public func host_statistics64(
    _ host_priv: host_t, _ flavor: host_flavor_t, _ host_info64_out: host_info64_t!,
    _ host_info64_outCnt: UnsafeMutablePointer<mach_msg_type_number_t>!
) -> kern_return_t { 0 }

/// HOST_VM_INFO64 (mach/host_info.h), imported as a computed Int32.
public var HOST_VM_INFO64: Int32 { 4 }
/// KERN_SUCCESS (mach/kern_return.h), imported as a computed Int32.
public var KERN_SUCCESS: Int32 { 0 }

/// https://developer.apple.com/documentation/kernel/vm_statistics64 (the fields Parley reads, and the rest of the page's natural_t counts)
public struct vm_statistics64 {
    public var free_count: natural_t = 0
    public var active_count: natural_t = 0
    public var inactive_count: natural_t = 0
    public var wire_count: natural_t = 0
    public var zero_fill_count: UInt64 = 0
    public var reactivations: UInt64 = 0
    public var pageins: UInt64 = 0
    public var pageouts: UInt64 = 0
    public var faults: UInt64 = 0
    public var cow_faults: UInt64 = 0
    public var lookups: UInt64 = 0
    public var hits: UInt64 = 0
    public var purges: UInt64 = 0
    public var purgeable_count: natural_t = 0
    public var speculative_count: natural_t = 0
    public init() {}
}
/// …/vm_statistics64_data_t
public typealias vm_statistics64_data_t = vm_statistics64

// Not declared: `vm_kernel_page_size`, a mutable C global that Swift 6 refuses to read unless
// the SDK marks it; Parley reads the page size with getpagesize() instead.

// Foundation on Apple platforms reads the thermal state; swift-corelibs-foundation, which this
// check compiles against, does not have it. Declared here, where the files that read it import
// Darwin. https://developer.apple.com/documentation/foundation/processinfo/thermalstate-swift.property
import Foundation

extension ProcessInfo {
    /// https://developer.apple.com/documentation/foundation/processinfo/thermalstate-swift.enum
    public enum ThermalState: Int, Sendable {
        case nominal = 0, fair = 1, serious = 2, critical = 3
    }
    /// https://developer.apple.com/documentation/foundation/processinfo/thermalstate-swift.property
    public var thermalState: ProcessInfo.ThermalState { .nominal }
}
