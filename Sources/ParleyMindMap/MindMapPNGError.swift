/// Why a mind map could not be turned into a PNG; each says what to do.
public enum MindMapPNGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `rsvg-convert` is not on the `PATH`.
    case converterNotInstalled
    /// The scale is not a positive, finite number.
    case invalidScale(Double)
    /// A file could not be written or read.
    case fileSystem(path: String, reason: String)
    /// `rsvg-convert` could not be started.
    case launchFailed(path: String, reason: String)
    /// `rsvg-convert` ran and failed.
    case conversionFailed(status: Int32, message: String)
    /// The task was cancelled and the converter stopped; the PNG may be missing or partial.
    case cancelled

    public var description: String {
        switch self {
        case .converterNotInstalled:
            return "rsvg-convert is not installed; install librsvg2-bin (apt-get install librsvg2-bin)"
        case .invalidScale(let scale):
            return "Cannot draw a PNG at scale \(scale); use a positive number such as 1 or 2."
        case .fileSystem(let path, let reason):
            return "Could not use \(path) (\(reason)); check that the folder exists and is writable."
        case .launchFailed(let path, let reason):
            return "Could not start \(path) (\(reason)); check that it is executable, or reinstall librsvg2-bin."
        case .conversionFailed(let status, let message):
            let detail = message.isEmpty ? "" : ": \(message)"
            return "rsvg-convert failed with status \(status)\(detail); check that the SVG is valid."
        case .cancelled:
            return "The PNG conversion was cancelled; run it again for a complete image."
        }
    }
}
