//! Compile-fail cases: tests/ui/<category>/<rule>.rs with the errors a user sees in .stderr.
//! Re-bless after reading the diff: `TRYBUILD=overwrite cargo test --test ui`.
//!
//! trybuild builds the cases in target/tests/trybuild/<crate>/, which is the
//! CARGO_MANIFEST_DIR that `#[kernel(ptx = "...")]` paths resolve against: the ptx/ cases
//! reach the committed PTX through "../../../../kernels/ptx/".

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
    t.pass("tests/pass/*.rs");
}
