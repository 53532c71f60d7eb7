#ifndef PARLEY_CONNXRUNTIME_SHIM_H
#define PARLEY_CONNXRUNTIME_SHIM_H
// The part of ONNX Runtime's C API (MIT) that Parley calls, declared here: the library that
// scripts/setup installs (libonnxruntime.so from the sherpa-onnx-core wheel) comes with no header.
//
// The API is one exported function, OrtGetApiBase(), whose GetApi(version) returns a table of
// function pointers (OrtApi). The table only grows: a member keeps its place in every later
// version, so a declaration of its first members holds for any library that serves the version
// asked for. The places below are those of onnxruntime_c_api.h at ORT_API_VERSION 13 (checked
// against the revision at version 8 too); members Parley does not call are untyped slots. The
// library installed here reports 1.28.2 and serves API versions 1 to 28. Types only: nothing
// links the library; ParleyOnnx opens it with dlopen on first use.
#include <stddef.h>
#include <stdint.h>

/// The API version whose table this header declares the beginning of.
#define PARLEY_ORT_API_VERSION 13

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtAllocator OrtAllocator;

// Enumerations, as plain ints with the header's values.
enum {
    PARLEY_ORT_LOGGING_LEVEL_WARNING = 2,
    PARLEY_ORT_LOGGING_LEVEL_ERROR = 3,
    PARLEY_ORT_SEQUENTIAL = 0,
    PARLEY_ORT_ENABLE_ALL = 99,
    PARLEY_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
    PARLEY_ORT_DEVICE_ALLOCATOR = 0,
    PARLEY_ORT_MEM_TYPE_DEFAULT = 0,
};

typedef OrtStatus *ParleyOrtStatusPtr;

/// OrtApi's first 101 members, in order (the comment gives each slot's index).
typedef struct ParleyOrtApi {
    void *slot0_CreateStatus;                                                              // 0
    int (*GetErrorCode)(const OrtStatus *status);                                          // 1
    const char *(*GetErrorMessage)(const OrtStatus *status);                               // 2
    ParleyOrtStatusPtr (*CreateEnv)(int log_severity_level, const char *logid, OrtEnv **out); // 3
    void *slot4_CreateEnvWithCustomLogger;
    void *slot5_EnableTelemetryEvents;
    void *slot6_DisableTelemetryEvents;
    ParleyOrtStatusPtr (*CreateSession)(const OrtEnv *env, const char *model_path,
                                        const OrtSessionOptions *options, OrtSession **out); // 7
    void *slot8_CreateSessionFromArray;
    ParleyOrtStatusPtr (*Run)(OrtSession *session, const OrtRunOptions *run_options,
                              const char *const *input_names, const OrtValue *const *inputs, size_t input_len,
                              const char *const *output_names, size_t output_names_len,
                              OrtValue **outputs);                                        // 9
    ParleyOrtStatusPtr (*CreateSessionOptions)(OrtSessionOptions **options);              // 10
    void *slot11_SetOptimizedModelFilePath;
    void *slot12_CloneSessionOptions;
    ParleyOrtStatusPtr (*SetSessionExecutionMode)(OrtSessionOptions *options, int mode);   // 13
    void *slot14_EnableProfiling;
    void *slot15_DisableProfiling;
    void *slot16_EnableMemPattern;
    void *slot17_DisableMemPattern;
    void *slot18_EnableCpuMemArena;
    void *slot19_DisableCpuMemArena;
    void *slot20_SetSessionLogId;
    void *slot21_SetSessionLogVerbosityLevel;
    ParleyOrtStatusPtr (*SetSessionLogSeverityLevel)(OrtSessionOptions *options, int level); // 22
    ParleyOrtStatusPtr (*SetSessionGraphOptimizationLevel)(OrtSessionOptions *options, int level); // 23
    ParleyOrtStatusPtr (*SetIntraOpNumThreads)(OrtSessionOptions *options, int threads);   // 24
    ParleyOrtStatusPtr (*SetInterOpNumThreads)(OrtSessionOptions *options, int threads);   // 25
    void *slot26_CreateCustomOpDomain;
    void *slot27_CustomOpDomain_Add;
    void *slot28_AddCustomOpDomain;
    void *slot29_RegisterCustomOpsLibrary;
    ParleyOrtStatusPtr (*SessionGetInputCount)(const OrtSession *session, size_t *out);    // 30
    ParleyOrtStatusPtr (*SessionGetOutputCount)(const OrtSession *session, size_t *out);   // 31
    void *slot32_SessionGetOverridableInitializerCount;
    void *slot33_SessionGetInputTypeInfo;
    void *slot34_SessionGetOutputTypeInfo;
    void *slot35_SessionGetOverridableInitializerTypeInfo;
    ParleyOrtStatusPtr (*SessionGetInputName)(const OrtSession *session, size_t index,
                                              OrtAllocator *allocator, char **value);     // 36
    ParleyOrtStatusPtr (*SessionGetOutputName)(const OrtSession *session, size_t index,
                                               OrtAllocator *allocator, char **value);    // 37
    void *slot38_SessionGetOverridableInitializerName;
    void *slot39_CreateRunOptions;
    void *slot40_RunOptionsSetRunLogVerbosityLevel;
    void *slot41_RunOptionsSetRunLogSeverityLevel;
    void *slot42_RunOptionsSetRunTag;
    void *slot43_RunOptionsGetRunLogVerbosityLevel;
    void *slot44_RunOptionsGetRunLogSeverityLevel;
    void *slot45_RunOptionsGetRunTag;
    void *slot46_RunOptionsSetTerminate;
    void *slot47_RunOptionsUnsetTerminate;
    void *slot48_CreateTensorAsOrtValue;
    ParleyOrtStatusPtr (*CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *info, void *data, size_t data_length,
                                                         const int64_t *shape, size_t shape_length, int type,
                                                         OrtValue **out);                 // 49
    void *slot50_IsTensor;
    ParleyOrtStatusPtr (*GetTensorMutableData)(OrtValue *value, void **out);               // 51
    void *slot52_FillStringTensor;
    void *slot53_GetStringTensorDataLength;
    void *slot54_GetStringTensorContent;
    void *slot55_CastTypeInfoToTensorInfo;
    void *slot56_GetOnnxTypeFromTypeInfo;
    void *slot57_CreateTensorTypeAndShapeInfo;
    void *slot58_SetTensorElementType;
    void *slot59_SetDimensions;
    ParleyOrtStatusPtr (*GetTensorElementType)(const OrtTensorTypeAndShapeInfo *info, int *out); // 60
    ParleyOrtStatusPtr (*GetDimensionsCount)(const OrtTensorTypeAndShapeInfo *info, size_t *out); // 61
    ParleyOrtStatusPtr (*GetDimensions)(const OrtTensorTypeAndShapeInfo *info, int64_t *values, size_t length); // 62
    void *slot63_GetSymbolicDimensions;
    void *slot64_GetTensorShapeElementCount;
    ParleyOrtStatusPtr (*GetTensorTypeAndShape)(const OrtValue *value, OrtTensorTypeAndShapeInfo **out); // 65
    void *slot66_GetTypeInfo;
    void *slot67_GetValueType;
    void *slot68_CreateMemoryInfo;
    ParleyOrtStatusPtr (*CreateCpuMemoryInfo)(int allocator_type, int mem_type, OrtMemoryInfo **out); // 69
    void *slot70_CompareMemoryInfo;
    void *slot71_MemoryInfoGetName;
    void *slot72_MemoryInfoGetId;
    void *slot73_MemoryInfoGetMemType;
    void *slot74_MemoryInfoGetType;
    void *slot75_AllocatorAlloc;
    ParleyOrtStatusPtr (*AllocatorFree)(OrtAllocator *allocator, void *pointer);           // 76
    void *slot77_AllocatorGetInfo;
    ParleyOrtStatusPtr (*GetAllocatorWithDefaultOptions)(OrtAllocator **out);              // 78
    void *slot79_AddFreeDimensionOverride;
    void *slot80_GetValue;
    void *slot81_GetValueCount;
    void *slot82_CreateValue;
    void *slot83_CreateOpaqueValue;
    void *slot84_GetOpaqueValue;
    void *slot85_KernelInfoGetAttribute_float;
    void *slot86_KernelInfoGetAttribute_int64;
    void *slot87_KernelInfoGetAttribute_string;
    void *slot88_KernelContext_GetInputCount;
    void *slot89_KernelContext_GetOutputCount;
    void *slot90_KernelContext_GetInput;
    void *slot91_KernelContext_GetOutput;
    void (*ReleaseEnv)(OrtEnv *input);                                                     // 92
    void (*ReleaseStatus)(OrtStatus *input);                                               // 93
    void (*ReleaseMemoryInfo)(OrtMemoryInfo *input);                                       // 94
    void (*ReleaseSession)(OrtSession *input);                                             // 95
    void (*ReleaseValue)(OrtValue *input);                                                 // 96
    void *slot97_ReleaseRunOptions;
    void *slot98_ReleaseTypeInfo;
    void (*ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *input);               // 99
    void (*ReleaseSessionOptions)(OrtSessionOptions *input);                               // 100
} ParleyOrtApi;

// Every member is one pointer wide, so a member's offset is its index in pointers.
_Static_assert(offsetof(ParleyOrtApi, Run) == 9 * sizeof(void *), "OrtApi::Run is member 9");
_Static_assert(offsetof(ParleyOrtApi, CreateTensorWithDataAsOrtValue) == 49 * sizeof(void *), "member 49");
_Static_assert(offsetof(ParleyOrtApi, CreateCpuMemoryInfo) == 69 * sizeof(void *), "member 69");
_Static_assert(offsetof(ParleyOrtApi, ReleaseEnv) == 92 * sizeof(void *), "member 92");
_Static_assert(sizeof(ParleyOrtApi) == 101 * sizeof(void *), "101 members");

/// OrtApiBase: what OrtGetApiBase() returns.
typedef struct ParleyOrtApiBase {
    const ParleyOrtApi *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ParleyOrtApiBase;

/// The type of the library's one exported entry point, OrtGetApiBase.
typedef const ParleyOrtApiBase *(*ParleyOrtGetApiBase)(void);

#endif
