#if canImport(SwiftUI)
import SwiftUI
import VoiceAppModel

/// The providers in use and why: each capability's chain in the order Parley tries it (cloud,
/// then self-hosted, then on this device), from the runtime's report.
struct SettingsSheet: View {
    let model: VoiceViewModel
    let refresh: @MainActor @Sendable () async -> Void
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            List {
                ForEach(model.providers) { section in
                    Section(section.title) {
                        ForEach(section.rows) { row in
                            VStack(alignment: .leading, spacing: 4) {
                                HStack {
                                    Text(row.status.provider).font(.body.weight(row.inUse ? .semibold : .regular))
                                    Spacer()
                                    if row.inUse { Image(systemName: "checkmark.circle.fill").foregroundStyle(.green) }
                                }
                                Text(row.why).font(.footnote).foregroundStyle(.secondary)
                            }
                        }
                    }
                }
            }
            .navigationTitle("Providers")
            .toolbar {
                Button("Done") { dismiss() }
            }
            .refreshable { await refresh() }
            .task { await refresh() }
        }
    }
}
#endif
