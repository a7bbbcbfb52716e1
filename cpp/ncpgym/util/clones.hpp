// NCPGYM_CLONES: compile a hot loop twice, for AVX2/FMA and for the baseline, with run-time
// dispatch (GCC's target_clones). Portable wheels are built for baseline x86-64 (SSE2), so
// without it the inner kernels would use 2-wide registers on every machine; Eigen's own SIMD
// width is fixed when the file is compiled and is not affected.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NCPGYM_NATIVE_BUILD)
#define NCPGYM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define NCPGYM_CLONES
#endif
