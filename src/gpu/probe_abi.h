/* The versioned C interface between infermark and libinfermark_gpu_probe.so, the CUDA probe built
 * when CMake finds the CUDA toolkit. infermark never links CUDA: it opens the library at run time
 * and exchanges JSON text through these three functions (docs/gpu.md, "Probe"). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// Marks the three functions exported from the library (built with hidden visibility).
#if defined(__GNUC__)
#define INFERMARK_PROBE_EXPORT __attribute__((visibility("default")))
#else
#define INFERMARK_PROBE_EXPORT
#endif

/// The interface version this header describes; infermark refuses a library reporting another.
#define INFERMARK_PROBE_ABI_VERSION 1

/// infermark_probe_run finished every test it was asked for (some GEMMs may carry an error).
#define INFERMARK_PROBE_OK 0
/// No CUDA device is usable: no GPU, no driver, or a driver too old for the runtime.
#define INFERMARK_PROBE_NO_DEVICE 1
/// The request was not valid JSON or broke a rule; the result names the field.
#define INFERMARK_PROBE_BAD_REQUEST 2
/// A CUDA or cuBLAS call failed; the result names the call and its error.
#define INFERMARK_PROBE_CUDA_ERROR 3

/// Returns INFERMARK_PROBE_ABI_VERSION of the library's build.
INFERMARK_PROBE_EXPORT int infermark_probe_abi_version(void);
/// Runs the probe described by `request_json` and stores a JSON result (allocated by the library,
/// released with infermark_probe_free) in `*result_json`; on failure the result is
/// `{"error": "..."}`. Returns one of the INFERMARK_PROBE_* codes.
INFERMARK_PROBE_EXPORT int infermark_probe_run(const char* request_json, char** result_json);
/// Releases a result returned by infermark_probe_run.
INFERMARK_PROBE_EXPORT void infermark_probe_free(char* text);

/// Type of infermark_probe_abi_version, for dlsym.
typedef int (*infermark_probe_abi_version_fn)(void);
/// Type of infermark_probe_run, for dlsym.
typedef int (*infermark_probe_run_fn)(const char*, char**);
/// Type of infermark_probe_free, for dlsym.
typedef void (*infermark_probe_free_fn)(char*);

#ifdef __cplusplus
}
#endif
