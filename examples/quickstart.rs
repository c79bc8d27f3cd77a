use cuda_kernel::{Config, kernel};

#[kernel]
unsafe extern "C" {
    /// c[i] = a[i] + b[i] for i < n
    pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

// The kernel's CUDA C, compiled when the program runs (NVRTC); a crate's build step can compile
// its .cu files instead, and check the declarations at compile time ("Use it in your crate").
const VECTOR_ADD_CU: &str = r#"
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cuda_kernel::driver::context(0)?; // Error::NoDriver without a CUDA driver
    let stream = ctx.default_stream();
    let ptx = cuda_kernel::nvrtc::compile("vector_add.cu", VECTOR_ADD_CU, &[])?;
    let module = cuda_kernel::driver::load_ptx(&ctx, &ptx)?;
    let kernel = VectorAdd::load(&module)?; // checks the signature against the driver

    let n = 1 << 20;
    let a = stream.clone_htod(&vec![1.0f32; n])?;
    let b = stream.clone_htod(&vec![2.0f32; n])?;
    let mut c = stream.alloc_zeros::<f32>(n)?;
    let config = Config::for_elements(n as u32, 256); // a thread per element
    // SAFETY: the kernel touches indices below n of three buffers of n floats.
    unsafe { kernel.launch(&stream, config, &a, &b, &mut c, n as u32)? };
    assert!(stream.clone_dtoh(&c)?.iter().all(|&x| x == 3.0));
    println!("vector_add: {n} elements, all 3.0");
    Ok(())
}
