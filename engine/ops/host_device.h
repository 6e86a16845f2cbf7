// QV_HOST_DEVICE marks the plain math functions of ops/ that nvcc compiles too, so that the CPU and
// CUDA backends compute them with one definition.
#pragma once

#ifdef __CUDACC__
#define QV_HOST_DEVICE __host__ __device__
#else
#define QV_HOST_DEVICE
#endif
