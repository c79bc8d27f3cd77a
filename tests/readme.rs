//! README.md's "Use it in your crate" is tests/downstream/quickstart, file for file, so the
//! quickstart builds as written (scripts/check-downstream.sh builds that crate in CI); its
//! Quickstart is examples/quickstart.rs, which runs on a GPU as pasted.

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

#[test]
fn readme_quickstart_is_the_quickstart_example() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let example = std::fs::read_to_string(format!("{root}/examples/quickstart.rs")).unwrap();
    assert_eq!(
        code_block(&readme, "## Quickstart"),
        example,
        "examples/quickstart.rs differs from README.md's Quickstart"
    );
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

/// A line of Rust as the spelling check compares it: without a trailing comment, runs of spaces
/// as one, and a `ptx = "..."` path cut to its file name (the README's `$OUT_DIR/x.ptx` is the
/// repository's `kernels/ptx/x.ptx`).
fn spelling(line: &str) -> String {
    let code = match line.trim_start().starts_with("//") {
        true => "",
        false => line.split(" // ").next().unwrap_or(line),
    };
    let mut out = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(start) = out.find("ptx = \"") {
        let rest = &out[start + 7..];
        if let Some(end) = rest.find('"') {
            let file = rest[..end].rsplit('/').next().unwrap_or("").to_string();
            out = format!("{}ptx = \"{file}{}", &out[..start], &rest[end..]);
        }
    }
    out
}

/// Every line of every Rust block of README.md, and of the manual's blocks that are not
/// doctests, is compiled code: the spelling is in
/// tests/readme_spellings.rs (the fragments in the context they need) or in the code a block
/// shows (the examples, the kernels crate, the quickstart and generated crates, the tensor
/// backend). The
/// block of candle's code before a port (introduced by "before:") is not ours, and is left out.
#[test]
fn every_spelling_of_the_readme_compiles() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let mut compiled = Vec::new();
    let mut files: Vec<String> = vec![
        "tests/readme_spellings.rs".into(),
        "tests/downstream/quickstart/build.rs".into(),
        "tests/downstream/quickstart/src/main.rs".into(),
        "examples/tensor/build.rs".into(),
    ];
    for dir in [
        "examples",
        "kernels/src",
        "examples/tensor/src",
        "tests/downstream/generated/src",
    ] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    for file in &files {
        let text = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        compiled.extend(text.lines().map(spelling).filter(|l| !l.is_empty()));
    }
    let mut missing = Vec::new();
    // The manual's fragments that cannot be doctests (they need a PTX) are compiled as UI
    // pass cases.
    for entry in std::fs::read_dir(format!("{root}/tests/pass")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        compiled.extend(text.lines().map(spelling).filter(|l| !l.is_empty()));
    }
    let manual = std::fs::read_to_string(format!("{root}/cuda-kernel/src/kernel.md")).unwrap();
    let readme = format!("{readme}\n{}", manual.replace("```rust,ignore", "```rust"));
    let mut rest = readme.as_str();
    while let Some(open) = rest.find("```rust") {
        let before = &rest[..open];
        let body = &rest[open..];
        let body = &body[body.find('\n').unwrap() + 1..];
        let end = body.find("```").expect("closing fence");
        let block = &body[..end];
        rest = &body[end + 3..];
        if before.trim_end().ends_with("before:") {
            continue;
        }
        for line in block.lines().map(spelling) {
            if line.is_empty() || matches!(line.as_str(), "{" | "}" | "};" | ");" | "})") {
                continue;
            }
            if !compiled.iter().any(|c| c.contains(&line)) {
                missing.push(line);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README lines that no compiled file spells (add them to tests/readme_spellings.rs in \
         their context, or correct the README):\n{}",
        missing.join("\n")
    );
}
