//! Compiling CUDA C at run time with NVRTC: source in, PTX out, then loaded and checked like
//! any module.
//!
//! NVRTC runs on the CPU, without a GPU; only loading needs the driver. A compile error comes
//! back as [`Error::Compile`] carrying NVRTC's log, so the message names the line.
//!
//! ```no_run
//! use cuda_kernel::kernel;
//!
//! #[kernel]
//! unsafe extern "C" {
//!     fn scale(x: *mut f32, a: f32, n: u32);
//! }
//!
//! const SOURCE: &str = r#"
//! extern "C" __global__ void scale(float *x, float a, unsigned int n) {
//!     unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) x[i] *= a;
//! }
//! "#;
//!
//! # fn main() -> Result<(), cuda_kernel::Error> {
//! let ptx = cuda_kernel::nvrtc::compile("scale.cu", SOURCE, &["--gpu-architecture=compute_90"])?;
//! let ctx = cuda_kernel::driver::context(0)?;
//! let scale = Scale::load(&cuda_kernel::driver::load_ptx(&ctx, &ptx)?)?; // checked as usual
//! # Ok(()) }
//! ```

use std::sync::OnceLock;

use cudarc::nvrtc::{CompileError, CompileOptions};

use crate::Error;

/// Whether NVRTC's library can be loaded on this machine (looked up once).
///
/// ```
/// if !cuda_kernel::nvrtc::is_present() {
///     eprintln!("no NVRTC: skipping run-time compilation");
/// }
/// ```
pub fn is_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| crate::driver::library_present(&["nvrtc"]))
}

/// Compiles the CUDA C `source` to PTX with NVRTC, passing `options` through as NVRTC takes
/// them (`--gpu-architecture=compute_90`, `-I/path`, `-DNAME=1`, `--use_fast_math`, ...).
///
/// `name` names the program in NVRTC's log (`scale.cu(3): error: ...`). Returns
/// [`Error::NoNvrtc`] without the library, [`Error::Compile`] with the log when the source does
/// not compile, and [`Error::InvalidPtx`] for a source or name holding a NUL byte.
pub fn compile(name: &str, source: &str, options: &[&str]) -> Result<String, Error> {
    if source.contains('\0') || name.contains('\0') {
        return Err(Error::InvalidPtx(
            "CUDA C source and program names cannot contain NUL bytes",
        ));
    }
    if !is_present() {
        return Err(Error::NoNvrtc);
    }
    let options = CompileOptions {
        options: options.iter().map(|o| o.to_string()).collect(),
        name: Some(name.to_string()),
        ..CompileOptions::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(source, options).map_err(|e| match e {
        CompileError::CompileError {
            nvrtc,
            options,
            log,
        } => Error::Compile {
            name: name.to_string(),
            code: nvrtc.0,
            options,
            log: log.to_string_lossy().trim_end().to_string(),
        },
        CompileError::CreationError(nvrtc)
        | CompileError::GetLogError(nvrtc)
        | CompileError::GetPtxError(nvrtc) => Error::Compile {
            name: name.to_string(),
            code: nvrtc.0,
            options: Vec::new(),
            log: String::new(),
        },
        other => Error::Compile {
            name: name.to_string(),
            code: cudarc::nvrtc::sys::nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR,
            options: Vec::new(),
            log: format!("{other:?}"),
        },
    })?;
    Ok(ptx.to_src())
}
