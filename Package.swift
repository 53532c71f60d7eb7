// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyLocal", targets: ["ParleyLocal"]),
        .library(name: "ParleyTesting", targets: ["ParleyTesting"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // Audio types, WAV I/O, resampling, provider protocols, the voice-turn pipeline.
        // No C module and no networking library.
        .target(
            name: "ParleyCore",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // C modules of the local engines, found with pkg-config (installed by scripts/setup).
        .systemLibrary(name: "CLlama", pkgConfig: "llama"),
        .systemLibrary(name: "CWhisper", pkgConfig: "whisper"),
        // The on-device engines: llama.cpp, whisper.cpp, espeak-ng (as a separate process),
        // Silero VAD in plain Swift.
        .target(
            name: "ParleyLocal",
            dependencies: [
                "ParleyCore", "CLlama", "CWhisper",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                // The Silero network runs in plain Swift; keep it fast in debug builds too.
                .unsafeFlags(["-O"], .when(configuration: .debug))
            ]
        ),
        // Test doubles for the provider protocols.
        .target(name: "ParleyTesting", dependencies: ["ParleyCore", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyCore", "ParleyLocal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyTesting"]),
        .testTarget(name: "ParleyLocalTests", dependencies: ["ParleyLocal", "ParleyCore"]),
        .testTarget(name: "ParleyCLITests", dependencies: ["parley", "ParleyCore"]),
    ],
    swiftLanguageModes: [.v6]
)
