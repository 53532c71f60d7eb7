// swift-tools-version: 6.1
// A host app that embeds Parley the way any other package does: by version. In your own app
// this is one line, `.package(url: "<Parley's git URL>", from: "0.1.0", traits: [])`: without
// the default "Server" trait, the packages only the server, the command line and PostgreSQL
// use (Hummingbird, PostgresNIO, ArgumentParser, Prometheus, swift-metrics) are not resolved.
import Foundation
import PackageDescription

// Where Parley comes from: PARLEY_PACKAGE_URL when set (Examples/check points it at a tagged
// copy of this checkout), else the clone this example sits in, which then needs a version tag
// (SwiftPM clones only from a folder holding a .git directory, so not from a git worktree).
let parleyURL =
    Context.environment["PARLEY_PACKAGE_URL"]
    ?? "file://" + URL(fileURLWithPath: Context.packageDirectory + "/../..").standardizedFileURL.path
// SwiftPM names a dependency after the last component of its URL.
let parley = URL(string: parleyURL)!.deletingPathExtension().lastPathComponent.lowercased()

let package = Package(
    name: "HostApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "HostApp",
            dependencies: [
                .product(name: "ParleyCore", package: parley),
                .product(name: "ParleyRuntime", package: parley),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
