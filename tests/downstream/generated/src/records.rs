//! Kernels whose parameters only the compiler's own facts type (cuda/records.cu): class-template
//! instances by value and through pointers (`View<float>`, a `vec3` typedef of `vec_t<3,
//! float>`), a struct with a base class and a method, bit-fields, a struct of another header
//! with an enum field, a kernel of an anonymous namespace. The build step lays each record out
//! as nvcc's debug information says, and `#[kernel]` checks it against the PTX.

use cuda_kernel::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use cuda_kernel::{Config, Error};
use std::sync::Arc;

pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/records.rs"));
}

use generated::*;

/// What the launchers send, without a GPU: each record where nvcc put it.
pub fn check_layouts() {
    let particle = Particle {
        tag: 5,
        pos: Vec3 { c: [1.0, 2.0, 3.0] },
        mass: 10.0,
    };
    let weigh = Weigh::pack(particle, 0x1000);
    assert_eq!(weigh.bytes()[..4], 5i32.to_le_bytes());
    assert_eq!(weigh.bytes()[12..16], 3.0f32.to_le_bytes());
    assert_eq!(weigh.bytes()[16..24], 10.0f64.to_le_bytes());
    assert_eq!(weigh.bytes()[24..32], 0x1000u64.to_le_bytes());
    let options = Options {
        mode: 1,
        n: 64,
        factor: 2.0,
    };
    let apply = ApplyOptions::pack(options, 0x2000);
    assert_eq!(apply.bytes()[0], 1);
    assert_eq!(apply.bytes()[4..8], 64i32.to_le_bytes());
    assert_eq!(std::mem::size_of::<PackedNode>(), 8);
    // Bound by C++ names, found in the PTX at compile time.
    assert_eq!(ScaleViewFloat::NAME, "_Z10scale_viewIfEv4ViewIT_EPKS2_S1_");
    assert!(FillView::NAME.contains("_GLOBAL__N_") && FillView::NAME.ends_with("9fill_viewE4ViewIiEi"));
}

fn ptr<T>(slice: &CudaSlice<T>, stream: &Arc<CudaStream>) -> u64 {
    let (ptr, _sync) = slice.device_ptr(stream);
    ptr
}

/// Launches each kernel and checks its results.
pub fn run(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let stream = ctx.default_stream();
    let kernels = Kernels::load(ctx)?;
    let n = 64usize;
    // scale_view<float>: a View by value, another through a pointer.
    let x = stream.clone_htod(&vec![2.0f32; n])?;
    let factor = stream.clone_htod(&[3.0f32])?;
    let factors = stream.clone_htod(&[ViewF32 {
        data: ptr(&factor, &stream) as *mut f32,
        len: 1,
    }])?;
    let v = ViewF32 {
        data: ptr(&x, &stream) as *mut f32,
        len: n as i32,
    };
    // SAFETY: scale_view reads factors->data[0] (one float) and touches v.data[i] for
    // i < v.len = 64, of the 64 floats of x, which outlives the launch (synchronized below).
    unsafe {
        kernels
            .scale_view_float
            .launch(&stream, Config::for_elements(n as u32, 32), v, &factors, 1.0)?
    };
    assert!(stream.clone_dtoh(&x)?.iter().all(|&e| e == 7.0));
    // add_vec3: a typedef of a class-template instance, through pointers.
    let a = stream.clone_htod(&vec![Vec3 { c: [1.0, 2.0, 3.0] }; n])?;
    let b = stream.clone_htod(&vec![Vec3 { c: [0.5, 0.5, 0.5] }; n])?;
    let mut out = stream.clone_htod(&vec![Vec3 { c: [0.0; 3] }; n])?;
    // SAFETY: add_vec3 touches element i < 64 of three 64-element buffers.
    unsafe {
        kernels
            .add_vec3
            .launch(&stream, Config::for_elements(n as u32, 32), &a, &b, &mut out, n as i32)?
    };
    assert!(stream.clone_dtoh(&out)?.iter().all(|e| e.c == [1.5, 2.5, 3.5]));
    // weigh: a struct with a base class and a method, by value.
    let mut w = stream.alloc_zeros::<f64>(1)?;
    let particle = Particle {
        tag: 5,
        pos: Vec3 { c: [1.0, 2.0, 3.0] },
        mass: 10.0,
    };
    // SAFETY: weigh writes out[0], of one double.
    unsafe { kernels.weigh.launch(&stream, Config::new((1, 1, 1), (1, 1, 1)), particle, &mut w)? };
    assert_eq!(stream.clone_dtoh(&w)?, [28.0]);
    // mark_leaves: bit-fields in the integer that holds them (index in the low 31 bits).
    let nodes: Vec<PackedNode> = (0..n as u32)
        .map(|i| PackedNode {
            x: 0.0,
            index_bits: i,
        })
        .collect();
    let mut nodes = stream.clone_htod(&nodes)?;
    // SAFETY: mark_leaves touches nodes[i] for i < 64, of 64 nodes.
    unsafe {
        kernels
            .mark_leaves
            .launch(&stream, Config::for_elements(n as u32, 32), &mut nodes, n as i32)?
    };
    for (i, node) in stream.clone_dtoh(&nodes)?.iter().enumerate() {
        let i = i as u32;
        assert_eq!((node.x, node.index_bits), (i as f32, i | (i % 2) << 31));
    }
    // apply_options: a struct of another header, its enum field its underlying integer.
    let mut y = stream.clone_htod(&vec![1.5f32; n])?;
    let options = Options {
        mode: 1,
        n: n as i32,
        factor: 2.0,
    };
    // SAFETY: apply_options touches x[i] for i < o.n = 64, of 64 floats.
    unsafe {
        kernels
            .apply_options
            .launch(&stream, Config::for_elements(n as u32, 32), options, &mut y)?
    };
    assert!(stream.clone_dtoh(&y)?.iter().all(|&e| e == 3.0));
    // (anonymous namespace)::fill_view: bound by its C++ name, whatever nvcc's hash.
    let filled = stream.alloc_zeros::<i32>(32)?;
    let v = ViewI32 {
        data: ptr(&filled, &stream) as *mut i32,
        len: 32,
    };
    // SAFETY: fill_view writes v.data[i] for i < v.len = 32, of the 32 ints of filled.
    unsafe { kernels.fill_view.launch(&stream, Config::new((1, 1, 1), (32, 1, 1)), v, 7)? };
    let expected: Vec<i32> = (7..39).collect();
    assert_eq!(stream.clone_dtoh(&filled)?, expected);
    println!("records: 7 kernels typed from the compiler's facts, launched, ok");
    Ok(())
}
