#if canImport(SwiftUI)
import SwiftUI
import VoiceAppModel

/// The app's one screen: the orb, the transcript, the talk control and the mode.
struct ContentView: View {
    let engine: AppEngine
    @State private var showsSettings = false

    var body: some View {
        NavigationStack {
            Group {
                if let model = engine.model {
                    ConversationView(model: model)
                } else {
                    ProgressView(engine.status)
                        .padding()
                }
            }
            .navigationTitle("Parley")
            .toolbar {
                Button("Providers", systemImage: "slider.horizontal.3") { showsSettings = true }
                    .disabled(engine.model == nil)
            }
            .sheet(isPresented: $showsSettings) {
                if let model = engine.model {
                    SettingsSheet(model: model, refresh: { await engine.refreshProviders() })
                }
            }
        }
    }
}

/// The conversation, once it is up.
struct ConversationView: View {
    let model: VoiceViewModel
    @State private var isPressed = false
    @State private var mode = TalkMode.holdToTalk

    var body: some View {
        VStack(spacing: 16) {
            TranscriptView(entries: model.transcript)
            OrbView(orb: model.orb)
                .frame(width: 160, height: 160)
                .accessibilityLabel(model.orb.label)
            if let notice = model.notice {
                Text(notice)
                    .font(.footnote)
                    .foregroundStyle(.secondary)
                    .onTapGesture { model.dismissNotice() }
            }
            talkControl
            Picker("Mode", selection: $mode) {
                ForEach(TalkMode.allCases, id: \.self) { mode in Text(mode.title).tag(mode) }
            }
            .pickerStyle(.segmented)
            .onChange(of: mode) { _, chosen in Task { await model.setMode(chosen) } }
        }
        .padding()
    }

    @ViewBuilder private var talkControl: some View {
        switch model.mode {
        case .holdToTalk:
            Text(model.isHolding ? "Listening… let go to send" : "Hold to talk")
                .font(.headline)
                .padding(.horizontal, 32)
                .padding(.vertical, 14)
                .background(Capsule().fill(model.isHolding ? Color.accentColor : Color.secondary.opacity(0.2)))
                .gesture(
                    DragGesture(minimumDistance: 0)
                        .onChanged { _ in
                            guard !isPressed else { return }
                            isPressed = true
                            Task { await model.pressTalk() }
                        }
                        .onEnded { _ in
                            isPressed = false
                            Task { await model.releaseTalk() }
                        }
                )
                .accessibilityAddTraits(.isButton)
        case .handsFree:
            Button("Stop the reply", systemImage: "stop.fill") { Task { await model.stopReply() } }
                .disabled(model.orb != .speaking && model.orb != .thinking)
        }
    }
}

/// What was said, newest at the bottom.
struct TranscriptView: View {
    let entries: [TranscriptEntry]

    var body: some View {
        ScrollViewReader { scroller in
            ScrollView {
                LazyVStack(alignment: .leading, spacing: 10) {
                    ForEach(entries) { entry in
                        Text(entry.text + (entry.wasInterrupted ? " …" : ""))
                            .foregroundStyle(entry.isPending ? .secondary : .primary)
                            .frame(maxWidth: .infinity, alignment: entry.speaker == .user ? .trailing : .leading)
                            .id(entry.id)
                    }
                }
            }
            .onChange(of: entries.last?.text) {
                if let last = entries.last { scroller.scrollTo(last.id, anchor: .bottom) }
            }
        }
    }
}
#endif
