#ifndef PARLEY_CLLAMA_SHIM_H
#define PARLEY_CLLAMA_SHIM_H
#include <llama.h>
#endif
