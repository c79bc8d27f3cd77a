// Stand-in for cuBLAS's cublas_v2.h (see README.md): the types and names llm.c's host code uses.
#pragma once
#include <library_types.h>
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68 } cublasComputeType_t;
typedef cudaDataType cublasDataType_t;
