import Foundation
import Synchronization

/// How many CPU cores the engines can have now: the machine's cores less what other processes
/// have been using since the last look (Linux: `/proc/stat` for the machine, `/proc/self/stat`
/// for this process and the children it waited for, such as espeak-ng).
///
/// ggml's worker threads wait for each other at every step of a computation; with more threads
/// than free cores, one of them is always descheduled and the rest wait for it. Measured here
/// (`Benchmarks/run --suite load`): with one of two cores kept busy by another process, two
/// threads took a turn's first audio from 1.0 s to 2.9 s, one thread to 1.7 s. So each request
/// asks for ``threads(upTo:)`` instead of a fixed count.
public final class CoreShare: Sendable {
    /// The one every engine of the process shares.
    public static let shared = CoreShare()

    private struct Reading {
        var total: UInt64
        var busy: UInt64
        var own: UInt64
    }

    private struct State {
        var last: Reading?
        var othersCores: Double = 0
    }

    private let state = Mutex(State())
    private let cores: Int
    private let readMachine: @Sendable () -> (total: UInt64, busy: UInt64)?
    private let readOwn: @Sendable () -> UInt64?

    /// Creates a sampler; the readers are `/proc`'s unless given (tests give their own).
    public init(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        machine: (@Sendable () -> (total: UInt64, busy: UInt64)?)? = nil,
        own: (@Sendable () -> UInt64?)? = nil
    ) {
        self.cores = max(1, cores)
        self.readMachine = machine ?? CoreShare.procStat
        self.readOwn = own ?? CoreShare.procSelfStat
        _ = othersCores()
    }

    /// How many of `configured` threads to use now: the cores other processes leave free,
    /// rounded, at least one.
    public func threads(upTo configured: Int) -> Int {
        let free = Double(cores) - othersCores()
        return max(1, min(configured, Int(free.rounded())))
    }

    /// The cores other processes have kept busy since the previous call (the previous figure
    /// when too little time has passed to tell: less than a tenth of a second of CPU time).
    public func othersCores() -> Double {
        guard let machine = readMachine(), let own = readOwn() else { return 0 }
        let now = Reading(total: machine.total, busy: machine.busy, own: own)
        return state.withLock { state in
            guard let last = state.last else {
                state.last = now
                return state.othersCores
            }
            // /proc/stat counts the ticks of every core: a tenth of a second is 10 per core.
            guard now.total > last.total, now.total - last.total >= UInt64(10 * cores) else { return state.othersCores }
            let elapsed = Double(now.total - last.total)
            let busy = Double(now.busy &- last.busy), mine = Double(now.own &- last.own)
            state.othersCores = max(0, min(Double(cores), (busy - mine) / elapsed * Double(cores)))
            state.last = now
            return state.othersCores
        }
    }

    /// The machine's CPU time and busy time, in clock ticks, from `/proc/stat`'s `cpu` line.
    /// `nil` where there is no `/proc` (Apple platforms: the share is then not measured).
    static func procStat() -> (total: UInt64, busy: UInt64)? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return parseStat(text)
        #else
        return nil
        #endif
    }

    static func parseStat(_ text: String) -> (total: UInt64, busy: UInt64)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 4 else { return nil }
        // user nice system idle iowait irq softirq steal (guest time is already in user)
        let total = fields.prefix(8).reduce(0, +)
        let idle = fields[3] + (fields.count > 4 ? fields[4] : 0)
        return (total, total - idle)
    }

    /// This process's CPU time and that of the children it waited for, in clock ticks.
    static func procSelfStat() -> UInt64? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        return parseSelfStat(text)
        #else
        return nil
        #endif
    }

    static func parseSelfStat(_ text: String) -> UInt64? {
        // The command name (field 2) is in parentheses and may hold spaces: count from after it.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state(3) ppid … utime(14) stime(15) cutime(16) cstime(17).
        guard fields.count > 14 else { return nil }
        let numbers = (11...14).compactMap { UInt64(fields[$0]) }  // utime, stime, cutime, cstime
        guard numbers.count == 4 else { return nil }
        return numbers.reduce(0, +)
    }
}
