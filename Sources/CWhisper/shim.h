#ifndef PARLEY_CWHISPER_SHIM_H
#define PARLEY_CWHISPER_SHIM_H
#include <whisper.h>

/// Sets the decoding language to English. The string literal has static storage, so the
/// pointer stays valid for as long as the parameters are used.
static inline void parley_whisper_params_set_english(struct whisper_full_params *params) {
    params->language = "en";
}
/// Sets the decoding language to whisper.cpp's own spelling of `code` ("it", "de", …), which
/// has static storage, or to "auto" (a static literal: detect the language first) when `code`
/// is NULL or not one whisper.cpp knows. Returns whether `code` was known.
static inline int parley_whisper_params_set_language(struct whisper_full_params *params, const char *code) {
    int id = code ? whisper_lang_id(code) : -1;
    params->language = id >= 0 ? whisper_lang_str(id) : "auto";
    return id >= 0;
}
/// The language of the last transcription, in whisper.cpp's spelling ("it"), or NULL.
static inline const char *parley_whisper_full_language(struct whisper_context *context) {
    int id = whisper_full_lang_id(context);
    return id >= 0 ? whisper_lang_str(id) : 0;
}
/// Whether a ggml log level is an error (keeps the ggml enum out of Swift code).
static inline int parley_whisper_is_error_level(enum ggml_log_level level) {
    return level == GGML_LOG_LEVEL_ERROR;
}
#endif
