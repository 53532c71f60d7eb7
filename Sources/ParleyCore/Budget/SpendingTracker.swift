import Foundation
import Logging

/// Tracks spending against a monthly budget: an alert once spending crosses the threshold
/// (the seeds: $150 of $200), and a hard stop at the budget after which the router keeps to
/// free providers instead of failing. The month rolls over by the calendar.
public actor SpendingTracker {
    /// Where spending stands.
    public enum State: Sendable, Equatable {
        /// Below the alert threshold.
        case withinBudget
        /// At or above the alert threshold, below the budget.
        case alert
        /// The budget is spent: only free providers are used until the month ends.
        case exhausted
    }

    /// A change worth telling someone about.
    public struct Event: Sendable, Equatable {
        /// The state spending entered.
        public var state: State
        /// Dollars spent this month.
        public var spent: Double
        /// The monthly budget in dollars.
        public var budget: Double
    }

    /// The monthly budget in dollars.
    public let monthlyBudget: Double
    /// Dollars spent at which the alert is raised.
    public let alertThreshold: Double
    /// What each provider charges.
    public let prices: PriceTable
    /// Where charges are written, so the month's spending outlives the process.
    public let ledger: (any SpendingLedger)?
    private let now: @Sendable () -> Date
    private let calendar: Calendar
    private let logger: Logger
    private var month: DateComponents
    private var spentThisMonth = 0.0
    private var announced: State = .withinBudget
    private let sink: AsyncStream<Event>.Continuation
    /// Alerts and stops, as they happen.
    public nonisolated let events: AsyncStream<Event>

    /// Creates a tracker. `now` is injectable for tests.
    public init(
        monthlyBudget: Double, alertThreshold: Double, prices: PriceTable, ledger: (any SpendingLedger)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "parley.budget")
    ) {
        self.monthlyBudget = monthlyBudget
        self.alertThreshold = alertThreshold
        self.prices = prices
        self.ledger = ledger
        self.now = now
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        self.calendar = calendar
        self.logger = logger
        self.month = calendar.dateComponents([.year, .month], from: now())
        (events, sink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// Spending so far this month.
    public var spent: Double {
        rollOver()
        return spentThisMonth
    }

    /// The state now.
    public var state: State {
        rollOver()
        return Self.state(spent: spentThisMonth, alert: alertThreshold, budget: monthlyBudget)
    }

    /// Whether only free providers may be used.
    public var isExhausted: Bool { state == .exhausted }

    /// Loads this month's spending so far from the ledger (call once, before the first
    /// request), so a budget holds across processes.
    public func restore() async throws {
        guard let ledger else { return }
        rollOver()
        let start = calendar.date(from: month) ?? now()
        let end = calendar.date(byAdding: .month, value: 1, to: start) ?? now()
        spentThisMonth = try await ledger.spent(from: start, to: end)
        announced = Self.state(spent: spentThisMonth, alert: alertThreshold, budget: monthlyBudget)
        if announced == .exhausted {
            logger.warning("[budget] monthly budget of $\(String(format: "%.2f", monthlyBudget)) reached: using free providers only until next month")
        }
    }

    /// Records what a request on `provider` used, in the ledger too; returns its cost.
    @discardableResult
    public func record(_ usage: MeteredUsage, on provider: String) async -> Double {
        rollOver()
        let cost = prices.cost(of: usage, on: provider)
        if cost > 0, let ledger {
            do {
                try await ledger.record(cost: cost, provider: provider, at: now())
            } catch {
                logger.error("[budget] could not write the charge of $\(cost) for \(provider): \(error)")
            }
        }
        spentThisMonth += cost
        let current = Self.state(spent: spentThisMonth, alert: alertThreshold, budget: monthlyBudget)
        if current != announced {
            announced = current
            let event = Event(state: current, spent: spentThisMonth, budget: monthlyBudget)
            sink.yield(event)
            switch current {
            case .alert:
                logger.warning("[budget] spent $\(String(format: "%.2f", spentThisMonth)) of $\(String(format: "%.2f", monthlyBudget)) this month")
            case .exhausted:
                logger.warning("[budget] monthly budget of $\(String(format: "%.2f", monthlyBudget)) reached: using free providers only until next month")
            case .withinBudget:
                break
            }
        }
        return cost
    }

    private func rollOver() {
        let current = calendar.dateComponents([.year, .month], from: now())
        if current != month {
            month = current
            spentThisMonth = 0
            announced = .withinBudget
        }
    }

    private static func state(spent: Double, alert: Double, budget: Double) -> State {
        spent >= budget ? .exhausted : spent >= alert ? .alert : .withinBudget
    }
}
