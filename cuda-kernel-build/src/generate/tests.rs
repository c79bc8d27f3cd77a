//! The generator on CUDA C that nvcc compiles here: each text written to a file, compiled to
//! PTX with `-G` (the compiler's facts and the entries) and preprocessed (the templates'
//! parameter names), as the build step does.

use super::*;

/// `text` compiled by nvcc as the build step compiles a file (its PTX with `-G`, its
/// preprocessed text) and generated with `options`, the PTX's entries and the facts filled in.
fn compiled(source: &str, text: &str, options: &Options<'_>) -> Generated {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cuda-kernel-generate-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cu"), text).unwrap();
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&nvcc)
            .current_dir(&dir)
            .args(["-arch=compute_90", "-std=c++17"])
            .args(args)
            .arg("k.cu")
            .output()
            .expect("nvcc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    run(&["-ptx", "-G", "-o", "k.ptx"]);
    let preprocessed = String::from_utf8(run(&["-E"])).unwrap();
    let ptx = std::fs::read_to_string(dir.join("k.ptx")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let facts = crate::facts::Facts::read(&ptx).unwrap();
    let entries: Vec<String> = cuda_kernel_syntax::ptx::entries(&ptx)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    generate(
        source,
        &preprocessed,
        &|f: &str| f.ends_with("k.cu"),
        &Options {
            ptx: if options.ptx.is_empty() {
                "$OUT_DIR/k.ptx"
            } else {
                options.ptx
            },
            module: if options.module.is_empty() {
                "Kernels"
            } else {
                options.module
            },
            entries: &entries,
            facts: Some(&facts),
            ..*options
        },
    )
}

const TEXT: &str = r#"
# 1 "/usr/local/cuda/include/cuda_runtime_fake.h" 1
extern "C" __global__ void from_a_header(float *x) { }
# 4 "cuda/k.cu"
typedef float floatX;
extern "C" __global__ void fill_f32(float *buf, float value, const size_t numel) { }
extern "C" {
__global__ void __launch_bounds__(256, 2) inside(const floatX *__restrict__ x, floatX * const y, unsigned n, long long big) { }
}
__global__ void cpp_kernel(const float* const* rows, int, char c[]) { }
template <typename T> __global__ void templ(T *x) { }
namespace ns { __global__ void spaced(float *x) { } }
namespace other { namespace inner { __global__ void spaced(int *x) { } } }
namespace geo { struct Pt { float x; float y; }; __global__ void shift(Pt p, const ::geo::Pt *q, geo::Pt *r) { } }
struct P { int a; float b[3], *c; };
struct __align__(16) Q { P inner; unsigned long long n; };
struct Bits { int a : 3; };
struct Unused { int x; };
__global__ void takes_struct(P p, Q q) { }
__global__ void takes_bits(Bits b) { }
__global__ void declared_only(float *x);
extern "C" __global__ void by_hand(float *x) { }
extern "C" __global__ void keyword_param(int type, const size_t) { }
"#;

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn kernels_of_the_file_are_declared_as_their_source_writes_them() {
    let g = compiled(
        "cuda/k.cu",
        TEXT,
        &Options {
            hand_written: &["by_hand".into()],
            ..Options::default()
        },
    );
    assert_eq!(
        g.declared,
        [
            "fill_f32",
            "inside",
            "cpp_kernel",
            "ns::spaced",
            "other::inner::spaced",
            "geo::shift",
            "takes_struct",
            "takes_bits",
            "keyword_param"
        ],
        "{}",
        g.rust
    );
    // A kernel in a namespace, declared in it.
    assert!(
        g.rust.contains(
            "    #[kernel(cpp, namespace = \"ns\")]\n    #[allow(non_snake_case)]\n    pub fn spaced(x: *mut f32);"
        ),
        "{}",
        g.rust
    );
    // A struct of a namespace, by its CUDA name, however the kernel qualifies it.
    assert!(
        g.rust.contains(
            "#[kernel_param(cuda_name = \"geo::Pt\")]\n#[repr(C)]\n\
             #[allow(non_snake_case, non_camel_case_types)]\npub struct Pt {"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("pub fn shift(p: Pt, q: *const Pt, r: *mut Pt);"),
        "{}",
        g.rust
    );
    // One of the same name in another namespace: a block of its own, renamed.
    assert!(
        g.rust.contains(
            "// Kernels named as one above, in another namespace: not in `Kernels`.\n\
             #[::cuda_kernel::kernel(ptx = \"$OUT_DIR/k.ptx\")]\n\
             unsafe extern \"C\" {\n    \
             /// `other::inner::spaced` of cuda/k.cu.\n    \
             #[kernel(cpp, namespace = \"other::inner\", rename = OtherInnerSpaced)]\n    \
             #[allow(non_snake_case)]\n    pub fn spaced(x: *mut i32);\n}"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("pub fn keyword_param(r#type: i32, arg1: ::cuda_kernel::ffi::size_t);"),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "pub fn fill_f32(buf: *mut f32, value: f32, numel: ::cuda_kernel::ffi::size_t);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "pub fn inside(x: *const f32, y: *mut f32, n: u32, big: ::cuda_kernel::ffi::c_longlong);"
        ),
        "{}",
        g.rust
    );
    assert!(g.rust.contains(
        "    #[kernel(cpp)]\n    #[allow(non_snake_case)]\n    pub fn cpp_kernel(rows: *const *const f32, arg1: i32, c: *mut ::cuda_kernel::ffi::c_char);"
    ), "{}", g.rust);
    // A template without instances is reported (for the build to say once, unless another
    // file declares it); the kernel of the toolkit's header counted apart.
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert_eq!(g.no_instance, ["templ"]);
    assert_eq!(g.accounting.toolkit, 1, "{}", g.accounting);
    // The structs the declared kernels take, nested ones too, as KernelParam types; a
    // bit-field as the integer that holds it.
    assert!(
        g.rust.contains(
            "#[repr(C)]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct P {\n    \
             pub a: i32,\n    pub b: [f32; 3],\n    pub c: *mut f32,\n}"
        ),
        "{}",
        g.rust
    );
    assert!(g.rust.contains(
        "#[repr(C, align(16))]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct Q {\n    \
         pub inner: P,\n    pub n: ::cuda_kernel::ffi::c_ulonglong,\n}"
    ), "{}", g.rust);
    assert!(
        g.rust.contains("pub fn takes_struct(p: P, q: Q);"),
        "{}",
        g.rust
    );
    assert!(g.rust.contains("pub a_bits: i32,"), "{}", g.rust);
    assert!(!g.rust.contains("Unused"), "{}", g.rust);
}

/// Hopper kernels: a TMA descriptor taken as `const __grid_constant__` is a `RawTensorMap`,
/// which C types by neither element nor rank; another grid constant says so; a descriptor
/// taken otherwise is named in a warning.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn grid_constants_and_tma_descriptors_are_declared_as_such() {
    let text = "#include <cuda.h>\n\
        struct __align__(64) Tile { float v[16]; };\n\
        extern \"C\" __global__ void tma(unsigned a, const __grid_constant__ CUtensorMap m, float *out) { out[0] = ((const float *)&m)[a]; }\n\
        extern \"C\" __global__ void tile(const __grid_constant__ Tile t, float *out) { out[0] = t.v[1]; }\n\
        extern \"C\" __global__ void plain_map(CUtensorMap m) { }\n\
        extern \"C\" __global__ void unused(const __grid_constant__ Tile t, float *out) { }\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(
        g.rust
            .contains("pub fn tma(a: u32, m: ::cuda_kernel::RawTensorMap, out: *mut f32);"),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("pub fn tile(#[kernel(grid_constant)] t: Tile, out: *mut f32);"),
        "{}",
        g.rust
    );
    assert!(
        g.warnings
            .iter()
            .any(|w| w.contains("plain_map") && w.contains("not `const __grid_constant__`")),
        "{:?}",
        g.warnings
    );
    // A grid constant the kernel never reads is not in the debug information: said, not
    // declared with a parameter less.
    assert!(
        g.warnings
            .iter()
            .any(|w| w.contains("`unused`") && w.contains("leaves out")),
        "{:?}",
        g.warnings
    );
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn nothing_to_declare_writes_nothing() {
    let g = compiled("k.cu", "int x;\n", &Options::default());
    assert_eq!(g, Generated::default());
}

const TEMPLATES_AND_FAMILIES: &str = r#"
template <typename T, unsigned int BLOCK = 128>
__global__ void red(const T *x, T *y, unsigned n) { }
template __global__ void red<float>(const float *, float *, unsigned);
template <typename T> __global__ void never(T *x) { }
extern "C" __global__ void fill_u8(unsigned char *b, unsigned char v, size_t n) { }
extern "C" __global__ void fill_f32(float *b, float v, size_t n) { }
extern "C" __global__ void fill_f64(double *b, double v, size_t n) { }
extern "C" __global__ void odd_f32(float *b, size_t n) { }
extern "C" __global__ void odd_f64(double *b, int n) { }
extern "C" __global__ void copy_f32(const float *a, float *b) { }
extern "C" __global__ void copy_f64(const double *a, double *b) { }
"#;

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn templates_with_instances_and_dtype_families_are_declared_once() {
    let g = compiled(
        "k.cu",
        TEMPLATES_AND_FAMILIES,
        &Options {
            ptx: "k.ptx",
            module: "K",
            hand_written: &["copy_f64".into()],
            ..Options::default()
        },
    );
    assert!(
        g.rust.contains(
            "    #[kernel(cpp)]\n    #[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]\n    \
             pub fn red<T, const BLOCK: u32>(x: *const T, y: *mut T, n: u32);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "#[kernel(name = \"fill_{T}\")]\n    #[allow(non_snake_case)]\n    \
             pub fn fill<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
        ),
        "{}",
        g.rust
    );
    // Members of other shapes stay kernels of their own; so does the rest of a family one
    // of whose members the crate declares by hand.
    for single in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy_f32("] {
        assert!(g.rust.contains(single), "{single}\n{}", g.rust);
    }
    assert!(!g.rust.contains("copy_f64(") && !g.rust.contains("fn fill_f32("));
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert_eq!(g.no_instance, ["never"]);
}

/// A template value parameter of an enum type, as vLLM's paged attention and flashinfer
/// write theirs (`vllm::Fp8KVCacheDataType kv_dt`, `PosEncodingMode POS` inside the enum's
/// namespace): `#[kernel(enum = "...")] const kv_dt: i32`, the enum qualified as C++ names
/// it; a template whose instances take a class template by value is declared instance by
/// instance, by C++ name, the class template laid out as nvcc laid it out.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn enum_template_values_are_declared_by_the_enums_name() {
    let text = "namespace vllm { enum class Fp8KVCacheDataType { kAuto = 0, kFp8E4M3 = 1 }; }\n\
        namespace flashinfer { enum class PosEncodingMode : unsigned char { kNone = 0 };\n\
        template <typename T, PosEncodingMode POS, unsigned B> __global__ void decode(T *x) { }\n\
        template __global__ void decode<float, PosEncodingMode::kNone, 128>(float *); }\n\
        namespace vllm { template <typename scalar_t, vllm::Fp8KVCacheDataType kv_dt> __global__ void gather(const scalar_t *x, float *y) { }\n\
        template __global__ void gather<float, Fp8KVCacheDataType::kFp8E4M3>(const float *, float *); }\n\
        namespace ns { template <typename T> struct Params { T *p; int n; }; }\n\
        template <typename P> __global__ void by_params(const __grid_constant__ P p) { p.p[0] = p.n; }\n\
        template __global__ void by_params<ns::Params<float>>(const __grid_constant__ ns::Params<float>);\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(
        g.rust.contains(
            "pub fn decode<T, #[kernel(enum = \"flashinfer::PosEncodingMode\")] const POS: i32, \
             const B: u32>(x: *mut T);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "pub fn gather<scalar_t, #[kernel(enum = \"vllm::Fp8KVCacheDataType\")] const kv_dt: i32>\
             (x: *const scalar_t, y: *mut f32);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("#[kernel(name = \"by_params<ns::Params<float> >\")]"),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("pub struct ParamsF32 {\n    pub p: *mut f32,\n    pub n: i32,\n}"),
        "{}",
        g.rust
    );
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
}

/// C++11's `alignas(N)` on a struct, as mistral.rs's LoRA kernels write their descriptor
/// (`struct alignas(8) AdapterWeight`), aligns it as `__align__(N)` does, by value and through
/// a pointer.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn alignas_aligns_a_struct() {
    let text = "namespace lora { struct alignas(16) Adapter { unsigned long long a; float scale; }; \
        __global__ void apply(const Adapter *w, Adapter one, float *y) { } }\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(
        g.rust.contains(
            "#[kernel_param(cuda_name = \"lora::Adapter\")]\n#[repr(C, align(16))]\n\
             #[allow(non_snake_case, non_camel_case_types)]\npub struct Adapter {\n    \
             pub a: ::cuda_kernel::ffi::c_ulonglong,\n    pub scale: f32,\n}"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("pub fn apply(w: *const Adapter, one: Adapter, y: *mut f32);"),
        "{}",
        g.rust
    );
    assert_eq!(g.declared, ["lora::apply"], "{:?}", g.warnings);
}

/// Untyped memory, as ggml's and mistral.rs's quantized kernels take their blocks
/// (`const void * __restrict__ vx`): `*const c_void`, for C and C++ kernels alike.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn void_pointers_are_untyped_memory() {
    let text = "extern \"C\" __global__ void deq(const void * __restrict__ vx, float * __restrict__ y, int n) { }\n\
        __global__ void quantize(const float *x, void *vy, void **rows) { }\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert!(
        g.rust
            .contains("pub fn deq(vx: *const ::cuda_kernel::ffi::c_void, y: *mut f32, n: i32);"),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "pub fn quantize(x: *const f32, vy: *mut ::cuda_kernel::ffi::c_void, \
             rows: *mut *mut ::cuda_kernel::ffi::c_void);"
        ),
        "{}",
        g.rust
    );
}

/// Kernels in anonymous namespaces (mistral.rs's `dflash_selector.cu` keeps one there), whose
/// symbols hold a hash of the source's path: bound by their C++ names, which the PTX check
/// finds whatever the hash.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn kernels_in_anonymous_namespaces_are_bound_by_their_cpp_names() {
    let text = "namespace { __global__ void fill(float *x, int n) { } }\n\
        namespace outer { namespace { __global__ void fill(float *x, int n) { } } }\n\
        extern \"C\" __global__ void plain(float *x) { }\n\
        void host() { fill<<<1, 1>>>(nullptr, 0); outer::fill<<<1, 1>>>(nullptr, 0); }\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    for bound in [
        "#[kernel(name = \"(anonymous namespace)::fill\")]",
        "#[kernel(name = \"outer::(anonymous namespace)::fill\", rename = OuterFill)]",
    ] {
        assert!(g.rust.contains(bound), "{bound}\n{}", g.rust);
    }
    assert!(!g.rust.contains("GLOBAL__N"), "{}", g.rust);
    assert_eq!(
        (
            g.accounting.entries,
            g.accounting.declared,
            g.accounting.warned
        ),
        (3, 3, 0)
    );
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn named_families_take_the_kernels_their_pattern_matches() {
    let named = |list: &[(&str, &str)]| -> Vec<NamedFamily> {
        list.iter()
            .map(|(pattern, name)| NamedFamily {
                pattern: pattern.to_string(),
                name: name.to_string(),
            })
            .collect()
    };
    let run = |families: &[NamedFamily]| {
        compiled(
            "k.cu",
            TEMPLATES_AND_FAMILIES,
            &Options {
                families,
                ..Options::default()
            },
        )
    };
    // A run-time part: the shape most kernels share (fill's three), the rest apart.
    let g = run(&named(&[("{op}_{T}", "any")]));
    assert!(
        g.rust.contains(
            "#[kernel(name = \"{op}_{T}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn any<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust
            .contains("/// `{op}_{T}` of k.cu: fill_u8, fill_f32, fill_f64.")
    );
    for apart in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy<T>("] {
        assert!(g.rust.contains(apart), "{apart}\n{}", g.rust);
    }
    assert_eq!(g.named_families, ["{op}_{T}"]);
    // Without one, every kernel it matches must fit: odd_f64 takes an int.
    let g = run(&named(&[("odd_{T}", "odd")]));
    let warning = g.warnings.iter().find(|w| w.contains("odd_{T}")).unwrap();
    assert_eq!(
        warning,
        "k.cu: the family `odd_{T}` (odd) is not generated: odd_f64 matches it with other \
             parameters (a pattern without a part chosen at run time takes every kernel it \
             matches)"
    );
    assert!(g.rust.contains("pub fn odd_f32(") && g.named_families.is_empty());
    // A pattern no kernel of the file matches says so.
    let g = run(&named(&[("scale_{T}", "scale")]));
    assert_eq!(
        g.warnings.last().map(String::as_str),
        Some("k.cu: the family `scale_{T}` (scale) matches no kernel of the file")
    );
    // A part chosen at run time and no type: candle's `get_rows_q4_0`, `get_rows_q8_0`
    // (`odd_{q}` takes odd_f32 by its name `f32`; odd_f64, of other parameters, apart).
    let g = run(&named(&[("odd_{q}", "odd")]));
    assert!(
        g.rust.contains(
            "#[kernel(name = \"odd_{q}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn odd(b: *mut f32, n: ::cuda_kernel::ffi::size_t);"
        ),
        "{}",
        g.rust
    );
    assert!(g.rust.contains("pub fn odd_f64(b: *mut f64, n: i32);"));
    assert_eq!(g.named_families, ["odd_{q}"]);
    // Neither a type nor a run-time part, or two run-time parts: not a family.
    for pattern in ["odd_f32", "{a}_{b}"] {
        let g = run(&named(&[(pattern, "odd")]));
        let warning = g.warnings.iter().find(|w| w.contains(pattern)).unwrap();
        assert!(warning.ends_with("and at least one of them"), "{warning}");
    }
    // A name of its own for a family found anyway.
    let g = run(&named(&[("copy_{T}", "copy_elements")]));
    assert!(
        g.rust
            .contains("pub fn copy_elements<T>(a: *const T, b: *mut T);")
    );
    assert!(g.rust.contains("pub fn fill<T>("));
}

/// A template whose instances take a class template, which no Rust generic spells: each
/// instance by its C++ name, the record laid out from the facts; an instance the crate
/// declares by hand (by its C++ name) is left out and counted as the crate's.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn instances_of_class_templates_are_declared_by_their_cpp_names() {
    let text = "template <typename T> struct View { T *data; int len; };\n\
        template <typename T> __global__ void sv(View<T> v, T x) { (void)sizeof(v); }\n\
        template __global__ void sv<float>(View<float>, float);\n\
        template __global__ void sv<double>(View<double>, double);\n";
    let hand_written = ["sv<float>".to_string()];
    let g = compiled(
        "k.cu",
        text,
        &Options {
            hand_written: &hand_written,
            ..Options::default()
        },
    );
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert!(
        g.rust.contains("#[kernel(name = \"sv<double>\")]")
            && g.rust.contains("pub fn sv_double(v: ViewF64, x: f64);")
            && g.rust
                .contains("pub struct ViewF64 {\n    pub data: *mut f64,\n    pub len: i32,\n}")
            && !g.rust.contains("sv<float>"),
        "{}",
        g.rust
    );
    assert_eq!(
        (g.accounting.declared, g.accounting.by_hand),
        (1, 1),
        "{}",
        g.accounting
    );
}

/// Without the compiler's facts, no kernel is declared, and each is named with the reason.
#[test]
fn without_facts_every_kernel_is_named_in_a_warning() {
    let entries = ["_Z2svIfEv4ViewIT_ES1_".to_string(), "plain".to_string()];
    let g = generate(
        "k.cu",
        "",
        &|_: &str| true,
        &Options {
            entries: &entries,
            ..Options::default()
        },
    );
    assert_eq!(g.accounting.warned, 2, "{:?}", g.warnings);
    assert!(g.rust.is_empty());
}

/// A union as its bytes, aligned as its most aligned member (xmrig-cuda's `hash64_t`), and
/// the enum whose values a template takes (an enum of a class, as xmrig-cuda's
/// `Algorithm::Id`) written with its enumerators, for the launch that chooses one. (DWARF 2
/// gives an enum its size, not its underlying type: one of `int`'s size whose values fit an
/// `int` is an `i32`, as C++ makes an enum without a fixed type.)
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn unions_keep_their_alignment_and_template_enums_their_values() {
    let text = "typedef union { unsigned int words[16]; uint4 q[4]; } hash64_t;\n\
        namespace xm { struct Algorithm { enum Id : unsigned int { A = 1, B = 7 }; }; }\n\
        template <xm::Algorithm::Id ALGO> __global__ void k(hash64_t h, hash64_t *p) { xm::Algorithm::Id id = ALGO; p[id] = h; }\n\
        template __global__ void k<xm::Algorithm::B>(hash64_t, hash64_t *);\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert!(
        g.rust.contains(
            "#[repr(C, align(16))]\n#[allow(non_snake_case, non_camel_case_types)]\n\
             pub struct hash64_t {\n    pub bytes: [u8; 64],\n}"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains(
            "pub fn k<#[kernel(enum = \"xm::Algorithm::Id\")] const ALGO: i32>(h: hash64_t, \
             p: *mut hash64_t);"
        ),
        "{}",
        g.rust
    );
    assert!(
        g.rust.contains("pub struct Id(pub i32);") && g.rust.contains("pub const B: Id = Id(7);"),
        "{}",
        g.rust
    );
}

/// An enum a kernel takes by value and whose values its template takes is one enum of the
/// facts, written once.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn an_enum_taken_two_ways_is_written_once() {
    let text = "enum class Mode : int { A = 1, B = 2 };\n\
        template <Mode M> __global__ void k(Mode m, int *o) { o[0] = (int)m + (int)M; }\n\
        template __global__ void k<Mode::B>(Mode, int *);\n";
    let g = compiled("k.cu", text, &Options::default());
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert_eq!(g.rust.matches("pub struct ").count(), 1, "{}", g.rust);
    assert!(
        g.rust
            .contains("pub fn k<#[kernel(enum = \"Mode\")] const M: i32>(m: Mode, o: *mut i32);"),
        "{}",
        g.rust
    );
}
