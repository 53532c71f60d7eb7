#if canImport(SwiftUI)
import SwiftUI
import VoiceAppModel

/// The orb: grey when idle, blue and breathing with the voice while listening, purple and
/// turning while thinking, green and pulsing while speaking, red on a failure.
struct OrbView: View {
    let orb: Orb
    @State private var phase = false

    var body: some View {
        Circle()
            .fill(RadialGradient(colors: [color.opacity(0.95), color.opacity(0.35)], center: .center, startRadius: 4, endRadius: 90))
            .scaleEffect(scale)
            .rotationEffect(.degrees(orb == .thinking && phase ? 360 : 0))
            .animation(.easeOut(duration: 0.12), value: scale)
            .animation(animation, value: phase)
            .onAppear { phase = true }
    }

    private var color: Color {
        switch orb {
        case .idle: return .gray
        case .listening: return .blue
        case .thinking: return .purple
        case .speaking: return .green
        case .failed: return .red
        }
    }

    private var scale: CGFloat {
        switch orb {
        case .listening(let level): return 0.8 + CGFloat(level) * 0.4
        case .speaking: return phase ? 1.05 : 0.95
        default: return 0.85
        }
    }

    private var animation: Animation? {
        switch orb {
        case .thinking: return .linear(duration: 2).repeatForever(autoreverses: false)
        case .speaking: return .easeInOut(duration: 0.6).repeatForever()
        default: return nil
        }
    }
}
#endif
