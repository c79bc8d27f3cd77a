//! Nothing in a crate's sources may panic the build step: mutations of the repository's Rust
//! sources through the scanner and the header writer, and of nvcc's error output through the
//! explanation of a failed prototype check, and of CUDA sources through the declaration
//! generator (`CUDA_KERNEL_MUTATIONS`, 20,000 by default, each).

use std::path::{Path, PathBuf};

use cuda_kernel_syntax::mutate;

use crate::{nvcc, scan};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// Each `#[kernel]` block of the repository's sources as a file of its own (small, so that the
/// mutations land in declarations), and the kernels crate's parameter structs.
fn sources() -> Vec<String> {
    let mut out = vec![std::fs::read_to_string(repo().join("kernels/src/params.rs")).unwrap()];
    for file in [
        "kernels/src/lib.rs",
        "examples/tensor/src/kernels.rs",
        "tests/pass/generics.rs",
    ] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        for block in mutate::extern_blocks(&text) {
            out.push(format!(
                "use cuda_kernel::kernel;\n#[kernel(ptx = \"$OUT_DIR/templates.ptx\")]\n{block}\n"
            ));
        }
    }
    out
}

#[test]
fn mutated_sources_never_panic_the_scanner_or_the_header_writer() {
    let stems = ["vector_add", "templates", "structs", "unary", "params"];
    let mut which = 0;
    mutate::run("build step scanner", 31, &sources(), |text| {
        which += 1;
        let file = PathBuf::from("src/lib.rs");
        if let Ok(declarations) = scan::scan_sources(&[(file, text.to_string())]) {
            let _ = scan::header(stems[which % stems.len()], &declarations);
        }
    });
}

#[test]
fn mutated_nvcc_output_never_panics_the_explanation() {
    let declarations = scan::scan_sources(&[(
        PathBuf::from("src/lib.rs"),
        std::fs::read_to_string(repo().join("kernels/src/lib.rs")).unwrap(),
    )])
    .unwrap();
    let stderr = [
        "cuda/scale.cu(3): error: more than one instance of overloaded function \"scale\" has \"C\" linkage\n    extern \"C\" __global__ void scale(int *x)\n                                 ^\n",
        "/tmp/out/cuda-kernel/vector_add.h(7): here\ncuda/vector_add.cu(12): error: more than one instance of overloaded function \"vector_add\" has \"C\" linkage\n1 error detected in the compilation of \"cuda/vector_add.cu\".\n",
        "cuda/affine.cu(20): error: identifier \"T\" is undefined\n",
    ]
    .map(String::from);
    mutate::run("nvcc explanation", 32, &stderr, |text| {
        let _ = nvcc::explain(Path::new("cuda/vector_add.cu"), text, &declarations);
        let _ = nvcc::c_linkage_conflicts(text, &declarations);
    });
}

/// The declaration generator reads whatever a `.cu` file (preprocessed) holds for what the
/// compiler's facts do not carry (templates' parameter names): the repository's vendored CUDA
/// sources, cut into kernels with a line marker each, mutated. (The facts themselves, mutated,
/// go through it in `mutated_debug_information_never_panics_the_facts_reader`.)
#[test]
fn mutated_cuda_sources_never_panic_the_declaration_generator() {
    let mut corpus = Vec::new();
    for file in [
        "llmc.cu",
        "cuda_samples.cu",
        "candle_fill.cu",
        "templates.cu",
        "echo.cu",
        "tma.cu",
        "device_fns.cu",
    ] {
        let text = std::fs::read_to_string(repo().join("kernels/cuda").join(file)).unwrap();
        // As nvcc -E writes it: `__global__` spelled as the attribute, a line marker first.
        let text = text
            .replace("__global__", "__attribute__((global))")
            .replace("__grid_constant__", "__attribute__((grid_constant))");
        for (i, part) in text.split("\n\n").enumerate() {
            if part.contains("global") || part.contains("struct") {
                corpus.push(format!("# 1 \"{file}\"\n{part}\n"));
            }
            if i > 40 {
                break;
            }
        }
    }
    // Kernels of the strided-tensor backend's shape as nvcc -E expands its macros: ops chosen
    // by name at run time (`uexp_f32`), casts of two types, one op with another shape.
    let mut ops = String::from("# 1 \"unary.cu\"\ntypedef unsigned long size_t;\n");
    for (c, tag) in [("float", "f32"), ("double", "f64"), ("unsigned char", "u8")] {
        for op in ["exp", "log", "copy"] {
            ops += &format!(
                "extern \"C\" __attribute__((global)) void u{op}_{tag}(const size_t numel, \
                 const size_t *info, const {c} *inp, {c} *out) {{ }}\n"
            );
        }
        ops += &format!(
            "extern \"C\" __attribute__((global)) void upowf_{tag}(const size_t numel, \
             {c} param, const {c} *inp, {c} *out) {{ }}\n\
             extern \"C\" __attribute__((global)) void cast_{tag}_f32(const {c} *inp, \
             float *out) {{ }}\n\
             extern \"C\" __attribute__((global)) void cast_{tag}_u8(const {c} *inp, \
             unsigned char *out) {{ }}\n"
        );
    }
    corpus.push(ops);
    // What real headers write (darknet, xmrig-cuda, ggml): typedef'd enums, unions and structs,
    // enums in classes, array lengths that are expressions, defaults, templates over enums
    // and device functions, one name in two namespaces.
    corpus.push(
        "# 1 \"real.cu\"\n\
         typedef enum { LOGISTIC, RELU = 3, LEAKY } ACTIVATION;\n\
         typedef union { unsigned int words[64 / sizeof(unsigned int)]; uint4 q[4]; } hash64_t;\n\
         typedef struct tagged { float x = 0.0f, y{1}; } tagged_t;\n\
         namespace xm { class Algorithm { public: enum Id : unsigned int { A = 1, B }; }; }\n\
         enum class act : unsigned char { relu = 1, gelu };\n\
         static __attribute__((device)) float op_neg(float v) { return -v; }\n\
         template <float (*op)(float), typename T, xm::Algorithm::Id ALGO, int N>\n\
         __attribute__((global)) void k(const T *x, T *y, ACTIVATION a, hash64_t h, tagged_t t, \
         act c, dim3 g, const float *m = nullptr) { }\n\
         template __attribute__((global)) void k<op_neg, float, xm::Algorithm::A, 2>(const float *, \
         float *, ACTIVATION, hash64_t, tagged_t, act, dim3, const float *);\n\
         __attribute__((global)) void reset(float *x) { }\n\
         namespace gemm { __attribute__((global)) void reset(unsigned *x, unsigned type) { } }\n"
            .to_string(),
    );
    assert!(corpus.len() >= 10, "{}", corpus.len());
    let here = |_: &str| true;
    let families: Vec<crate::generate::NamedFamily> = [
        ("u{op}_{T}", "unary"),
        ("upowf_{T}", "powf"),
        ("{op}_{T}", "any"),
        ("cast_{T}_{U}", "cast"),
    ]
    .iter()
    .map(|(pattern, name)| crate::generate::NamedFamily {
        pattern: pattern.to_string(),
        name: name.to_string(),
    })
    .collect();
    mutate::run("declaration generator", 41, &corpus, |text| {
        let entries = [
            "_Z7reduce0IfEvPT_S1_j".to_string(),
            "uexp_f32".to_string(),
            "_Z15unary_op_kernelIXadL_ZN50_INTERNAL_bbae5f81_13_device_fns_cu_f1e9e608_224726op_negEfEEfEvPKT0_PS1_i".to_string(),
            "_Z5resetPf".to_string(),
        ];
        let options = crate::generate::Options {
            ptx: "k.ptx",
            module: "Kernels",
            entries: &entries,
            families: &families,
            ..Default::default()
        };
        let _ = crate::generate::generate("k.cu", text, &here, &options);
    });
    // The family patterns a build script names, mutated, over a file they could match.
    let unary = corpus
        .iter()
        .rev()
        .find(|c| c.contains("unary.cu"))
        .unwrap()
        .clone();
    let patterns: Vec<String> = families.iter().map(|f| f.pattern.clone()).collect();
    mutate::run("family patterns", 43, &patterns, |pattern| {
        let named = [crate::generate::NamedFamily {
            pattern: pattern.to_string(),
            name: "named".to_string(),
        }];
        let hand_written = [pattern.to_string()];
        let options = crate::generate::Options {
            ptx: "k.ptx",
            module: "Kernels",
            families: &named,
            ..Default::default()
        };
        let _ = crate::generate::generate("k.cu", &unary, &here, &options);
        let by_hand = crate::generate::Options {
            hand_written: &hand_written,
            ..options
        };
        let _ = crate::generate::generate("k.cu", &unary, &here, &by_hand);
    });
}

/// The compiler's facts are read from whatever PTX with debug information nvcc leaves: a real
/// one (tests/downstream/generated/cuda/records.cu, `nvcc -ptx -G`), the bytes its debug
/// sections write overwritten, their lines dropped or doubled and the text cut short, read and
/// put through the declaration generator with the file's preprocessed text and PTX entries. No
/// input may panic the reader or the generator, nor make them recurse without end.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn mutated_debug_information_never_panics_the_facts_reader() {
    let dir = std::env::temp_dir().join(format!("cuda-kernel-facts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo().join("tests/downstream/generated/cuda/records.cu");
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let run = |args: &[&str], out: &Path| {
        let status = std::process::Command::new(&nvcc)
            .args(args)
            .arg("-o")
            .arg(out)
            .arg(&source)
            .status()
            .unwrap();
        assert!(status.success(), "nvcc {args:?}");
    };
    let (debug_path, ptx_path, text_path) = (
        dir.join("records.facts.ptx"),
        dir.join("records.ptx"),
        dir.join("records.ii"),
    );
    run(&["-ptx", "-G", "-arch=compute_75"], &debug_path);
    run(&["-ptx", "-arch=compute_75"], &ptx_path);
    run(&["-E", "-arch=compute_75"], &text_path);
    let debug = std::fs::read_to_string(&debug_path).unwrap();
    // The file's own lines (and its header's), with every line marker: what the generator
    // reads of the text, without the toolkit's headers it skips.
    let mut own = false;
    let text: String = std::fs::read_to_string(&text_path)
        .unwrap()
        .lines()
        .filter(|line| {
            if line.starts_with("# ") {
                own = line.contains("records.cu\"") || line.contains("records_types.h\"");
                return true;
            }
            own
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let entries: Vec<String> =
        cuda_kernel_syntax::ptx::entries(&std::fs::read_to_string(&ptx_path).unwrap())
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
    let _ = std::fs::remove_dir_all(&dir);
    // The debug sections' byte lines: where mutations land.
    let lines: Vec<&str> = debug.lines().collect();
    let mut in_debug = false;
    let byte_lines: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let line = lines[i].trim();
            if line.starts_with(".section") {
                in_debug = line.contains(".debug_");
            }
            in_debug && line.starts_with(".b")
        })
        .collect();
    assert!(byte_lines.len() > 100, "{} byte lines", byte_lines.len());
    // Unmutated, every entry is declared from the facts.
    let here = |file: &str| file.ends_with("records.cu") || file.ends_with("records_types.h");
    let facts = crate::Facts::read(&debug).unwrap();
    let options = crate::generate::Options {
        ptx: "records.ptx",
        module: "Kernels",
        entries: &entries,
        facts: Some(&facts),
        ..Default::default()
    };
    let generated = crate::generate::generate("records.cu", &text, &here, &options);
    assert_eq!(
        generated.accounting.declared,
        entries.len(),
        "{generated:?}"
    );
    // A tenth of the other suites' count: each input is a whole file's debug information.
    let total = mutate::count().div_ceil(10);
    let mut rng = mutate::Rng::new(51);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failure = None;
    for i in 0..total {
        let mut mutated: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let k = rng.below(10);
        for _ in 0..1 + k % 4 {
            let at = byte_lines[rng.below(byte_lines.len())];
            let (directive, values) = lines[at]
                .trim()
                .split_once(' ')
                .unwrap_or((lines[at].trim(), ""));
            let mut values: Vec<String> = values.split(',').map(str::to_string).collect();
            let which = rng.below(values.len());
            match rng.below(8) {
                // A value overwritten: sizes, offsets, references, abbreviation codes.
                0 => values[which] = "0".into(),
                1 => values[which] = "255".into(),
                2 => values[which] = rng.below(1 << 16).to_string(),
                3 => values[which] = "4294967295".into(),
                // A value that is no number, or a line gone or doubled.
                4 => values[which] = "$L__label".into(),
                5 => values.truncate(which),
                6 => values.push(rng.below(256).to_string()),
                _ => values[which] = rng.below(256).to_string(),
            }
            mutated[at] = format!("{directive} {}", values.join(","));
        }
        let mut ptx = mutated.join("\n");
        if k == 0 {
            // Cut short.
            let mut cut = rng.below(ptx.len());
            while !ptx.is_char_boundary(cut) {
                cut -= 1;
            }
            ptx.truncate(cut);
        }
        let read = std::panic::catch_unwind(|| {
            if let Ok(facts) = crate::Facts::read(&ptx) {
                let options = crate::generate::Options {
                    facts: Some(&facts),
                    ..options
                };
                let _ = crate::generate::generate("records.cu", &text, &here, &options);
                // The definition the build step reads for a kernel whose declaration differs, and
                // the C spelling of every parameter's type its message shows.
                for entry in &facts.entries {
                    let _ = crate::generate::definition_of(&facts, &entry.symbol, &[]);
                    for &param in &entry.params {
                        let _ = facts.c_type(param);
                    }
                }
            }
        });
        if read.is_err() {
            failure = Some(i);
            break;
        }
    }
    std::panic::set_hook(previous);
    if let Some(i) = failure {
        panic!("debug information: mutated PTX {i} of {total} panicked");
    }
    mutate::report("debug information", total);
}
