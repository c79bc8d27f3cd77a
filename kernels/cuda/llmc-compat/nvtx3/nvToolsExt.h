// Stand-in for NVTX 3's nvToolsExt.h (see ../README.md): the calls llm.c's host code makes.
#pragma once
static inline int nvtxRangePush(const char *) { return 0; }
static inline int nvtxRangePop(void) { return 0; }
