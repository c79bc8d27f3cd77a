//! README.md's Rust fragments in the context each needs, compiled with the tests and never run:
//! `tests/readme.rs` checks that every line of every Rust block of the README is here or in the
//! compiled code it shows (the examples, the kernels crate, the quickstart crate, the tensor
//! backend), so a spelling the README shows is one that compiles. (`#[rustfmt::skip]`: the lines
//! stay as the README writes them.)
#![allow(dead_code, unused_variables, unused_mut, clippy::all)]

use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream};
use cuda_kernel::plan::Plan;
use cuda_kernel::{Config, Float2, Float4, kernel};
use kernels::{AddValue, ParticleKernels, VectorAdd as Gemv};

type Result<T> = std::result::Result<T, cuda_kernel::Error>;

/// "CUDA's vector types are cuda-kernel's": the host side of `ParticleKernels`.
#[rustfmt::skip]
fn particles(ctx: Arc<CudaContext>, stream: Arc<CudaStream>, config: Config, mut pos: CudaSlice<Float2>, mut vel: CudaSlice<Float2>, dt: f32, n: u32) -> Result<u32> {
    let kernels = ParticleKernels::load(&ctx)?;
    kernels.bounds.write(&stream, &Float4::new(-1.0, -1.0, 1.0, 1.0))?;
    unsafe { kernels.advance.launch(&stream, config, &mut pos, &mut vel, Float2::new(0.5, -2.0), dt, n)? };
    let bounces = kernels.bounces.read(&stream)?;
    Ok(bounces)
}

/// "Families of two element types": the build script's calls (not run: it would compile).
#[rustfmt::skip]
fn families() {
    cuda_kernel_build::Build::new()
        .files(["cuda/unary.cu", "cuda/binary.cu", "cuda/cast.cu"])
        .generate_declarations(true)
        .family("cuda/unary.cu", "u{op}_{T}", "unary") // kernels.unary::<f32>("exp")?
        .family("cuda/unary.cu", "upowf_{T}", "powf") // one parameter more: apart
        .family("cuda/binary.cu", "b{op}_{T}", "binary")
        .declarations_alongside("src/kernels/checked.rs") // twins with contracts, not instead
        .committed_ptx("ptx")
        .compile();
}

/// "Launch attributes": `gemv` stands for any launcher of (const float*, const float*, float*,
/// unsigned), `step` for one of (float*, float, unsigned).
#[rustfmt::skip]
fn attributes(ctx: Arc<CudaContext>, stream: Arc<CudaStream>, other_stream: Arc<CudaStream>, gemv: Gemv, step: AddValue, weights: CudaSlice<f32>, x: CudaSlice<f32>, mut y: CudaSlice<f32>, mut z: CudaSlice<f32>, n: u32) -> Result<()> {
    use cuda_kernel::{AccessProperty, Config, L2Window, MemSyncDomain};

    // Keep `weights` in the persisting part of L2 while the kernel streams through `x`.
    cuda_kernel::set_persisting_l2(&stream, 16 << 20)?;
    let window = L2Window::persisting(&stream, &weights).miss(AccessProperty::Streaming);
    let started = ctx.new_event(None)?; // recorded once every block has begun
    let config = Config::for_elements(n, 256)
        .mem_sync_domain(MemSyncDomain::Default)
        .l2_window(window)
        .completion_event(&started);
    unsafe { gemv.launch(&stream, config, &weights, &x, &mut y, n)? };
    other_stream.wait(&started)?; // overlaps the kernel's tail
    cuda_kernel::reset_persisting_l2(&stream)?;

    let mut plan = Plan::new(&stream)?;
    let xw = plan.output(&mut z);
    // A plan's device-updatable node, and what the driver reports of a recorded launch.
    let updatable = Config::for_elements(n, 256).device_updatable();
    let node = unsafe { plan.record(&step, updatable, (xw, 1.0, n))? };
    let device_node = plan.attributes(&node)?.device_node.flatten(); // for device-side updates
    Ok(())
}

/// "Coming from `launch_builder`": the README's declaration of candle's unary family, against
/// the tensor backend's PTX of the same `unary.cu`.
#[rustfmt::skip]
#[kernel(ptx = "$CARGO_MANIFEST_DIR/examples/tensor/ptx/unary.ptx", module = pub UnaryKernels)]
unsafe extern "C" {
    #[kernel(name = "u{op}_{T}")] // every op and dtype of unary.cu, each checked at compile time
    pub fn unary<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T);
    #[kernel(name = "upowf_{T}")] // one parameter more: a family of its own
    pub fn powf<T>(numel: usize, num_dims: usize, info: *const usize, e: T, inp: *const T, out: *mut T);
}

/// "Safe launches by contract": the README's declaration, against the repository's PTX.
#[kernel(ptx = "$CARGO_MANIFEST_DIR/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    #[requires(a.len() >= n, b.len() >= n, c.len() >= n)]
    fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

#[rustfmt::skip]
fn contract(module: Arc<CudaModule>, stream: Arc<CudaStream>, a: CudaSlice<f32>, b: CudaSlice<f32>, mut c: CudaSlice<f32>, n: u32) -> Result<()> {
    let vector_add = VectorAdd::load(&module)?;
    vector_add.launch(&stream, Config::for_elements(n, 256), &a, &b, &mut c, n)?;
    Ok(())
}

#[test]
fn the_fragments_compile() {
    // What this file is for happens at compile time; this names the functions so that an
    // unused one is not left behind unnoticed.
    let _ = (particles, families, attributes, contract);
}
