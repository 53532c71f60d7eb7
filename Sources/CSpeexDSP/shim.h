#ifndef PARLEY_CSPEEXDSP_SHIM_H
#define PARLEY_CSPEEXDSP_SHIM_H
// SpeexDSP's echo canceller and preprocessor (BSD; Debian libspeexdsp1), declared by Parley
// itself as function-pointer types: nothing links the library. ParleyLocal opens
// libspeexdsp.so.1 with dlopen on first use, so a machine without it runs on without echo
// cancellation (with a warning) instead of failing to start.
#include <stdint.h>

typedef struct ParleySpeexEchoState ParleySpeexEchoState;
typedef struct ParleySpeexPreprocessState ParleySpeexPreprocessState;

// speex_echo.h
typedef ParleySpeexEchoState *(*ParleySpeexEchoStateInit)(int frame_size, int filter_length);
typedef void (*ParleySpeexEchoStateDestroy)(ParleySpeexEchoState *st);
typedef void (*ParleySpeexEchoCancellation)(ParleySpeexEchoState *st, const int16_t *rec, const int16_t *play, int16_t *out);
typedef void (*ParleySpeexEchoStateReset)(ParleySpeexEchoState *st);
typedef int (*ParleySpeexEchoCtl)(ParleySpeexEchoState *st, int request, void *ptr);
#define PARLEY_SPEEX_ECHO_SET_SAMPLING_RATE 24

// speex_preprocess.h
typedef ParleySpeexPreprocessState *(*ParleySpeexPreprocessStateInit)(int frame_size, int sampling_rate);
typedef void (*ParleySpeexPreprocessStateDestroy)(ParleySpeexPreprocessState *st);
typedef int (*ParleySpeexPreprocessRun)(ParleySpeexPreprocessState *st, int16_t *x);
typedef int (*ParleySpeexPreprocessCtl)(ParleySpeexPreprocessState *st, int request, void *ptr);
#define PARLEY_SPEEX_PREPROCESS_SET_DENOISE 0
#define PARLEY_SPEEX_PREPROCESS_SET_ECHO_SUPPRESS 20
#define PARLEY_SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE 22
#define PARLEY_SPEEX_PREPROCESS_SET_ECHO_STATE 24

#endif
