/// How long a timeout that ran out is confirmed before it counts: a quarter of its limit, at
/// most 5 s, waited after the limit was noticed.
///
/// A process that was suspended (an app sent to the background, a laptop lid closed) or
/// starved of CPU wakes with every timer due at once, while the answer it waited for may be
/// sitting unread in a socket or a stream's buffer. The grace lets it be read, so a pause of
/// the process is not taken for a silent provider. A provider that really stays silent fails
/// at most a quarter later than its limit.
public enum TimeoutGrace {
    /// The grace after `limit`.
    public static func after(_ limit: Duration) -> Duration {
        min(limit / 4, .seconds(5))
    }
}
