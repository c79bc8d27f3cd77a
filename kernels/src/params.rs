//! Structs passed to kernels by value. Their CUDA declarations are generated into
//! `kernels/cuda/params.cuh` (see `kernels/tests/header.rs`), so nvcc checks the device side
//! against the layout computed here.

use cuda_kernel::half::f16;
use cuda_kernel::{Float3, KernelParam};

/// A tag and a value: 16 bytes, aligned to 8 (7 bytes of padding after `tag`).
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[repr(C)]
pub struct Tagged {
    /// A small tag.
    pub tag: u8,
    /// The value.
    pub value: f64,
}

/// A struct mixing alignments, a nested struct and an array: 48 bytes, aligned to 8.
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[repr(C)]
pub struct Particle {
    /// At offset 0.
    pub flag: bool,
    /// At offset 8.
    pub inner: Tagged,
    /// At offset 24.
    pub dir: Float3,
    /// At offset 36.
    pub ids: [i16; 3],
    /// At offset 42.
    pub mass: f16,
}

/// Number of floats in [`BigParams`].
pub const BIG_PARAMS_LEN: usize = 2000;

/// 8,000 bytes of parameters: more than the 4,096 bytes of pre-Volta GPUs and old drivers.
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[repr(C)]
pub struct BigParams {
    /// The values.
    pub values: [f32; BIG_PARAMS_LEN],
}

/// `geo::Pair` of `kernels/cuda/class_templates.cu`: a struct in a C++ namespace, 8 bytes, a
/// template argument there.
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[kernel_param(cuda_name = "geo::Pair")]
#[repr(C)]
pub struct Pair {
    /// The first term.
    pub a: i32,
    /// The factor.
    pub b: f32,
}

/// `ns::shapes::Interval` of `kernels/cuda/namespaces.cu`: a struct of a nested C++ namespace,
/// a parameter of the non-template kernel `ns::spread`, by value and through a pointer.
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[kernel_param(cuda_name = "ns::shapes::Interval")]
#[repr(C)]
pub struct Interval {
    /// The low end.
    pub lo: f32,
    /// The high end.
    pub hi: f32,
    /// How many points.
    pub n: u32,
}

/// The declarations of `kernels/cuda/params.cuh`, nested structs first.
pub const DECLARATIONS: [&str; 8] = [
    Tagged::CUDA_DECLARATION,
    Particle::CUDA_DECLARATION,
    BigParams::CUDA_DECLARATION,
    Pair::CUDA_DECLARATION,
    Interval::CUDA_DECLARATION,
    Block64::CUDA_DECLARATION,
    ViewF32::CUDA_DECLARATION,
    ElementF32::CUDA_DECLARATION,
];

/// 256 bytes aligned to 64, which a kernel takes as `const __grid_constant__`: its offset in
/// the parameter buffer is the GPU's to choose (see `kernels/cuda/tma.cu`).
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[repr(C, align(64))]
pub struct Block64 {
    /// 32 words.
    pub words: [u64; 32],
}

/// `View<float>` of `kernels/cuda/cpp_names.cu`, by value: an instance of a class template.
#[derive(Clone, Copy, Debug, PartialEq, KernelParam)]
#[repr(C)]
pub struct ViewF32 {
    /// `T scale`.
    pub scale: f32,
    /// `int n`.
    pub n: i32,
}

/// `Element<float>` of `kernels/cuda/cpp_names.cu`, through a pointer.
#[derive(Clone, Copy, Debug, Default, PartialEq, KernelParam)]
#[repr(C)]
pub struct ElementF32 {
    /// `T value`.
    pub value: f32,
    /// `int tag`.
    pub tag: i32,
}
