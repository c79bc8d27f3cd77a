//! Compile-fail cases: tests/ui/<category>/<rule>.rs with the errors a user sees in .stderr.
//! Re-bless after reading the diff: `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
    t.pass("tests/pass/*.rs");
}
