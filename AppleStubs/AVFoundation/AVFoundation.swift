// Stub of AVFoundation for scripts/check-apple: Parley uses only what AVFoundation re-exports
// from AVFAudio (https://developer.apple.com/documentation/avfaudio), and with it
// CoreAudioTypes' C structs, whose `AudioBuffer` clashes with ParleyCore's.
@_exported import AVFAudio
