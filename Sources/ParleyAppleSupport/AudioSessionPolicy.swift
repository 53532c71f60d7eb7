/// What a microphone-and-speaker does when the system takes audio away or the hardware
/// changes: a call or another app interrupts, headphones are unplugged, the engine's hardware
/// format changes (a route change), the media services restart. A value type that returns the
/// actions to carry out, so that the rules are tested here; `AppleMicrophone` only maps the
/// system's notifications to ``Event``s and performs the ``Action``s.
public struct AudioSessionPolicy: Sendable, Equatable {
    /// What the system reported.
    public enum Event: Sendable, Equatable {
        /// Another audio session (a call, an alarm, another app) took over; the system stopped the engine.
        case interruptionBegan
        /// The interruption is over; `shouldResume` is the system's hint that audio may start again.
        case interruptionEnded(shouldResume: Bool)
        /// The audio route changed.
        case routeChanged(RouteChange)
        /// The engine's hardware configuration changed (it stopped itself; formats may differ).
        case engineConfigurationChanged
        /// The media services were reset: every audio object must be set up again.
        case mediaServicesReset
    }

    /// Why the route changed (the reasons that matter here).
    public enum RouteChange: Sendable, Equatable {
        /// Headphones or another device was plugged in.
        case newDeviceAvailable
        /// The device in use went away (headphones unplugged): speech must not jump to the speaker.
        case oldDeviceUnavailable
        /// Anything else (a category change, an override, waking from sleep, …).
        case other
    }

    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Stop what is playing.
        case stopPlayback
        /// Set the engine up again for the hardware as it is now (formats, the tap) and start it.
        case restart
    }

    /// Whether an interruption is under way (nothing restarts until it ends).
    public private(set) var isInterrupted = false
    /// Whether capture was asked to run (a stopped microphone restarts for nothing).
    public var isCapturing = false

    /// A policy for a microphone that is not capturing yet.
    public init() {}

    /// The actions for `event`.
    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .interruptionBegan:
            isInterrupted = true
            return [.stopPlayback]
        case .interruptionEnded(let shouldResume):
            isInterrupted = false
            return isCapturing && shouldResume ? [.restart] : []
        case .routeChanged(.oldDeviceUnavailable):
            return [.stopPlayback]
        case .routeChanged:
            return []
        case .engineConfigurationChanged:
            return isCapturing && !isInterrupted ? [.restart] : []
        case .mediaServicesReset:
            isInterrupted = false
            return isCapturing ? [.stopPlayback, .restart] : [.stopPlayback]
        }
    }
}
