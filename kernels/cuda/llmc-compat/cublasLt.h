// Stand-in for cuBLASLt's cublasLt.h (see README.md): the types and names llm.c's host code
// uses, the functions variadic (never called: only the device code of the unit is used).
#pragma once
#include <cstddef>
#include <cstdint>
#include "cublas_v2.h"
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque *cublasLtMatmulPreference_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;
typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_GELU_AUX = 160,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    CUBLASLT_EPILOGUE_DGELU = 192,
    CUBLASLT_EPILOGUE_BGRADB = 512,
} cublasLtEpilogue_t;
typedef enum {
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 10,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 11,
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,
} cublasLtMatmulDescAttributes_t;
typedef enum {
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
} cublasLtMatrixLayoutAttribute_t;
typedef enum { CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 } cublasLtMatmulPreferenceAttributes_t;
static inline cublasStatus_t cublasLtCreate(cublasLtHandle_t *) { return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasLtDestroy(cublasLtHandle_t) { return CUBLAS_STATUS_SUCCESS; }
#define CUDA_KERNEL_LT_STUB(name) \
    template <class... A> static inline cublasStatus_t name(A...) { return CUBLAS_STATUS_SUCCESS; }
CUDA_KERNEL_LT_STUB(cublasLtMatmul)
CUDA_KERNEL_LT_STUB(cublasLtMatmulAlgoGetHeuristic)
CUDA_KERNEL_LT_STUB(cublasLtMatmulDescCreate)
CUDA_KERNEL_LT_STUB(cublasLtMatmulDescDestroy)
CUDA_KERNEL_LT_STUB(cublasLtMatmulDescSetAttribute)
CUDA_KERNEL_LT_STUB(cublasLtMatmulPreferenceCreate)
CUDA_KERNEL_LT_STUB(cublasLtMatmulPreferenceDestroy)
CUDA_KERNEL_LT_STUB(cublasLtMatmulPreferenceSetAttribute)
CUDA_KERNEL_LT_STUB(cublasLtMatrixLayoutCreate)
CUDA_KERNEL_LT_STUB(cublasLtMatrixLayoutDestroy)
CUDA_KERNEL_LT_STUB(cublasLtMatrixLayoutSetAttribute)
#undef CUDA_KERNEL_LT_STUB
