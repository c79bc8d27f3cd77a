//! README.md's "Use it in your crate" is tests/downstream/quickstart, file for file, so the
//! quickstart builds as written (scripts/check-downstream.sh builds that crate in CI).

fn code_block(readme: &str, caption: &str) -> String {
    let start = readme
        .find(caption)
        .unwrap_or_else(|| panic!("README has {caption}"));
    let rest = &readme[start..];
    let open = rest.find("```").expect("a code block follows");
    let body = &rest[open..];
    let body = &body[body.find('\n').expect("fence line") + 1..];
    body[..body.find("```").expect("closing fence")].to_string()
}

#[test]
fn readme_quickstart_is_the_quickstart_crate() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    for (caption, file) in [
        ("`cuda/scale.cu`:", "cuda/scale.cu"),
        ("`build.rs`:", "build.rs"),
        ("`src/main.rs`:", "src/main.rs"),
    ] {
        let path = format!("{root}/tests/downstream/quickstart/{file}");
        let committed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            code_block(&readme, caption),
            committed,
            "{path} differs from README.md"
        );
    }
}
