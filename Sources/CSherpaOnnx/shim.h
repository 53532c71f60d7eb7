#ifndef PARLEY_CSHERPAONNX_SHIM_H
#define PARLEY_CSHERPAONNX_SHIM_H
// sherpa-onnx's C API (Apache-2.0), installed by scripts/setup from the sherpa-onnx-core wheel.
// Types only: nothing links the library; ParleyLocal opens it on first use (SherpaOnnxLibrary),
// so that a process that never speaks or hears with it does not load ONNX Runtime.
// Parley uses only its offline TTS with phonemes given as code points: the library holds no
// espeak-ng code, and Parley runs the espeak-ng program (GPL) as a separate process.
#include <sherpa-onnx/c-api/c-api.h>
#endif
