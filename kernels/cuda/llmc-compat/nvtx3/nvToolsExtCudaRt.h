// Stand-in for NVTX 3's nvToolsExtCudaRt.h (see ../README.md).
#pragma once
