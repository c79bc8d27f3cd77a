// A library's public header: types the kernels of records.cu take, defined outside the .cu.
#pragma once

enum class Mode : unsigned char { Copy = 0, Scale = 1 };

// Options by value: an enum of this header as a field, a method.
struct Options {
    Mode mode;
    int n;
    float factor;
    __host__ __device__ float apply(float x) const { return mode == Mode::Scale ? x * factor : x; }
};
