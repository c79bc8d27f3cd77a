//! The front end of [cuda-kernel](https://docs.rs/cuda-kernel), shared by its three tools the way
//! cxx shares `syntax/` between its macro and its build-script generator:
//!
//! - `#[kernel]` (`cuda-kernel-macros`) parses a declaration block, checks it, reads its PTX and
//!   expands it;
//! - the runtime (`cuda-kernel`) reads PTX signatures at run time and tests its parameter types
//!   against [`types`];
//! - the build step (`cuda-kernel-build`) reads the same declarations from a crate's sources to
//!   write the C prototypes nvcc checks kernels against.
//!
//! Nothing here depends on `proc_macro`, so every part is unit-tested and usable from a build
//! script. Users of cuda-kernel do not need this crate directly.
//!
//! ```
//! let ptx = ".visible .entry scale(\n .param .u64 scale_param_0,\n .param .f32 scale_param_1\n)\n{\n ret;\n}\n";
//! let entries = cuda_kernel_syntax::ptx::entries(ptx)?;
//! assert_eq!(entries[0].params[1].ty, ".f32");
//! let f32_type = cuda_kernel_syntax::types::primitive("f32").unwrap();
//! assert_eq!(f32_type.size, entries[0].params[1].size);
//! # Ok::<(), cuda_kernel_syntax::ptx::PtxError>(())
//! ```

#![warn(missing_docs)]

pub mod c_struct;
pub mod cpp;
pub mod itanium;
pub mod layout;
pub mod pattern;

#[cfg(feature = "mutate")]
#[doc(hidden)]
pub mod mutate;
pub mod ptx;
pub mod types;

#[cfg(feature = "syn")]
pub mod ast;
#[cfg(feature = "syn")]
pub mod attr;
#[cfg(feature = "syn")]
pub mod check;
#[cfg(feature = "syn")]
pub mod contract;
#[cfg(feature = "syn")]
pub mod cuda;
#[cfg(feature = "demangle")]
pub mod demangle;
#[cfg(feature = "syn")]
pub mod foreign;
#[cfg(feature = "syn")]
pub mod mangle;
#[cfg(feature = "syn")]
pub mod parse;
#[cfg(feature = "syn")]
pub mod ptx_check;
#[cfg(feature = "syn")]
pub mod report;
#[cfg(feature = "syn")]
pub mod text;

/// For tests that compare symbols with g++'s: the symbols of `cpp` compiled by g++, as `nm`
/// lists them.
#[cfg(test)]
pub(crate) fn gxx_symbols(cpp: &str) -> String {
    let dir = std::env::temp_dir().join(format!(
        "cuda-kernel-gxx-{}-{:x}",
        std::process::id(),
        cpp.len()
            ^ cpp
                .as_bytes()
                .iter()
                .fold(0usize, |h, &b| h.rotate_left(5) ^ b as usize)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.cpp"), cpp).unwrap();
    let compiled = std::process::Command::new("g++")
        .args(["-c", "-o"])
        .arg(dir.join("t.o"))
        .arg(dir.join("t.cpp"))
        .output()
        .expect("g++ runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let nm = std::process::Command::new("nm")
        .arg(dir.join("t.o"))
        .output()
        .expect("nm runs");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(nm.stdout).unwrap()
}

/// For tests of random signatures: a small deterministic generator of numbers below `n`.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    }
}
