//! ABI conformance, in the style of abi-cafe: seeded random kernel signatures over every
//! supported parameter type, laid out by cuda-kernel and checked against
//!
//! 1. g++ (no GPU): the same parameters as members of a C++ struct, with CUDA's vector types
//!    declared with CUDA's alignments (the table of ../shared/CUDA-ABI.md, written out here
//!    independently of the crate), and the derived structs through their `CUDA_DECLARATION`,
//!    whose `static_assert`s g++ checks too;
//! 2. the GPU (ignored without one): the same signatures as CUDA kernels built by nvcc, where
//!    every offset must equal `cuFuncGetParamInfo` and an echo kernel copies each parameter's
//!    bytes out, filled by the host with "graffiti" (parameter index in the high nibble, byte
//!    index in the low) so any shift shows.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel::half::{bf16, f16};
use cuda_kernel::*;

// ---------------------------------------------------------------------------------------------
// The types signatures are drawn from.

/// A parameter type: its Rust name and what cuda-kernel says of it.
#[derive(Clone, Copy, Debug)]
struct ParamType {
    rust: &'static str,
    size: usize,
    align: usize,
    cuda: CType,
    is_bool: bool,
}

macro_rules! param_types {
    ($($ty:ty),* $(,)?) => {
        vec![$(ParamType {
            rust: stringify!($ty),
            size: <$ty as KernelParam>::SIZE,
            align: <$ty as KernelParam>::ALIGN,
            cuda: <$ty as KernelParam>::CUDA_TYPE,
            is_bool: stringify!($ty) == "bool",
        }),*]
    };
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Inner {
    pub tag: u8,
    pub value: f64,
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Mixed {
    pub flag: u8,
    pub dir: Float3,
    pub count: i16,
    pub bytes: [u8; 5],
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(16))]
pub struct Aligned16 {
    pub x: f32,
    pub tag: u8,
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Nested {
    pub inner: Inner,
    pub h: Half2,
    pub shorts: [Short3; 2],
    pub c: Char3,
}

/// A struct aligned above 16 bytes: its offset in a parameter buffer is the GPU's to choose.
#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(32))]
pub struct Aligned32 {
    pub x: f64,
    pub tag: u8,
}

/// 64 bytes aligned to 64, as Hopper kernels take their tile descriptors.
#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(64))]
pub struct Aligned64 {
    pub words: [u32; 12],
    pub tag: u16,
}

/// Declarations of the structs, nested ones first.
const STRUCT_DECLARATIONS: [&str; 6] = [
    Inner::CUDA_DECLARATION,
    Mixed::CUDA_DECLARATION,
    Aligned16::CUDA_DECLARATION,
    Nested::CUDA_DECLARATION,
    Aligned32::CUDA_DECLARATION,
    Aligned64::CUDA_DECLARATION,
];

fn universe() -> Vec<ParamType> {
    param_types![
        bool,
        i8,
        u8,
        i16,
        u16,
        i32,
        u32,
        i64,
        u64,
        f32,
        f64,
        f16,
        bf16,
        Char1,
        Char2,
        Char3,
        Char4,
        Uchar1,
        Uchar2,
        Uchar3,
        Uchar4,
        Short1,
        Short2,
        Short3,
        Short4,
        Ushort1,
        Ushort2,
        Ushort3,
        Ushort4,
        Int1,
        Int2,
        Int3,
        Int4,
        Uint1,
        Uint2,
        Uint3,
        Uint4,
        Long1,
        Long2,
        Long3,
        Long4,
        Ulong1,
        Ulong2,
        Ulong3,
        Ulong4,
        Longlong1,
        Longlong2,
        Longlong3,
        Longlong4,
        Ulonglong1,
        Ulonglong2,
        Ulonglong3,
        Ulonglong4,
        Float1,
        Float2,
        Float3,
        Float4,
        Double1,
        Double2,
        Double3,
        Double4,
        Double4_16a,
        Long4_16a,
        Ulong4_16a,
        Longlong4_16a,
        Ulonglong4_16a,
        Half2,
        Bfloat162,
        *const f32,
        *mut Float4,
        *const *const u8,
        Inner,
        Mixed,
        Aligned16,
        Nested,
    ]
}

/// The types aligned above 16 bytes, placed by the GPU: the `_32a` vectors, structs aligned to
/// 32 and 64, and the 128-byte TMA descriptor.
fn aligned_universe() -> Vec<ParamType> {
    param_types![
        Double4_32a,
        Long4_32a,
        Ulonglong4_32a,
        Aligned32,
        Aligned64,
        RawTensorMap,
    ]
}

/// CUDA's vector types for g++, as ../shared/CUDA-ABI.md gives them (not read from the crate):
/// `(name, element, count, alignment)`.
const CUDA_VECTOR_TYPES: &[(&str, &str, usize, usize)] = &[
    ("char1", "signed char", 1, 1),
    ("char2", "signed char", 2, 2),
    ("char3", "signed char", 3, 1),
    ("char4", "signed char", 4, 4),
    ("uchar1", "unsigned char", 1, 1),
    ("uchar2", "unsigned char", 2, 2),
    ("uchar3", "unsigned char", 3, 1),
    ("uchar4", "unsigned char", 4, 4),
    ("short1", "short", 1, 2),
    ("short2", "short", 2, 4),
    ("short3", "short", 3, 2),
    ("short4", "short", 4, 8),
    ("ushort1", "unsigned short", 1, 2),
    ("ushort2", "unsigned short", 2, 4),
    ("ushort3", "unsigned short", 3, 2),
    ("ushort4", "unsigned short", 4, 8),
    ("int1", "int", 1, 4),
    ("int2", "int", 2, 8),
    ("int3", "int", 3, 4),
    ("int4", "int", 4, 16),
    ("uint1", "unsigned int", 1, 4),
    ("uint2", "unsigned int", 2, 8),
    ("uint3", "unsigned int", 3, 4),
    ("uint4", "unsigned int", 4, 16),
    ("long1", "long", 1, 8),
    ("long2", "long", 2, 16),
    ("long3", "long", 3, 8),
    ("long4", "long", 4, 16),
    ("ulong1", "unsigned long", 1, 8),
    ("ulong2", "unsigned long", 2, 16),
    ("ulong3", "unsigned long", 3, 8),
    ("ulong4", "unsigned long", 4, 16),
    ("longlong1", "long long", 1, 8),
    ("longlong2", "long long", 2, 16),
    ("longlong3", "long long", 3, 8),
    ("longlong4", "long long", 4, 16),
    ("ulonglong1", "unsigned long long", 1, 8),
    ("ulonglong2", "unsigned long long", 2, 16),
    ("ulonglong3", "unsigned long long", 3, 8),
    ("ulonglong4", "unsigned long long", 4, 16),
    ("float1", "float", 1, 4),
    ("float2", "float", 2, 8),
    ("float3", "float", 3, 4),
    ("float4", "float", 4, 16),
    ("double1", "double", 1, 8),
    ("double2", "double", 2, 16),
    ("double3", "double", 3, 8),
    ("double4", "double", 4, 16),
    ("double4_16a", "double", 4, 16),
    ("long4_16a", "long", 4, 16),
    ("ulong4_16a", "unsigned long", 4, 16),
    ("longlong4_16a", "long long", 4, 16),
    ("ulonglong4_16a", "unsigned long long", 4, 16),
    ("double4_32a", "double", 4, 32),
    ("long4_32a", "long", 4, 32),
    ("ulonglong4_32a", "unsigned long long", 4, 32),
];

/// Host stand-ins for CUDA's half types (2-byte `__half`, 4-byte-aligned pairs).
const HALF_TYPES: &str = "\
struct __half { unsigned short bits; };
struct __nv_bfloat16 { unsigned short bits; };
struct alignas(4) __half2 { __half x, y; };
struct alignas(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
struct alignas(128) CUtensorMap_st { unsigned long long opaque[16]; };
";

// ---------------------------------------------------------------------------------------------
// Signatures.

/// SplitMix64: small, seeded, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SEED: u64 = 0x00c0_ffee_cafe_f00d;
const RANDOM_SIGNATURES: usize = 320;

/// 320 random signatures of 1 to 16 parameters, then "perturbed" ones: a 14-parameter list
/// with a u8, and then an f32, inserted at every position.
fn signatures(types: &[ParamType]) -> Vec<Vec<ParamType>> {
    let mut rng = Rng(SEED);
    let mut sigs: Vec<Vec<ParamType>> = (0..RANDOM_SIGNATURES)
        .map(|_| {
            let len = 1 + rng.below(16);
            (0..len).map(|_| types[rng.below(types.len())]).collect()
        })
        .collect();
    let base: Vec<ParamType> = (0..14).map(|_| types[rng.below(types.len())]).collect();
    for inserted in ["u8", "f32"] {
        let t = *types.iter().find(|t| t.rust == inserted).unwrap();
        for at in 0..=base.len() {
            let mut sig = base.clone();
            sig.insert(at, t);
            sigs.push(sig);
        }
    }
    sigs
}

/// 96 signatures of 1 to 12 parameters drawn from both universes, each with at least one
/// parameter aligned above 16 bytes, then a 10-parameter list with each aligned type inserted
/// at every position.
fn aligned_signatures(types: &[ParamType], aligned: &[ParamType]) -> Vec<Vec<ParamType>> {
    let mut rng = Rng(SEED ^ 0xa11e_d000);
    let mut sigs: Vec<Vec<ParamType>> = (0..96)
        .map(|_| {
            let len = 1 + rng.below(12);
            let mut sig: Vec<ParamType> = (0..len)
                .map(|_| match rng.below(3) {
                    0 => aligned[rng.below(aligned.len())],
                    _ => types[rng.below(types.len())],
                })
                .collect();
            let at = rng.below(len);
            sig[at] = aligned[rng.below(aligned.len())];
            sig
        })
        .collect();
    let base: Vec<ParamType> = (0..10).map(|_| types[rng.below(types.len())]).collect();
    for t in aligned {
        for at in 0..=base.len() {
            let mut sig = base.clone();
            sig.insert(at, *t);
            sigs.push(sig);
        }
    }
    sigs
}

/// cuda-kernel's layout of a signature.
fn layout(sig: &[ParamType]) -> Vec<ParamSlot> {
    let mut slots: Vec<ParamSlot> = sig
        .iter()
        .map(|t| ParamSlot {
            name: "p",
            offset: 0,
            size: t.size,
            align: t.align,
            ty: t.cuda,
        })
        .collect();
    ParamLayout::place_in(&mut slots);
    slots
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------
// 1. Against g++.

fn host_program(sigs: &[Vec<ParamType>]) -> String {
    let mut src = String::from("#include <cstddef>\n#include <cstdio>\n#include <cstdint>\n");
    src.push_str(HALF_TYPES);
    for (name, elem, count, align) in CUDA_VECTOR_TYPES {
        let fields = ["x", "y", "z", "w"][..*count].join(", ");
        writeln!(
            src,
            "struct alignas({align}) {name} {{ {elem} {fields}; }};"
        )
        .unwrap();
    }
    for decl in STRUCT_DECLARATIONS {
        src.push_str(decl);
    }
    for (k, sig) in sigs.iter().enumerate() {
        write!(src, "struct sig{k} {{").unwrap();
        for (i, t) in sig.iter().enumerate() {
            write!(src, " {} p{i};", t.cuda).unwrap();
        }
        src.push_str(" };\n");
    }
    src.push_str("int main() {\n");
    for (k, sig) in sigs.iter().enumerate() {
        for i in 0..sig.len() {
            writeln!(
                src,
                "  std::printf(\"{k} {i} %zu %zu\\n\", offsetof(sig{k}, p{i}), sizeof(((sig{k}*)0)->p{i}));"
            )
            .unwrap();
        }
    }
    src.push_str("  return 0;\n}\n");
    src
}

#[test]
fn layouts_match_gxx_for_every_generated_signature() {
    let types = universe();
    let mut sigs = signatures(&types);
    // The C rule's offsets of parameters aligned above 16 bytes too (on the GPU they are the
    // driver's, from the first such parameter on; g++ checks the declared side).
    sigs.extend(aligned_signatures(&types, &aligned_universe()));
    let params: usize = sigs.iter().map(Vec::len).sum();
    assert!(
        sigs.len() >= 300 && params >= 2000,
        "{} signatures, {params} parameters",
        sigs.len()
    );

    let dir = scratch_dir("conformance-gxx");
    let src = dir.join("layouts.cpp");
    let exe = dir.join("layouts");
    std::fs::write(&src, host_program(&sigs)).unwrap();
    let compiled = Command::new("g++")
        .args(["-std=c++17", "-w", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("g++ runs (the conformance suite needs gcc's C++ compiler)");
    assert!(
        compiled.status.success(),
        "g++ rejected the layouts (a failing static_assert means a derived struct's layout is wrong):\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let mut lines = text.lines();
    let mut checked = 0;
    for (k, sig) in sigs.iter().enumerate() {
        let slots = layout(sig);
        for (i, slot) in slots.iter().enumerate() {
            let line = lines.next().expect("a line per parameter");
            let want = format!("{k} {i} {} {}", slot.offset, slot.size);
            assert_eq!(
                line,
                want,
                "signature {k} parameter {i} ({}): g++ says `{line}`, cuda-kernel `{want}`\nsignature: {:?}",
                sig[i].rust,
                sig.iter().map(|t| t.rust).collect::<Vec<_>>()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, params);
    eprintln!(
        "conformance: {} signatures, {params} parameters agree with g++",
        sigs.len()
    );
}

#[test]
fn struct_padding_is_found() {
    // Mixed: flag@0, 3 bytes of padding, dir@4..16, count@16..18, bytes@18..23, 1 byte of tail.
    let mask = data_bytes("Mixed", Mixed::SIZE);
    let padding: Vec<usize> = (0..mask.len()).filter(|&i| !mask[i]).collect();
    assert_eq!(padding, [1, 2, 3, 23]);
    // Nested: Inner's 7 bytes of padding appear inside it.
    let mask = data_bytes("Nested", Nested::SIZE);
    assert!(!mask[1] && !mask[7] && mask[8]);
}

#[test]
fn every_type_of_the_universe_is_drawn() {
    let types = universe();
    let sigs = signatures(&types);
    for t in &types {
        assert!(
            sigs.iter().flatten().any(|p| p.rust == t.rust),
            "{} never drawn",
            t.rust
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Against the GPU.

/// The `.cu` of the echo kernels: kernel k copies its parameters, back to back, into `out`.
fn device_source(sigs: &[Vec<ParamType>]) -> String {
    let mut src = String::from(&cuda_header(&STRUCT_DECLARATIONS)[..]);
    src.push_str("#include <vector_types.h>\n");
    for (k, sig) in sigs.iter().enumerate() {
        write!(src, "extern \"C\" __global__ void sig{k}(").unwrap();
        for (i, t) in sig.iter().enumerate() {
            write!(src, "{} p{i}, ", t.cuda).unwrap();
        }
        src.push_str("unsigned char *out) {\n  if (threadIdx.x != 0 || blockIdx.x != 0) return;\n");
        let mut at = 0;
        for (i, t) in sig.iter().enumerate() {
            writeln!(src, "  memcpy(out + {at}, &p{i}, sizeof(p{i}));").unwrap();
            at += t.size;
        }
        src.push_str("}\n");
    }
    src
}

/// Which bytes of a value of type `name` hold data, as opposed to struct padding (which the
/// device need not copy). Follows nested structs through their field slots.
fn data_bytes(name: &str, size: usize) -> Vec<bool> {
    let fields: &[ParamSlot] = match name {
        "Inner" => &Inner::__FIELDS,
        "Mixed" => &Mixed::__FIELDS,
        "Aligned16" => &Aligned16::__FIELDS,
        "Nested" => &Nested::__FIELDS,
        "NsPair" => &NsPair::__FIELDS,
        "Aligned32" => &Aligned32::__FIELDS,
        "Aligned64" => &Aligned64::__FIELDS,
        _ => return vec![true; size],
    };
    let mut mask = vec![false; size];
    for field in fields {
        let inner = if field.ty.pointers == 0 {
            data_bytes(field.ty.name, field.size)
        } else {
            vec![true; field.size]
        };
        mask[field.offset..field.end()].copy_from_slice(&inner);
    }
    mask
}

/// Byte `j` of parameter `i`: the index in the high nibble, the byte in the low. A `bool` must
/// hold 0 or 1, so it gets the index's low bit.
fn graffiti(i: usize, j: usize, t: &ParamType) -> u8 {
    if t.is_bool {
        (i & 1) as u8
    } else {
        (((i & 0xf) << 4) | (j & 0xf)) as u8
    }
}

/// Loads the echo kernel `name`, whose parameters are `sig` and a trailing `out` pointer (the
/// load compares every offset and size with `cuFuncGetParamInfo`), launches it with each
/// parameter's bytes filled with [`graffiti`], and returns the `echo_len` bytes it wrote.
fn load_and_echo(
    stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    module: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaModule>,
    name: &'static str,
    sig: &[ParamType],
    echo_len: usize,
) -> Result<Vec<u8>, Error> {
    let mut slots = layout(sig);
    slots.push(ParamSlot::of::<*mut u8>("out"));
    ParamLayout::place_in(&mut slots);
    let slots: &'static [ParamSlot] = Box::leak(slots.into_boxed_slice());
    let layout = ParamLayout::from_slots(slots);
    let function = cuda_kernel::__private::load_function(module, name, &layout)
        .map(|function| cuda_kernel::Loaded::module(function, name))?;
    let mut out = stream.alloc_zeros::<u8>(echo_len)?;
    let mut buf = vec![0u8; layout.size];
    for (i, (slot, t)) in slots.iter().zip(sig).enumerate() {
        for j in 0..slot.size {
            buf[slot.offset + j] = graffiti(i, j, t);
        }
    }
    {
        let (out_ptr, _sync) =
            cuda_kernel::cudarc::driver::DevicePtrMut::device_ptr_mut(&mut out, stream);
        let last = slots.last().unwrap();
        buf[last.offset..last.end()].copy_from_slice(&out_ptr.to_le_bytes());
        let entered = cuda_kernel::__private::enter(stream)?;
        unsafe {
            cuda_kernel::__private::launch_packed(
                &function,
                &entered,
                stream,
                &Config::new((1, 1, 1), (1, 1, 1)).into(),
                &layout,
                &mut buf,
                cuda_kernel::__private::Site::here(),
            )
        }?;
    }
    Ok(stream.clone_dtoh(&out)?)
}

/// Compares the echo of `sig`'s parameters, back to back at the start of `echoed`, with the
/// graffiti sent (struct padding not compared); the data bytes compared.
fn check_echo(what: &str, sig: &[ParamType], echoed: &[u8]) -> usize {
    let (mut at, mut checked) = (0, 0);
    for (i, t) in sig.iter().enumerate() {
        let data = data_bytes(t.rust, t.size);
        for j in (0..t.size).filter(|&j| data[j]) {
            assert_eq!(
                echoed[at + j],
                graffiti(i, j, t),
                "{what} parameter {i} ({}) byte {j} arrived wrong: shifted or torn\n\
                 sent {:02x?}\nechoed {:02x?}",
                t.rust,
                (0..t.size).map(|j| graffiti(i, j, t)).collect::<Vec<_>>(),
                &echoed[at..at + t.size]
            );
            checked += 1;
        }
        at += t.size;
    }
    checked
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn layouts_match_the_driver_and_every_byte_arrives() {
    let types = universe();
    let sigs = signatures(&types);
    let dir = scratch_dir("conformance-gpu");
    let ptx = compile_ptx(&dir, "echo", &device_source(&sigs));

    let ctx = driver::context(0).unwrap();
    let stream = ctx.default_stream();
    let module = driver::load_ptx(&ctx, &std::fs::read_to_string(&ptx).unwrap()).unwrap();
    let (mut params_checked, mut bytes_checked) = (0, 0);
    for (k, sig) in sigs.iter().enumerate() {
        let name: &'static str = Box::leak(format!("sig{k}").into_boxed_str());
        let echo_len: usize = sig.iter().map(|t| t.size).sum();
        let echoed = load_and_echo(&stream, &module, name, sig, echo_len)
            .unwrap_or_else(|e| panic!("signature {k}: {e}"));
        bytes_checked += check_echo(&format!("signature {k}"), sig, &echoed);
        params_checked += sig.len();
    }
    eprintln!(
        "conformance on the GPU: {} kernels, {params_checked} parameters, {bytes_checked} data bytes echoed intact (struct padding not compared); every offset and size equal to cuFuncGetParamInfo",
        sigs.len()
    );
}

/// Launches `loaded` (whose parameters are `sig` and a trailing `out` pointer, placed by
/// `layout`) with each parameter's bytes filled with [`graffiti`] and returns the `echo_len`
/// bytes it wrote.
fn echo_with(
    stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    loaded: &Loaded,
    layout: &ParamLayout,
    sig: &[ParamType],
    config: Config,
    echo_len: usize,
) -> Result<Vec<u8>, Error> {
    let mut out = stream.alloc_zeros::<u8>(echo_len)?;
    let mut buf = vec![0u8; layout.size];
    for (i, (slot, t)) in layout.params.iter().zip(sig).enumerate() {
        for j in 0..slot.size {
            buf[slot.offset + j] = graffiti(i, j, t);
        }
    }
    {
        let (out_ptr, _sync) =
            cuda_kernel::cudarc::driver::DevicePtrMut::device_ptr_mut(&mut out, stream);
        let last = layout.params.last().unwrap();
        buf[last.offset..last.end()].copy_from_slice(&out_ptr.to_le_bytes());
        let entered = cuda_kernel::__private::enter(stream)?;
        unsafe {
            cuda_kernel::__private::launch_packed(
                loaded,
                &entered,
                stream,
                &config.into(),
                layout,
                &mut buf,
                cuda_kernel::__private::Site::here(),
            )
        }?;
    }
    Ok(stream.clone_dtoh(&out)?)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn parameters_aligned_above_16_sit_where_the_driver_says_and_every_byte_arrives() {
    let types = universe();
    let sigs = aligned_signatures(&types, &aligned_universe());
    let dir = scratch_dir("conformance-gpu-aligned");
    let source = format!("#include <cuda.h>\n{}", device_source(&sigs));
    let ptx = std::fs::read_to_string(compile_ptx(&dir, "echo_aligned", &source)).unwrap();

    let ctx = driver::context(0).unwrap();
    let stream = ctx.default_stream();
    let module = driver::load_ptx(&ctx, &ptx).unwrap();
    let library = Library::load_ptx(&ptx).unwrap();
    let one = Config::new((1, 1, 1), (1, 1, 1));
    let (mut moved, mut bytes_checked, mut launches) = (0, 0, 0);
    for (k, sig) in sigs.iter().enumerate() {
        let name: &'static str = Box::leak(format!("sig{k}").into_boxed_str());
        let mut slots = layout(sig);
        slots.push(ParamSlot::of::<*mut u8>("out"));
        ParamLayout::place_in(&mut slots);
        let declared = ParamLayout::from_slots(Box::leak(slots.into_boxed_slice()));
        assert!(
            !declared.is_fixed(),
            "signature {k} has a parameter aligned above 16"
        );
        let echo_len: usize = sig.iter().map(|t| t.size).sum();
        let from_module = cuda_kernel::__private::load_loaded(&module, name, &declared)
            .unwrap_or_else(|e| panic!("signature {k}: {e}"));
        let placed = *from_module.layout().expect("placed by the driver");
        moved += declared
            .params
            .iter()
            .zip(placed.params)
            .filter(|(d, p)| d.offset != p.offset)
            .count();
        let from_library = LibraryKernel::load(&library, name, &declared)
            .map(|kernel| Loaded::library(std::sync::Arc::new(kernel), name))
            .unwrap_or_else(|e| panic!("signature {k} from the library: {e}"));
        assert_eq!(from_library.layout(), Some(&placed), "signature {k}");
        for (path, loaded, config) in [
            ("launch", &from_module, one),
            ("cooperative launch", &from_module, one.cooperative()),
            ("library launch", &from_library, one),
        ] {
            let echoed = echo_with(&stream, loaded, &placed, sig, config, echo_len)
                .unwrap_or_else(|e| panic!("signature {k}, {path}: {e}"));
            bytes_checked += check_echo(&format!("signature {k}, {path}"), sig, &echoed);
            launches += 1;
        }
    }
    assert!(
        moved > 0,
        "no parameter sat elsewhere than the C rule puts it"
    );
    eprintln!(
        "aligned conformance on the GPU: {} kernels with parameters aligned to 32, 64 and 128 bytes, {launches} launches (module, cooperative, library), {bytes_checked} data bytes echoed intact; {moved} parameters at the driver's offset rather than the C rule's",
        sigs.len()
    );
}

// ---------------------------------------------------------------------------------------------
// 3. Templates: random C++ function templates over every kind of argument.

/// A struct in a C++ namespace, as a template argument (`conf::Pair`).
#[derive(Clone, Copy, KernelParam)]
#[kernel_param(cuda_name = "conf::Pair")]
#[repr(C)]
pub struct NsPair {
    pub a: i32,
    pub b: u16,
}

/// The type arguments templates are instantiated over: every parameter type of the signature
/// universe (scalars, half types, vectors, pointers, structs), the FP8/FP6/FP4 types and a
/// struct in a namespace.
fn template_universe() -> Vec<ParamType> {
    use cuda_kernel::low_precision::*;
    let mut types = universe();
    types.extend(param_types![
        F8E4M3, F8E5M2, E8M0, F4E2M1, F4E2M1x2, Fp8x2E4M3, Fp8x4E5M2, Fp6E2M3, Fp6x4E3M2,
        Fp4x4E2M1, NsPair,
    ]);
    types
}

/// A template value parameter's type: its C spelling, its Rust declaration, and the range of
/// values drawn.
struct ValueType {
    c: &'static str,
    rust: &'static str,
    enum_name: Option<&'static str>,
    range: (i128, i128),
}

/// An integer or `bool` value parameter type.
const fn int(c: &'static str, rust: &'static str, range: (i128, i128)) -> ValueType {
    ValueType {
        c,
        rust,
        enum_name: None,
        range,
    }
}

#[rustfmt::skip]
const VALUE_TYPES: &[ValueType] = &[
    int("int", "i32", (-1000, 1000)),
    int("unsigned int", "u32", (0, 5000)),
    int("short", "i16", (-300, 300)),
    int("unsigned short", "u16", (0, 600)),
    int("signed char", "i8", (-100, 100)),
    int("unsigned char", "u8", (0, 250)),
    int("char", "cuda_kernel::ffi::c_char", (32, 120)),
    int("long", "cuda_kernel::ffi::c_long", (-70000, 70000)),
    int("unsigned long", "u64", (0, 90000)),
    int("long long", "cuda_kernel::ffi::c_longlong", (-9, 9)),
    int("unsigned long long", "cuda_kernel::ffi::c_ulonglong", (0, 9)),
    int("bool", "bool", (0, 1)),
    ValueType { c: "conf::Mode", rust: "i32", enum_name: Some("conf::Mode"), range: (0, 2) },
];

/// A random template: its type and value parameters, and its explicit instances (type
/// arguments, values).
struct Template {
    types: usize,
    values: Vec<&'static ValueType>,
    instances: Vec<(Vec<ParamType>, Vec<i128>)>,
}

const TEMPLATES: usize = 120;

/// 120 templates of 1 to 3 type parameters and 0 to 2 value parameters, 1 or 2 instances each.
fn templates(types: &[ParamType]) -> Vec<Template> {
    let mut rng = Rng(SEED ^ 0x7e3a_91a7);
    (0..TEMPLATES)
        .map(|_| {
            let n_types = 1 + rng.below(3);
            let values: Vec<&ValueType> = (0..rng.below(3))
                .map(|_| &VALUE_TYPES[rng.below(VALUE_TYPES.len())])
                .collect();
            let instances = (0..1 + rng.below(2))
                .map(|_| {
                    let args = (0..n_types)
                        .map(|_| types[rng.below(types.len())])
                        .collect();
                    let vals = values
                        .iter()
                        .map(|v| {
                            v.range.0 + rng.below((v.range.1 - v.range.0 + 1) as usize) as i128
                        })
                        .collect();
                    (args, vals)
                })
                .collect::<Vec<(Vec<ParamType>, Vec<i128>)>>();
            Template {
                types: n_types,
                values,
                instances,
            }
        })
        .map(|mut t| {
            // Two instances with the same arguments are one instance.
            t.instances
                .dedup_by(|a, b| a.1 == b.1 && a.0.iter().zip(&b.0).all(|(x, y)| x.rust == y.rust));
            t
        })
        .collect()
}

/// A template value as C++ writes it in an explicit instantiation.
fn c_value(v: &ValueType, value: i128) -> String {
    match v.c {
        "bool" => (value != 0).to_string(),
        c => format!("({c}){value}"),
    }
}

/// The `.cu` of the templates: template k takes one value of each type parameter and echoes
/// them back to back into `out`, then each value parameter as 8 bytes.
fn template_source(templates: &[Template]) -> String {
    let mut decls: Vec<&str> = STRUCT_DECLARATIONS.to_vec();
    decls.push(NsPair::CUDA_DECLARATION);
    let mut src = String::from(&cuda_header(&decls)[..]);
    src.push_str(
        "#include <vector_types.h>\n#include <cuda_fp8.h>\n#include <cuda_fp6.h>\n\
         #include <cuda_fp4.h>\nnamespace conf { enum class Mode : int { A, B, C }; }\n",
    );
    for (k, t) in templates.iter().enumerate() {
        let mut head: Vec<String> = (0..t.types).map(|i| format!("typename T{i}")).collect();
        head.extend(
            t.values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("{} V{i}", v.c)),
        );
        let params: Vec<String> = (0..t.types).map(|i| format!("T{i} p{i}")).collect();
        writeln!(
            src,
            "template <{}> __global__ void t{k}({}, unsigned char *out) {{\n  \
             if (threadIdx.x != 0 || blockIdx.x != 0) return;\n  size_t at = 0;",
            head.join(", "),
            params.join(", ")
        )
        .unwrap();
        for i in 0..t.types {
            writeln!(
                src,
                "  memcpy(out + at, &p{i}, sizeof(p{i})); at += sizeof(p{i});"
            )
            .unwrap();
        }
        for i in 0..t.values.len() {
            writeln!(
                src,
                "  {{ long long v = (long long)V{i}; memcpy(out + at, &v, 8); at += 8; }}"
            )
            .unwrap();
        }
        src.push_str("}\n");
        for (args, vals) in &t.instances {
            let mut targs: Vec<String> = args.iter().map(|a| a.cuda.to_string()).collect();
            targs.extend(t.values.iter().zip(vals).map(|(v, x)| c_value(v, *x)));
            let ptypes: Vec<String> = args.iter().map(|a| a.cuda.to_string()).collect();
            writeln!(
                src,
                "template __global__ void t{k}<{}>({}, unsigned char *);",
                targs.join(", "),
                ptypes.join(", ")
            )
            .unwrap();
        }
    }
    src
}

/// The Rust declaration of template k, as a user writes it.
fn template_declaration(k: usize, t: &Template) -> String {
    let mut generics: Vec<String> = (0..t.types).map(|i| format!("T{i}")).collect();
    generics.extend(t.values.iter().enumerate().map(|(i, v)| match v.enum_name {
        Some(name) => format!("#[kernel(enum = \"{name}\")] const V{i}: {}", v.rust),
        None => format!("const V{i}: {}", v.rust),
    }));
    let params: Vec<String> = (0..t.types).map(|i| format!("p{i}: T{i}")).collect();
    format!(
        "#[kernel(cpp)] fn t{k}<{}>({}, out: *mut u8);",
        generics.join(", "),
        params.join(", ")
    )
}

/// The instance's symbol as a launcher derives it at load time: each type argument from its
/// `KernelParam::CUDA_TYPE` (what `template_arg::<T>()` does), each value with its type's code.
fn runtime_symbol(k: usize, t: &Template, args: &[ParamType], vals: &[i128]) -> String {
    use cuda_kernel::__private::{CppType, TemplateArg, itanium};
    let mut targs: Vec<TemplateArg> = args
        .iter()
        .map(|a| TemplateArg::Type(a.cuda.cpp()))
        .collect();
    for (v, value) in t.values.iter().zip(vals) {
        targs.push(match v.enum_name {
            Some(name) => TemplateArg::Enum {
                name: name.into(),
                value: *value,
            },
            None => {
                let code = cuda_kernel_syntax::cpp::CppType::from_cpp(v.c)
                    .and_then(|c| c.as_builtin())
                    .and_then(|b| b.itanium)
                    .unwrap();
                TemplateArg::Int {
                    code,
                    value: *value,
                }
            }
        });
    }
    let generics: Vec<String> = (0..t.types).map(|i| format!("T{i}")).collect();
    let generics: Vec<&str> = generics.iter().map(String::as_str).collect();
    let mut params: Vec<CppType> = generics
        .iter()
        .map(|g| CppType::from_rust(g, &generics).unwrap())
        .collect();
    params.push(CppType::from_rust("*mut u8", &[]).unwrap());
    itanium::mangle(&format!("t{k}"), Some(&targs), &params)
}

/// Compiles the templates' `.cu` to PTX with nvcc.
fn template_ptx(templates: &[Template], dir: &Path) -> PathBuf {
    compile_ptx(dir, "templates", &template_source(templates))
}

/// Writes `source` to `dir/<stem>.cu` and compiles it with nvcc to `dir/<stem>.ptx`.
fn compile_ptx(dir: &Path, stem: &str, source: &str) -> PathBuf {
    let cu = dir.join(format!("{stem}.cu"));
    let ptx = dir.join(format!("{stem}.ptx"));
    std::fs::write(&cu, source).unwrap();
    let nvcc = Command::new("nvcc")
        .args([
            "-ptx",
            "-arch=compute_90",
            "-Wno-deprecated-declarations",
            "-o",
        ])
        .arg(&ptx)
        .arg(&cu)
        .output()
        .expect("nvcc runs");
    assert!(
        nvcc.status.success(),
        "nvcc:\n{}",
        String::from_utf8_lossy(&nvcc.stderr)
    );
    ptx
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn template_instances_are_found_at_compile_time_and_derived_at_load_time() {
    let types = template_universe();
    let templates = templates(&types);
    let dir = scratch_dir("conformance-templates");
    let ptx = template_ptx(&templates, &dir);
    // The front end, as #[kernel(ptx = ...)] runs it on each declaration.
    let mut cx = cuda_kernel_syntax::report::Errors::default();
    let lit = syn::LitStr::new(ptx.to_str().unwrap(), proc_macro2::Span::call_site());
    let file = cuda_kernel_syntax::ptx_check::read_ptx(&mut cx, &lit, None).unwrap();
    let mut instances = 0;
    for (k, t) in templates.iter().enumerate() {
        let text = format!("unsafe extern \"C\" {{ {} }}", template_declaration(k, t));
        let item: syn::ItemForeignMod = syn::parse_str(&text).unwrap();
        let mut block = cuda_kernel_syntax::parse::parse_block(&mut cx, item, &Default::default());
        cuda_kernel_syntax::ptx_check::check_against_ptx(&mut cx, &mut block, &file);
        assert!(cx.is_empty(), "template {k}: {:?}\n{text}", cx.messages());
        let members = block.kernels[0].members.as_ref().expect("instances found");
        assert_eq!(
            members.entries.len(),
            t.instances.len(),
            "template {k}: {text}"
        );
        for (args, vals) in &t.instances {
            let symbol = runtime_symbol(k, t, args, vals);
            let member = members
                .entries
                .iter()
                .find(|m| m.symbol == symbol)
                .unwrap_or_else(|| {
                    panic!(
                        "template {k}: the load-time symbol {symbol} is not among the instances \
                         found: {:?}",
                        members
                            .entries
                            .iter()
                            .map(|m| &m.symbol)
                            .collect::<Vec<_>>()
                    )
                });
            // Built-in type arguments are known by name at compile time; structs and pointers
            // are left to the load-time check.
            for (arg, found) in args.iter().zip(&member.types) {
                let builtin = arg.cuda.cpp().as_builtin().map(|b| b.rust);
                let found = match found {
                    Some(cuda_kernel_syntax::ast::MemberType::Builtin(rust)) => Some(*rust),
                    _ => None,
                };
                assert_eq!(found, builtin, "template {k}: argument {}", arg.rust);
            }
            instances += 1;
        }
    }
    eprintln!(
        "template conformance: {} templates, {instances} instances found at compile time, each \
         the symbol the launcher derives at load time",
        templates.len()
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn template_instances_load_and_echo_every_byte() {
    let types = template_universe();
    let templates = templates(&types);
    let dir = scratch_dir("conformance-templates-gpu");
    let ptx = template_ptx(&templates, &dir);
    let ctx = driver::context(0).unwrap();
    let stream = ctx.default_stream();
    let module = driver::load_ptx(&ctx, &std::fs::read_to_string(&ptx).unwrap()).unwrap();
    let (mut instances, mut bytes_checked) = (0, 0);
    for (k, t) in templates.iter().enumerate() {
        for (args, vals) in &t.instances {
            let name: &'static str = Box::leak(runtime_symbol(k, t, args, vals).into_boxed_str());
            let echo_len: usize = args.iter().map(|a| a.size).sum::<usize>() + 8 * vals.len();
            let echoed = load_and_echo(&stream, &module, name, args, echo_len)
                .unwrap_or_else(|e| panic!("template {k}: {e}"));
            bytes_checked += check_echo(&format!("template {k}"), args, &echoed);
            let mut at: usize = args.iter().map(|a| a.size).sum();
            for (v, value) in t.values.iter().zip(vals) {
                let got = i64::from_le_bytes(echoed[at..at + 8].try_into().unwrap());
                assert_eq!(got as i128, *value, "template {k}: value of {}", v.c);
                at += 8;
            }
            instances += 1;
        }
    }
    eprintln!(
        "template conformance on the GPU: {} templates, {instances} instances loaded by their \
         load-time symbols (offsets equal to cuFuncGetParamInfo), {bytes_checked} data bytes and \
         every value echoed intact",
        templates.len()
    );
}
