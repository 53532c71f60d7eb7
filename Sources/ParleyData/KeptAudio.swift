import Foundation

/// The files of kept recordings on this machine, for every store implementation. A file may be absent (already removed, or
/// written by another instance, whose copy lives in the database): that is not an error.
public enum KeptAudio {
    /// Removes the files at `paths`; throws for those that exist and could not be removed.
    public static func remove(_ paths: [String]) throws(StoreError) {
        var failed: [String] = []
        var reason = ""
        for path in paths {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                guard FileManager.default.fileExists(atPath: path) else { continue }
                failed.append(path)
                reason = error.localizedDescription
            }
        }
        guard failed.isEmpty else { throw .cannotRemoveAudio(paths: failed, reason: reason) }
    }
}
