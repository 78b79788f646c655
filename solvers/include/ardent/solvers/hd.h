// ARDENT_HD marks functions that both host and CUDA device code compile (the per-cell physics is
// written once, spec section 2). Outside nvcc it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define ARDENT_HD __host__ __device__
#else
#define ARDENT_HD
#endif
