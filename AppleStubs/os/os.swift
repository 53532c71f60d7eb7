// Stub of the os module for scripts/check-apple, written from Apple's documentation.

/// https://developer.apple.com/documentation/os/os_proc_available_memory (iOS family; not macOS)
@available(iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@available(macOS, unavailable)
public func os_proc_available_memory() -> Int { 0 }
