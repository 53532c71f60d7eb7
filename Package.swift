// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The native engines. On Linux, llama.cpp, whisper.cpp and sherpa-onnx are system libraries
// found with pkg-config (scripts/setup installs them): always, and only, on Linux. On Apple
// platforms the default build links no native library: those providers report "not built for
// this platform" and the chains answer with Apple's own engines (ParleyApple) or the cloud.
//
// The opt-in `AppleEngines` trait brings llama.cpp and whisper.cpp (one ggml, Metal on) to macOS
// and iOS as the binary target `ParleyEngines`: an XCFramework by `url:` and `checksum:`. SwiftPM
// downloads every binary target a root manifest declares, whatever its trait (seen with 6.3.1),
// so that target lives in a one-target companion package that is resolved only when the trait
// is on. NEITHER EXISTS YET: on a Mac, scripts/build-xcframework builds the framework, zips it
// (ParleyEngines.xcframework.zip, the release asset), pins it with `swift package
// compute-checksum` and writes the companion manifest (`.binaryTarget(name: "ParleyEngines",
// url: <the asset's release URL>, checksum: <that checksum>)`) to publish at the URL below.
// Until then, enabling the trait fails to resolve. With Frameworks/ParleyEngines.xcframework
// built locally (git-ignored, so never in a versioned checkout), the trait links that instead.
// There is no Mac Catalyst or visionOS slice, so neither platform gets the engines.
let appleEnginesPackage = "https://github.com/parley-assistant/parley-engines.git"  // a placeholder: not published yet
let localAppleEngines = "Frameworks/ParleyEngines.xcframework"
let hasLocalAppleEngines = FileManager.default.fileExists(atPath: Context.packageDirectory + "/" + localAppleEngines)
let linuxOnly: TargetDependencyCondition? = .when(platforms: [.linux])
// Every platform with Apple's frameworks: where `canImport(AVFoundation)` holds, ParleyApple is there.
let applePlatforms: TargetDependencyCondition? = .when(platforms: [.macOS, .iOS, .macCatalyst, .tvOS, .watchOS, .visionOS])
let appleEnginesOn: TargetDependencyCondition? = .when(platforms: [.macOS, .iOS], traits: ["AppleEngines"])
let engineDependencies: [Target.Dependency] = [
    .target(name: "CLlama", condition: linuxOnly),
    .target(name: "CWhisper", condition: linuxOnly),
    .target(name: "CSherpaOnnx", condition: linuxOnly),
    .target(name: "CSpeexDSP", condition: linuxOnly),
    hasLocalAppleEngines
        ? .target(name: "ParleyEngines", condition: appleEnginesOn)
        : .product(name: "ParleyEngines", package: "parley-engines", condition: appleEnginesOn),
]
let engineTargets: [Target] = hasLocalAppleEngines ? [.binaryTarget(name: "ParleyEngines", path: localAppleEngines)] : []
let enginePackages: [Package.Dependency] = hasLocalAppleEngines ? [] : [.package(url: appleEnginesPackage, from: "0.1.0")]

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // What an app uses: ParleyRuntime (the whole assistant: settings, chains, engines, stores,
    // materials, conversations) with ParleyCore's types, and ParleyApple on Apple platforms;
    // ParleyServer and ParleyMCP to embed those faces (they need the "Server" trait). The other
    // libraries are the runtime's parts, products so that an app can name their types (a
    // StoredThread, a MindMap) or take one part alone. Test support (ParleyTesting,
    // ParleyTestServers, ParleyTestLanes) is no product.
    products: [
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyLocal", targets: ["ParleyLocal"]),
        .library(name: "ParleySilero", targets: ["ParleySilero"]),
        .library(name: "ParleyOnnx", targets: ["ParleyOnnx"]),
        .library(name: "ParleyCloud", targets: ["ParleyCloud"]),
        .library(name: "ParleyData", targets: ["ParleyData"]),
        .library(name: "ParleyStore", targets: ["ParleyStore"]),
        .library(name: "ParleyPostgres", targets: ["ParleyPostgres"]),
        .library(name: "ParleyModels", targets: ["ParleyModels"]),
        .library(name: "ParleyApple", targets: ["ParleyApple", "ParleyAppleSupport"]),
        .library(name: "ParleyTasks", targets: ["ParleyTasks"]),
        .library(name: "ParleyRuntime", targets: ["ParleyRuntime"]),
        .library(name: "ParleyServer", targets: ["ParleyServer"]),
        .library(name: "ParleyMindMap", targets: ["ParleyMindMap"]),
        .library(name: "ParleyMaterials", targets: ["ParleyMaterials"]),
        .library(name: "ParleyGoogle", targets: ["ParleyGoogle"]),
        .library(name: "ParleyMCP", targets: ["ParleyMCP"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    // "Server" (on by default) brings the packages only the server, the CLI, PostgreSQL and the
    // tests use; an app that depends on the libraries with `traits: []` does not resolve them.
    traits: [
        .trait(name: "Server", description: "The HTTP server, the CLI, PostgreSQL and the tests' servers."),
        .trait(name: "CommandLine", description: "The `parley` command without the server, MCP or PostgreSQL (scripts/demo's build: `--traits CommandLine`)."),
        .trait(name: "AppleEngines", description: "llama.cpp and whisper.cpp on macOS and iOS (Metal), as a binary XCFramework."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.26.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ] + enginePackages,
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
        // sherpa-onnx's C API with its own ONNX Runtime (the sherpa-onnx-core wheel; no espeak-ng
        // code since 2.0), for the neural voices.
        // Types only: ParleyLocal opens the library on first use (SherpaOnnxLibrary), so a process
        // that never speaks or hears with it does not load ONNX Runtime.
        .systemLibrary(name: "CSherpaOnnx", pkgConfig: "sherpa-onnx-c-api"),
        // ONNX Runtime's C API (the libonnxruntime.so that sherpa-onnx brings), declared by
        // Parley itself: the library comes with no header. Types only, like CSherpaOnnx:
        // ParleyOnnx opens the library on first use.
        .systemLibrary(name: "COnnxRuntime"),
        // SpeexDSP's echo canceller (BSD), declared by Parley itself: ParleyLocal opens
        // libspeexdsp.so.1 on first use, so a machine without it runs without echo cancellation.
        .systemLibrary(name: "CSpeexDSP"),
        // A thin safe wrapper over ONNX Runtime: sessions from a file, runs with float tensors by
        // name, typed errors (the audio turn model; the wake word and Moonshine can share it).
        // Linux only: on Apple platforms making a session throws "not built for this platform".
        .target(name: "ParleyOnnx", dependencies: [.target(name: "COnnxRuntime", condition: linuxOnly)]),
        // Silero's voice activity network in plain Swift: no C library, so every platform uses it
        // (an app on iOS takes it without llama.cpp or whisper.cpp). Written to be fast in debug
        // builds too: no target here may carry unsafeFlags, which SwiftPM refuses in a versioned
        // dependency (Examples/check).
        .target(name: "ParleySilero", dependencies: ["ParleyCore"]),
        // Programs run as separate processes (standard input in, output collected, cancellable):
        // ffmpeg, espeak-ng, Tesseract, poppler's tools. Foundation only, no engine.
        .target(name: "ParleyProcess"),
        // The on-device engines: llama.cpp, whisper.cpp, Moonshine and Piper voices on sherpa-onnx
        // (phonemes from espeak-ng), espeak-ng itself (each espeak-ng run a separate process),
        // SpeexDSP's echo canceller, ffmpeg for compressed audio files.
        .target(
            name: "ParleyLocal",
            dependencies: [
                "ParleyCore", "ParleySilero", "ParleyOnnx", "ParleyProcess",
                .product(name: "Logging", package: "swift-log"),
            ] + engineDependencies
        ),
        // Cloud and self-hosted providers over HTTP (OpenAI and compatible servers, Anthropic,
        // Ollama, Deepgram, AssemblyAI, ElevenLabs, Piper).
        .target(
            name: "ParleyCloud",
            dependencies: [
                "ParleyCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What is stored, engine-free (no GRDB, no PostgresNIO): threads, messages, the stash,
        // materials, assignments as values; the store protocols (ConversationStoring,
        // SharedConversationStoring), StoreError and DatabaseURL. The faces use these; the runtime
        // opens the stores that implement them.
        .target(name: "ParleyData", dependencies: ["ParleyCore"]),
        // Conversations on disk: threads, messages with raw and edited transcripts, the stash,
        // settings (SQLite through GRDB, WAL, migrations).
        .target(
            name: "ParleyStore",
            dependencies: ["ParleyCore", "ParleyData", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Conversations in a PostgreSQL database that several server instances share: the same
        // store protocol as ParleyStore's SQLite, over postgres-nio (kept out of apps that do not
        // link it).
        .target(
            name: "ParleyPostgres",
            dependencies: [
                "ParleyCore", "ParleyStore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Local HTTP servers speaking the providers' wire formats, and a throwaway database on
        // the test PostgreSQL server, for tests.
        .target(
            name: "ParleyTestServers",
            dependencies: [
                "ParleyStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // What Apple's speech, audio and language-model APIs need that is not an Apple call
        // (cumulative snapshots to deltas, JSON Schema to a guided-generation schema, PCM
        // conversion, level metering): portable, tested on Linux.
        .target(
            name: "ParleyAppleSupport",
            dependencies: ["ParleyCore"]
        ),
        // Apple's own providers, thin shells over ParleyAppleSupport, every file wholly inside
        // #if canImport(…) (empty on Linux; type-checked here only against AppleStubs, scripts/check-apple).
        .target(
            name: "ParleyApple",
            dependencies: ["ParleyCore", "ParleyAppleSupport"]
        ),
        // The model catalog (presets, sources, checksums), the downloader (resume, SHA-256, disk
        // checks, progress, coalescing) and the choice of the on-device language model.
        .target(
            name: "ParleyModels",
            dependencies: [
                "ParleyCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The learning tasks: entities, summaries, task breakdowns, simplification (with
        // readability measured), resolve and mind maps, each routed by its own provider order.
        .target(name: "ParleyTasks", dependencies: ["ParleyCore", "ParleyMindMap"]),
        // The assembly every face composes: settings, the provider catalog, chains with shared
        // health, the on-device engines (and what faces take from the machine: DeviceServices),
        // the store, materials and conversations.
        .target(
            name: "ParleyRuntime",
            dependencies: [
                "ParleyCore", "ParleyLocal", "ParleySilero", "ParleyCloud", "ParleyStore", "ParleyModels", "ParleyTasks", "ParleyMaterials",
                // The shared PostgreSQL store (SharedStores.swift), only with the "Server" trait.
                .target(name: "ParleyPostgres", condition: .when(traits: ["Server"])),
                // Apple's engines join the standard catalog on Apple platforms (PlatformProviders.swift).
                "ParleyAppleSupport", .target(name: "ParleyApple", condition: applePlatforms),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The assistant over HTTP: OpenAI-compatible endpoints, realtime voice, threads, health and
        // metrics, on Hummingbird; and the browser client.
        .target(
            name: "ParleyServer",
            dependencies: [
                "ParleyCore", "ParleyCloud", "ParleyRuntime", "ParleyData", "ParleyGoogle", "ParleyMaterials", "ParleyTasks", "ParleyMindMap",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The browser voice client served at `/`: plain HTML, CSS and JavaScript, no build step.
            resources: [.copy("WebClient")]
        ),
        // Mind maps of a text drawn readably: the value type, a deterministic force-directed
        // layout with no overlapping labels, accessible SVG, and PNG through rsvg-convert
        // (a separate process, installed by scripts/setup). Foundation only.
        .target(name: "ParleyMindMap"),
        // Study materials read from files: text, Markdown, PDF (poppler's pdftotext; scanned
        // pages and images through Tesseract OCR), each program a separate process. Links no
        // engine and no database (the stored values come from ParleyData).
        .target(name: "ParleyMaterials", dependencies: ["ParleyCore", "ParleyProcess", "ParleyData"]),
        // Google Drive, Calendar and Gmail: OAuth for installed apps, and sync into materials and assignments
        // (through the store protocol of ParleyData: no engine, no GRDB).
        .target(
            name: "ParleyGoogle",
            dependencies: [
                "ParleyCore", "ParleyCloud", "ParleyData", "ParleyMaterials",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Model Context Protocol, both ways, on the official Swift SDK: MCP servers' tools
        // (stdio and Streamable HTTP) offered as Parley tools, and Parley's tools served over stdio.
        // Like the server, it needs the "Server" trait (the SDK is not resolved without it).
        .target(
            name: "ParleyMCP",
            dependencies: [
                "ParleyCore",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["Server"])),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test doubles for the provider protocols.
        .target(name: "ParleyTesting", dependencies: ["ParleyCore", .product(name: "Logging", package: "swift-log")]),
        // The `.onDeviceEngines` test trait: tests that run the engines take turns across targets.
        .target(name: "ParleyTestLanes"),
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyCore", "ParleyProcess", "ParleyData", "ParleyRuntime", "ParleyModels", "ParleyTasks", "ParleyMindMap", "ParleyMaterials",
                "ParleyGoogle",
                // `serve` and `mcp` (and `--mcp`) only with the "Server" trait: scripts/demo builds
                // `parley` without it, minutes sooner on two cores (no Hummingbird, PostgresNIO,
                // MCP SDK or server code to compile); every other command is the same.
                .target(name: "ParleyServer", condition: .when(traits: ["Server"])),
                .target(name: "ParleyMCP", condition: .when(traits: ["Server"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server", "CommandLine"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks of the provider layer and the Swift Silero network (Benchmarks/run --suite http|chain|silero).
        .executableTarget(
            name: "parley-benchmarks",
            dependencies: [
                "ParleyCore", "ParleyCloud", "ParleyLocal", "ParleySilero", "ParleyModels", "ParleyRuntime", "ParleyServer", "ParleyTestServers",
                "ParleyTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ParleyBenchmarks"
        ),
        .testTarget(
            name: "ParleyCoreTests",
            dependencies: ["ParleyCore", "ParleyTesting", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "ParleyAppleSupportTests", dependencies: ["ParleyAppleSupport", "ParleyApple", "ParleyCore"]),
        .testTarget(
            name: "ParleyLocalTests",
            dependencies: ["ParleyTestLanes", "ParleyLocal", "ParleyProcess", "ParleySilero", "ParleyOnnx", "ParleyCore", "ParleyModels", "ParleyTesting"]),
        .testTarget(
            name: "ParleyCLITests",
            dependencies: [
                "ParleyTestLanes", "ParleyTesting", "parley", "ParleyCore", "ParleyStore", "ParleyTestServers",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "ParleyRuntimeTests",
            dependencies: [
                "ParleyTestLanes", "ParleyRuntime", "ParleyCore", "ParleyLocal", "ParleyStore", "ParleyTesting", "ParleyTestServers", "ParleyAppleSupport",
            ]),
        .testTarget(name: "ParleyStoreTests", dependencies: ["ParleyStore", "ParleyPostgres", "ParleyCore", "ParleyTestServers"]),
        .testTarget(
            name: "ParleyServerTests",
            dependencies: [
                "ParleyTestLanes",
                "parley", "ParleyServer", "ParleyRuntime", "ParleyStore", "ParleyPostgres", "ParleyCore", "ParleyCloud", "ParleyTesting", "ParleyMCP",
                "ParleyTestServers", "ParleyProcess",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
            ]
        ),
        .testTarget(
            name: "ParleyModelsTests",
            dependencies: [
                "ParleyModels", "ParleyTestServers", "ParleyTesting",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "ParleyTasksTests", dependencies: ["ParleyTestLanes", "ParleyTasks", "ParleyCore", "ParleyLocal", "ParleyModels", "ParleyTesting"]),
        .testTarget(name: "ParleyMindMapTests", dependencies: ["ParleyMindMap"]),
        .testTarget(name: "ParleyMCPTests", dependencies: ["parley", "ParleyMCP", "ParleyCore", "ParleyRuntime", "ParleyStore", "ParleyTesting"]),
        .testTarget(
            name: "ParleyGoogleTests", dependencies: ["ParleyGoogle", "ParleyStore", "ParleyCore", "ParleyTestServers", "ParleyTesting", "ParleyTestLanes"]),
        .testTarget(name: "ParleyMaterialsTests", dependencies: ["ParleyTestLanes", "ParleyMaterials", "ParleyStore", "ParleyCore", "ParleyTesting"]),
        .testTarget(
            name: "ParleyCloudTests",
            dependencies: [
                "ParleyCloud", "ParleyCore", "ParleyTestServers", "ParleyTesting",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
    ] + engineTargets,
    swiftLanguageModes: [.v6]
)
