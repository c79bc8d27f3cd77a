//! Contracts (`#[requires(...)]`): a launcher with one is safe to call, and checks it before
//! the driver is called. The checks need no GPU: `check_contract` runs them on memory of a
//! test type that reports its length.

use cuda_kernel::cudarc::driver::sys::CUdeviceptr;
use cuda_kernel::cudarc::driver::{CudaStream, SyncOnDrop};
use cuda_kernel::{Config, DeviceArg, DeviceArgMut, Error, ExactLength, Null, kernel};

/// Memory of `len` elements at a made-up address: enough for the checks, which read lengths.
struct Fake(usize);

impl<T> DeviceArg<T> for Fake {
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0x1000, None)
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.0)
    }
}

impl<T> DeviceArgMut<T> for Fake {
    fn device_arg_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0x2000, None)
    }
    fn element_count_mut(&self) -> Option<usize> {
        Some(self.0)
    }
}

// SAFETY: not launched; the length is the one given.
unsafe impl ExactLength for Fake {}

#[kernel(ptx = "$CARGO_MANIFEST_DIR/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    #[requires(a.len() >= n, b.len() >= n, c.len() >= n)]
    fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: i32);
}

#[kernel]
unsafe extern "C" {
    #[requires(x.len() >= rows * cols, out.len() >= rows, config.threads() >= rows)]
    #[requires(bias.is_null() || bias.len() >= rows)]
    fn row_sums(x: *const f32, bias: *const f32, out: *mut f32, rows: u64, cols: u64);
}

fn message(e: &Error) -> String {
    e.to_string()
}

#[test]
fn a_launch_meeting_the_contract_passes_its_checks() {
    let cfg = Config::for_elements(100, 32);
    VectorAdd::check_contract(cfg, &Fake(100), &Fake(100), &Fake(100), 100).unwrap();
    VectorAdd::check_contract(cfg, &Fake(100), &Fake(200), &Fake(100), -5).unwrap();
    RowSums::check_contract(Config::for_elements(8, 8), &Fake(32), &Null, &Fake(8), 8, 4).unwrap();
    RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(32),
        &Fake(8),
        &Fake(8),
        8,
        4,
    )
    .unwrap();
}

#[test]
fn a_broken_condition_is_named_with_its_values() {
    let cfg = Config::for_elements(100, 32);
    let e = VectorAdd::check_contract(cfg, &Fake(100), &Fake(100), &Fake(99), 100).unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `c.len() >= n` does not hold: c.len() = 99, n = 100"
    );
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(32),
        &Fake(7),
        &Fake(8),
        8,
        4,
    )
    .unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `bias.is_null() || bias.len() >= rows` does not hold: bias.len() = 7, rows = 8"
    );
    let e = RowSums::check_contract(Config::for_elements(4, 4), &Fake(32), &Null, &Fake(8), 8, 4)
        .unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `config.threads() >= rows` does not hold: config.threads() = 4, rows = 8"
    );
}

#[test]
fn overflow_in_a_contract_is_a_violation_not_a_wrap() {
    let big = u64::MAX;
    // rows * cols wraps to 0 in u64 arithmetic; the contract refuses it.
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(0),
        &Null,
        &Fake(8),
        8,
        big / 4 + 1,
    )
    .unwrap_err();
    assert!(message(&e).starts_with("the contract `x.len() >= rows * cols` does not hold"));
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(0),
        &Null,
        &Fake(usize::MAX),
        big,
        big,
    )
    .unwrap_err();
    assert!(
        message(&e).ends_with("rows * cols overflows"),
        "{}",
        message(&e)
    );
}
