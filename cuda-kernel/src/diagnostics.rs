//! Seeing what is launched: the launch log and the verify mode, switched on at run time.
//!
//! - **The launch log** writes one line per launch, before it is queued: the kernel's name, the
//!   caller's file and line, grid, block, dynamic shared memory, stream and every argument
//!   (scalars by value, device memory by address and length in elements). Plans log what they
//!   record and each replay. Lines go to the `log` crate (target `cuda_kernel::launch`, level
//!   info) where the application's logger takes them, to standard error otherwise.
//! - **The verify mode** synchronizes the stream after each launch (and each plan replay), so
//!   that a kernel that faults is reported by the launch that queued it, as an
//!   [`Error::Launch`](crate::Error::Launch) naming the kernel, the call site and the arguments,
//!   instead of by some later call. It makes every launch wait for the GPU: for debugging.
//!
//! Both are off by default and switched on by the environment (`CUDA_KERNEL_LOG=1`,
//! `CUDA_KERNEL_VERIFY=1`, read at the first launch) or by the functions below, which win over
//! the environment. Off, a launch pays one relaxed atomic load for them; building without the
//! default `diagnostics` feature compiles them out (the functions then do nothing).
//!
//! Every launch error, whatever the switches, names the kernel and the caller's line
//! ([`LaunchError`](crate::LaunchError)).
//!
//! ```no_run
//! cuda_kernel::diagnostics::set_verify(true);
//! // A launch whose kernel faults now returns the fault itself, as on an H100:
//! // `write_far`, launched at tests/fault.rs:32:34, failed on the device (found when its
//! // stream was synchronized after it): cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS
//! // (an illegal memory access was encountered)
//! //   grid (1, 1, 1), block (16, 1, 1), 0 bytes of shared memory, stream 0x7f5d94c2fbf0
//! //   p = 0x302000200 (16 elements)
//! ```
//!
//! The launch log of `examples/vector_add.rs` run with `CUDA_KERNEL_LOG=1` on an H100 (its
//! first two lines):
//!
//! ```text
//! [cuda-kernel] launch `vector_add` at examples/vector_add.rs:51:25: grid (4, 1, 1), block (256, 1, 1), 0 bytes of shared memory, stream 0x0; a = 0x302000000 (1000 elements), b = 0x302001000 (1000 elements), c = 0x302002000 (1000 elements), n = 1000
//! [cuda-kernel] launch `vector_add` at examples/vector_add.rs:71:29: grid (4, 1, 1), block (256, 1, 1), 0 bytes of shared memory, stream 0x0; a = 0x302000000 (1000 elements), b = 0x302001000 (1000 elements), c = 0x302002000 (1000 elements), n = 1000
//! ```
//!
//! README.md ("When a launch goes wrong") shows the log of a three-kernel program and a plan.

use crate::launch::observe;

/// Switches the launch log on or off for the whole process.
///
/// ```
/// cuda_kernel::diagnostics::set_log(true);
/// assert_eq!(cuda_kernel::diagnostics::log_enabled(), cfg!(feature = "diagnostics"));
/// cuda_kernel::diagnostics::set_log(false);
/// ```
pub fn set_log(on: bool) {
    observe::set_log(on)
}

/// Whether the launch log is on (`CUDA_KERNEL_LOG`, or [`set_log`]).
pub fn log_enabled() -> bool {
    observe::log_on()
}

/// Switches the verify mode on or off for the whole process.
///
/// ```
/// cuda_kernel::diagnostics::set_verify(true);
/// assert_eq!(cuda_kernel::diagnostics::verify_enabled(), cfg!(feature = "diagnostics"));
/// cuda_kernel::diagnostics::set_verify(false);
/// ```
pub fn set_verify(on: bool) {
    observe::set_verify(on)
}

/// Whether the verify mode is on (`CUDA_KERNEL_VERIFY`, or [`set_verify`]).
pub fn verify_enabled() -> bool {
    observe::verify_on()
}
