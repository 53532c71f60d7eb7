#ifndef PARLEY_CWHISPER_SHIM_H
#define PARLEY_CWHISPER_SHIM_H
#include <whisper.h>

/// Sets the decoding language to English. The string literal has static storage, so the
/// pointer stays valid for as long as the parameters are used.
static inline void parley_whisper_params_set_english(struct whisper_full_params *params) {
    params->language = "en";
}
/// Whether a ggml log level is an error (keeps the ggml enum out of Swift code).
static inline int parley_whisper_is_error_level(enum ggml_log_level level) {
    return level == GGML_LOG_LEVEL_ERROR;
}
#endif
