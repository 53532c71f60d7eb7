#if canImport(SwiftUI)
import SwiftUI

// Apple-only: never compiled on Linux, and never type-checked (SwiftUI is not among
// AppleStubs). The logic it shows lives in VoiceAppModel, which is tested on Linux.

/// A voice assistant: an orb, hold-to-talk or hands-free, the transcript, and the providers in use.
@main
struct VoiceApp: App {
    @State private var engine = AppEngine()

    var body: some Scene {
        WindowGroup {
            ContentView(engine: engine)
                .task { await engine.start() }
        }
    }
}
#else
/// Elsewhere than on Apple platforms there is no app: what builds there is VoiceAppModel.
@main
enum VoiceApp {
    static func main() {
        print("VoiceApp is a SwiftUI app for iOS and macOS; on this platform only its view models (VoiceAppModel) build, and their tests run.")
    }
}
#endif
