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

/// The crate's front page (docs.rs) walks the same route: its `build.rs` and `src/main.rs`
/// blocks are the README's, which are the quickstart crate CI builds.
#[test]
fn the_docs_front_page_is_the_readme_quickstart() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let lib = std::fs::read_to_string(format!("{root}/cuda-kernel/src/lib.rs")).unwrap();
    let front: String = lib
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| {
            format!(
                "{}\n",
                l.trim_start_matches("//!").strip_prefix(' ').unwrap_or("")
            )
        })
        .collect();
    for caption in ["`cuda/scale.cu`:", "`build.rs`:", "`src/main.rs`:"] {
        assert_eq!(
            code_block(&front, caption),
            code_block(&readme, caption),
            "the front page's {caption} differs from README.md's"
        );
    }
}
