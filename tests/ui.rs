//! Compile-fail cases: tests/ui/<category>/<rule>.rs with the errors a user sees in .stderr.
//! Re-bless after reading the diff: `TRYBUILD=overwrite cargo test --test ui`.
//!
//! trybuild builds the cases in its own crate under the target directory, wherever that is, so
//! the ptx/ cases name the repository's PTX through `$CUDA_KERNEL_REPO`, which `#[kernel(ptx =
//! "$NAME/...")]` resolves from the environment of the build and this test sets.

#[test]
fn ui() {
    // SAFETY: set before any other thread of this test binary reads the environment; trybuild's
    // cargo inherits it.
    unsafe { std::env::set_var("CUDA_KERNEL_REPO", env!("CARGO_MANIFEST_DIR")) };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
    t.pass("tests/pass/*.rs");
}
