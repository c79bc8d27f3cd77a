//! Particles in a box, in CUDA's vector types: `float2` positions and velocities as
//! [`Float2`](cuda_kernel::Float2), the wind a `Float2` by value, and two `__device__` globals
//! (the box, a `float4`, and a bounce counter) set and read from the host
//! (`kernels/cuda/particles.cu`, declared in `kernels/src/lib.rs`). Checks every particle and the
//! count against the same steps on the CPU.
//!
//! ```text
//! cargo run --release --example particles
//! ```

use cuda_kernel::{Config, Float2, Float4};
use kernels::ParticleKernels;

const N: u32 = 100_000;
const STEPS: usize = 100;
const DT: f32 = 0.01;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    // Every kernel and global of the block, from the PTX the build step embedded.
    let kernels = ParticleKernels::load(&ctx)?;

    let bounds = Float4::new(-1.0, -1.0, 1.0, 1.0);
    let wind = Float2::new(0.5, -2.0);
    let mut pos: Vec<Float2> = (0..N)
        .map(|i| {
            Float2::new(
                (i % 200) as f32 / 100.0 - 0.995,
                (i / 500) as f32 / 100.0 - 0.995,
            )
        })
        .collect();
    let mut vel: Vec<Float2> = (0..N)
        .map(|i| Float2::new(((i * 7) % 13) as f32 - 6.0, ((i * 5) % 11) as f32 - 5.0))
        .collect();

    // The globals, written before the launches that read them (same stream).
    kernels.bounds.write(&stream, &bounds)?;
    kernels.bounces.write(&stream, &0)?;
    let mut pos_gpu = stream.clone_htod(&pos)?;
    let mut vel_gpu = stream.clone_htod(&vel)?;
    let config = Config::for_elements(N, 256);
    for _ in 0..STEPS {
        // SAFETY: advance touches indices below N of two buffers of N float2s.
        unsafe {
            kernels
                .advance
                .launch(&stream, config, &mut pos_gpu, &mut vel_gpu, wind, DT, N)?
        };
    }
    let got_pos = stream.clone_dtoh(&pos_gpu)?;
    let got_bounces = kernels.bounces.read(&stream)?;

    // The same steps on the CPU (nvcc fuses `a + b * c` into one rounding, as mul_add does).
    let mut bounces = 0u32;
    for _ in 0..STEPS {
        for (p, v) in pos.iter_mut().zip(vel.iter_mut()) {
            let mut nv = Float2::new(wind.x.mul_add(DT, v.x), wind.y.mul_add(DT, v.y));
            let mut np = Float2::new(nv.x.mul_add(DT, p.x), nv.y.mul_add(DT, p.y));
            for (q, w, lo, hi) in [
                (&mut np.x, &mut nv.x, bounds.x, bounds.z),
                (&mut np.y, &mut nv.y, bounds.y, bounds.w),
            ] {
                if *q < lo || *q > hi {
                    *q = if *q < lo {
                        2.0 * lo - *q
                    } else {
                        2.0 * hi - *q
                    };
                    *w = -*w;
                    bounces += 1;
                }
            }
            (*p, *v) = (np, nv);
        }
    }
    let worst = got_pos
        .iter()
        .zip(&pos)
        .map(|(g, c)| (g.x - c.x).abs().max((g.y - c.y).abs()))
        .fold(0.0f32, f32::max);
    println!(
        "particles: {N} particles, {STEPS} steps: {got_bounces} bounces on the GPU, {bounces} on \
         the CPU; largest position difference {worst:e}"
    );
    if got_bounces != bounces || worst > 1e-4 {
        return Err("the GPU's particles differ from the CPU's".into());
    }
    Ok(())
}
