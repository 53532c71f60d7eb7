// swift-tools-version: 6.1
// A voice assistant app for iOS and macOS on Parley, depending on it by version with
// `traits: []` as any app would: no server package and no native library is resolved, and the
// voice comes from Apple's engines (ParleyApple) or the cloud providers a user configures.
//
//   VoiceAppModel  the view models: portable (no SwiftUI), built and tested on Linux too
//                  (Examples/check runs `swift test` here against Parley by version);
//   VoiceApp       the SwiftUI app (every view inside `#if canImport(SwiftUI)`): `swift run
//                  VoiceApp` on a Mac; on iOS, add the Sources/VoiceApp files to an app target in
//                  Xcode with this package's VoiceAppModel and Parley's products. Never compiled
//                  here (no Apple SDK, and SwiftUI is not stubbed): see docs/apple.md.
import Foundation
import PackageDescription

// Where Parley comes from: PARLEY_PACKAGE_URL when set (Examples/check points it at a tagged
// copy of this checkout), else the clone this example sits in, which then needs a version tag.
let parleyURL =
    Context.environment["PARLEY_PACKAGE_URL"]
    ?? "file://" + URL(fileURLWithPath: Context.packageDirectory + "/../..").standardizedFileURL.path
// SwiftPM names a dependency after the last component of its URL.
let parley = URL(string: parleyURL).map { $0.deletingPathExtension().lastPathComponent.lowercased() } ?? "parley"

let package = Package(
    name: "VoiceApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(url: parleyURL, from: "0.1.0", traits: [])
    ],
    targets: [
        .target(
            name: "VoiceAppModel",
            dependencies: [.product(name: "ParleyCore", package: parley)]
        ),
        .executableTarget(
            name: "VoiceApp",
            dependencies: [
                "VoiceAppModel",
                .product(name: "ParleyCore", package: parley),
                .product(name: "ParleyRuntime", package: parley),
                .product(name: "ParleyApple", package: parley),
            ]
        ),
        .testTarget(name: "VoiceAppModelTests", dependencies: ["VoiceAppModel", .product(name: "ParleyCore", package: parley)]),
    ],
    swiftLanguageModes: [.v6]
)
