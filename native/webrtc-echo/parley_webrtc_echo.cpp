// A C face for WebRTC's audio processing module (Debian libwebrtc-audio-processing 0.3, BSD):
// its echo canceller, with the noise suppressor and high-pass filter beside it, for Parley's
// WebRTCEchoCanceller. The library's API is C++ (virtual classes), which Swift cannot open
// with dlopen, so scripts/setup compiles this file into libparley-webrtc-echo.so and Parley
// opens that on first use: a machine without it runs on without this canceller.
//
// Written for Parley (Apache-2.0); only the library's public header is used.
#include <webrtc/modules/audio_processing/include/audio_processing.h>

#include <new>

namespace {

struct Echo {
  webrtc::AudioProcessing *processing;
  webrtc::StreamConfig stream;
};

}  // namespace

extern "C" {

// Makes a processor for mono audio at `sample_rate` (8000, 16000, 32000 or 48000 Hz), processed
// in 10 ms frames. `suppression` is the echo suppressor's level (0 low, 1 moderate, 2 high);
// `noise` the noise suppressor's (0 off, 1 low … 4 very high); `delay_agnostic` estimates the
// delay between the speaker and the microphone itself instead of trusting the one given with
// each frame. Returns NULL when the library refuses the settings.
__attribute__((visibility("default"))) void *parley_webrtc_echo_create(int sample_rate, int suppression, int noise,
                                                                       int delay_agnostic) {
  webrtc::Config config;
  config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
  config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(delay_agnostic != 0));
  webrtc::AudioProcessing *processing = webrtc::AudioProcessing::Create(config);
  if (processing == nullptr) return nullptr;
  webrtc::StreamConfig stream(sample_rate, 1, false);
  webrtc::ProcessingConfig layout = {{stream, stream, stream, stream}};
  bool ok = processing->Initialize(layout) == webrtc::AudioProcessing::kNoError;
  ok = ok && processing->high_pass_filter()->Enable(true) == webrtc::AudioProcessing::kNoError;
  ok = ok && processing->echo_cancellation()->enable_drift_compensation(false) == webrtc::AudioProcessing::kNoError;
  webrtc::EchoCancellation::SuppressionLevel level =
      suppression <= 0 ? webrtc::EchoCancellation::kLowSuppression
                       : (suppression == 1 ? webrtc::EchoCancellation::kModerateSuppression
                                           : webrtc::EchoCancellation::kHighSuppression);
  ok = ok && processing->echo_cancellation()->set_suppression_level(level) == webrtc::AudioProcessing::kNoError;
  ok = ok && processing->echo_cancellation()->Enable(true) == webrtc::AudioProcessing::kNoError;
  if (ok && noise > 0) {
    webrtc::NoiseSuppression::Level levels[] = {webrtc::NoiseSuppression::kLow, webrtc::NoiseSuppression::kModerate,
                                                webrtc::NoiseSuppression::kHigh, webrtc::NoiseSuppression::kVeryHigh};
    ok = processing->noise_suppression()->set_level(levels[noise > 4 ? 3 : noise - 1]) ==
             webrtc::AudioProcessing::kNoError &&
         processing->noise_suppression()->Enable(true) == webrtc::AudioProcessing::kNoError;
  }
  if (!ok) {
    delete processing;
    return nullptr;
  }
  Echo *echo = new (std::nothrow) Echo{processing, stream};
  if (echo == nullptr) delete processing;
  return echo;
}

__attribute__((visibility("default"))) void parley_webrtc_echo_destroy(void *handle) {
  Echo *echo = static_cast<Echo *>(handle);
  if (echo == nullptr) return;
  delete echo->processing;
  delete echo;
}

// Processes one 10 ms frame (sample_rate / 100 samples, floats in [-1, 1]): `far` is what the
// speaker plays, `near` what the microphone hears `delay_ms` later at most; writes the cleaned
// microphone audio to `out` (which may be `near`). Returns 0, or the library's error code.
__attribute__((visibility("default"))) int parley_webrtc_echo_process(void *handle, const float *near,
                                                                      const float *far, float *out, int delay_ms) {
  Echo *echo = static_cast<Echo *>(handle);
  if (echo == nullptr) return -1;
  size_t count = echo->stream.num_frames();
  float reverse[480];
  if (count > sizeof(reverse) / sizeof(reverse[0])) return -2;
  for (size_t index = 0; index < count; index++) reverse[index] = far[index];
  const float *reverse_in[1] = {reverse};
  float *reverse_out[1] = {reverse};
  int code = echo->processing->ProcessReverseStream(reverse_in, echo->stream, echo->stream, reverse_out);
  if (code != webrtc::AudioProcessing::kNoError) return code;
  code = echo->processing->set_stream_delay_ms(delay_ms);
  if (code != webrtc::AudioProcessing::kNoError && code != webrtc::AudioProcessing::kBadStreamParameterWarning) return code;
  const float *capture_in[1] = {near};
  float *capture_out[1] = {out};
  return echo->processing->ProcessStream(capture_in, echo->stream, echo->stream, capture_out);
}

}  // extern "C"
