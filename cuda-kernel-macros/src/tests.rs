//! Expansion tests: parse a declaration, expand it, and look at what matters.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

/// The expansion, formatted; `contains` ignores the line breaks the formatter chose.
struct Expansion(String);

impl Expansion {
    fn contains(&self, needle: &str) -> bool {
        squash(&self.0).contains(&squash(needle))
    }

    fn matches(&self, needle: &str) -> usize {
        squash(&self.0).matches(&squash(needle)).count()
    }
}

impl std::fmt::Display for Expansion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

fn expand(args: TokenStream, input: TokenStream) -> Expansion {
    let tokens = expand::kernel(args, input);
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => Expansion(prettyplease::unparse(&file)),
        Err(e) => panic!("expansion is not a Rust file: {e}\n{tokens}"),
    }
}

#[test]
fn vector_add_expands_to_a_type_with_layout_load_and_launch() {
    let out = expand(
        quote!(),
        quote! {
            unsafe extern "C" {
                /// c[i] = a[i] + b[i] for i < n
                pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
            }
        },
    );
    assert!(
        out.contains("pub struct VectorAdd(::cuda_kernel::__private::Loaded);"),
        "{out}"
    );
    assert!(out.contains("#[repr(transparent)]"), "{out}");
    assert!(out.contains("/// c[i] = a[i] + b[i] for i < n"), "{out}");
    assert!(out.contains("use ::cuda_kernel::__prelude::*;"), "{out}");
    assert!(
        out.contains("pub const NAME: &str = \"vector_add\";"),
        "{out}"
    );
    // The layout: each parameter's name and declared type, nothing else.
    assert!(
        out.contains("__ck_layout!(\n        \"a\" : * const f32, \"b\" : * const f32, \"c\" : * mut f32, \"n\" : u32\n    )"),
        "{out}"
    );
    assert!(out.contains("pub unsafe fn launch<'__config>("), "{out}");
    assert!(out.contains("a: &impl __ck_DeviceArg<f32>"), "{out}");
    assert!(out.contains("c: &mut impl __ck_DeviceArgMut<f32>"), "{out}");
    assert!(out.contains("n: u32,"), "{out}");
    // Each method is one call into the runtime: `launch` with one erased argument per
    // parameter as one tuple (compiled per parameter count, not per signature), `pack` with the
    // arguments as one tuple.
    let flat: String = out.0.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "unsafe { __ck_launch( &self.0, &<Self as __ck_Kernel>::LAYOUT, stream, \
             __ck_IntoConfig::into_config(config), ( \
             __ck_LaunchArg::input::<f32, _>(a), __ck_LaunchArg::input::<f32, _>(b), \
             __ck_LaunchArg::output::<f32, _>(c), __ck_LaunchArg::value(&n), ), ) }"
        ),
        "{out}"
    );
    assert!(out.contains("__ck_pack::<Self, _>((a, b, c, n))"), "{out}");
    // Packed into a buffer sized when made: no const-generic type per declaration.
    assert!(out.contains("    ) -> __ck_ParamBytes {"), "{out}");
    assert!(!out.contains("ParamBuffer<"), "{out}");
    // The signature's kinds, through which every launch path packs generically.
    assert!(
        out.contains("type __Params = (__ck_In<f32>, __ck_In<f32>, __ck_Out<f32>, __ck_Val<u32>);"),
        "{out}"
    );
    assert!(!out.contains("compile_error"), "{out}");
}

/// A value of a type that is not a primitive goes through `val`, spanned on the type, and a
/// signature longer than the runtime's tuples nests them.
#[test]
fn struct_values_go_through_val_and_long_signatures_nest() {
    let params: Vec<TokenStream> = (0..14)
        .map(|i| {
            let name = quote::format_ident!("p{i}");
            quote!(#name: u32)
        })
        .collect();
    let out = expand(
        quote!(),
        quote! {
            unsafe extern "C" {
                fn k(p: Pair, #(#params),*);
            }
        },
    );
    assert!(
        out.contains("__ck_val::<Pair, __ck::ParamBuffer<{ K::LAYOUT.size }>>(p)"),
        "{out}"
    );
    assert!(out.contains("(p11, p12, p13),"), "{out}");
    assert_eq!(out.matches("__ck_Val<u32>"), 14, "{out}");
    assert!(
        out.contains("#[allow(clippy::too_many_arguments)]"),
        "{out}"
    );
}

#[test]
fn safe_fn_gets_a_safe_launcher_and_others_an_unsafe_one() {
    let out = expand(
        quote!(),
        quote! {
            unsafe extern "C" {
                pub safe fn fill(x: *mut f32, v: f32, n: u32);
                fn scale(x: *mut f32, v: f32, n: u32);
            }
        },
    );
    assert!(out.contains("pub fn launch<'__config>("), "{out}");
    assert!(out.contains("pub unsafe fn launch<'__config>("), "{out}");
    assert!(out.contains("struct Fill"), "{out}");
    assert!(out.contains("struct Scale"), "{out}");
}

#[test]
fn crate_argument_replaces_the_runtime_path() {
    let out = expand(
        quote!(crate = ::my_gpu::cuda_kernel),
        quote! { extern "C" { fn k(n: u32); } },
    );
    assert!(
        out.contains("use ::my_gpu::cuda_kernel::__prelude::*;"),
        "{out}"
    );
    assert_eq!(
        out.0.matches("::cuda_kernel::").count(),
        out.0.matches("::my_gpu::cuda_kernel::").count(),
        "{out}"
    );
}

#[test]
fn name_argument_binds_another_symbol() {
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(name = "_Z5scaleIfEvPT_S0_j")]
                pub fn scale_f32(x: *mut f32, a: f32, n: u32);
            }
        },
    );
    assert!(out.contains("pub struct ScaleF32"), "{out}");
    assert!(
        out.contains("NAME: &str = \"_Z5scaleIfEvPT_S0_j\""),
        "{out}"
    );
}

#[test]
fn errors_accumulate_and_stand_ins_keep_call_sites_resolving() {
    let out = expand(
        quote!(bogus),
        quote! {
            extern "C" {
                fn a(x: &[f32], n: char) -> u32;
                static mut B: u32;
            }
        },
    );
    for expected in [
        "unknown #[kernel] argument `bogus`",
        "unsupported parameter type `&[f32]`",
        "`char` is a 4-byte Unicode scalar",
        "CUDA kernels return void",
        "write `static`: a device global",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
    assert!(
        out.contains("struct A(::cuda_kernel::__private::Loaded);"),
        "{out}"
    );
    assert!(out.contains("unreachable!()"), "{out}");
    assert!(out.contains("_: impl __ck_core::marker::Sized"), "{out}");
}

#[test]
fn cfg_and_lint_attributes_are_carried_to_the_generated_items() {
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[cfg(feature = "gpu")]
                fn k(n: u32);
            }
        },
    );
    // The type, its impl, its Kernel impl and its layout check, and the function a call of
    // `k(n)` finds, its trait and the launcher's impl of it (the runtime's glob import and the
    // functions' are there either way).
    assert_eq!(out.matches("#[cfg(feature = \"gpu\")]"), 7, "{out}");
}

#[test]
fn raw_identifiers_name_the_symbol_without_r_hash() {
    let out = expand(quote!(), quote! { extern "C" { fn r#match(r#in: u32); } });
    assert!(out.contains("pub const NAME: &str = \"match\";"), "{out}");
    assert!(out.contains("__ck_layout!(\"in\" : u32)"), "{out}");
    assert!(out.contains("struct Match"), "{out}");
}

#[test]
fn read_only_pointers_take_shared_borrows_and_pointer_arrays_take_addresses() {
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(cpp)]
                fn gemm(#[kernel(read_only)] a: *mut f32, rows: *const *const f32, c: *mut f32);
            }
        },
    );
    assert!(out.contains("a: &impl __ck_DeviceArg<f32>"), "{out}");
    assert!(out.contains("rows: &impl __ck_DeviceArg<u64>"), "{out}");
    assert!(out.contains("c: &mut impl __ck_DeviceArgMut<f32>"), "{out}");
    assert!(
        out.contains("(__ck_In<f32>, __ck_In<u64>, __ck_Out<f32>)"),
        "{out}"
    );
    // The symbol keeps `float*` for the read-only pointer: g++ spells
    // gemm(float*, const float* const*, float*) so.
    assert!(out.contains("\"_Z4gemmPfPKPKfS_\""), "{out}");
}

#[test]
fn generic_declarations_expand_to_generic_types_naming_instances_at_load() {
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(cpp)]
                pub fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);
                #[kernel(name = "affine_{T}")]
                pub fn affine<T>(x: *const T, y: *mut T, mul: T);
                #[kernel(cpp)]
                pub fn tile<const BLOCK: i32>(c: *mut f32);
            }
        },
    );
    assert!(
        out.contains("pub struct Reduce0<T>(\n    ::cuda_kernel::__private::Loaded,\n    ::cuda_kernel::__private::PhantomData<fn() -> (T,)>,\n);"),
        "{out}"
    );
    assert!(
        out.contains("impl<T: __ck::KernelParam> Reduce0<T> {"),
        "{out}"
    );
    assert!(
        out.contains("pub fn symbol() -> ::std::string::String"),
        "{out}"
    );
    assert!(
        out.contains("__ck::itanium::mangle( \"reduce0\", __ck::core::option::Option::Some(&[__ck::template_arg::<T>()]), &[ __ck::CppType::Pointer { to_const: false, to: ::std::boxed::Box::new(__ck::CppType::Param(0)), },"),
        "{out}"
    );
    // The parameter types reach the generated code as the model, never as text to parse.
    assert!(!out.contains("\"*mut T\""), "{out}");
    assert!(
        out.contains("unsafe impl<T: __ck::KernelParam> __ck_Kernel for Reduce0<T>"),
        "{out}"
    );
    // A family's symbol is data the runtime fills in at load (nothing compiled per instance),
    // which the trait's `symbol()` reads too: the impl has no function of its own for it.
    assert!(
        out.contains(
            "const __SYMBOL: __ck::core::option::Option<&'static __ck::FamilySymbol> = \
             __ck::core::option::Option::Some(&__ck::FamilySymbol { pattern: \"affine_{T}\", \
             types: &[(\"T\", <T as __ck::KernelParam>::CUDA_TYPE)], names: &[], }, );"
        ),
        "{out}"
    );
    assert_eq!(out.matches("family_symbol("), 0, "{out}");
    assert!(
        out.contains("TemplateArg::Int { code: \"i\", value: BLOCK as i128, }"),
        "{out}"
    );
    assert!(out.contains("-> __ck_ParamBytes {"), "{out}");
    assert!(!out.contains("pub const NAME"), "{out}");
}

#[test]
fn statics_expand_to_typed_global_handles_and_module_fields() {
    let out = expand(
        quote!(ptx = "$CUDA_KERNEL_REPO_NOT_SET/x.ptx"),
        quote! { extern "C" { static coeffs: [f32; 16]; fn k(n: u32); } },
    );
    // Without the environment variable the PTX is an error; the stand-ins keep the surface.
    assert!(out.contains("is not set in the environment"), "{out}");
    assert!(out.contains("struct Coeffs;"), "{out}");
    assert!(
        out.contains("-> ::cuda_kernel::__private::core::result::Result< ::cuda_kernel::__private::DeviceGlobal<[f32; 16]>, ::cuda_kernel::__private::Error, >"),
        "{out}"
    );
}

#[test]
fn member_types_of_template_arguments_take_any_type_of_their_pointer_levels() {
    // cuSZ's `template <typename T, typename PC> __global__ void k(T*, size_t, typename
    // PC::Eq*, typename PC::C2VI*, size_t, typename PC::Fp)`, instantiated for
    // `psz::Config<float>`: the symbol spells `psz::Config<float>::Eq*`, not the typedef's type.
    let symbol = "_ZN3psz1kIfNS_6ConfigIfEEEEvPT_mPNT0_2EqEPNS5_4C2VIEmNS5_2FpE";
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(name = #symbol)]
                pub fn k(data: *mut f32, n: u64, eq: *mut u16, cval: *mut u32, m: u64, fp: f32);
            }
        },
    );
    assert!(!out.contains("compile_error"), "{out}");
    // Of another pointer level, still an error; and a parameter that is no member as before.
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(name = #symbol)]
                pub fn k(data: *mut f64, n: u64, eq: u16, cval: *mut u32, m: u64, fp: f32);
            }
        },
    );
    assert_eq!(out.matches("compile_error"), 2, "{out}");
    assert!(
        out.contains("whose parameter 3 is `psz::Config<float>::Eq*`, but `eq: u16` is"),
        "{out}"
    );
    assert!(out.contains("whose parameter 1 is `float*`"), "{out}");
}

#[test]
fn a_device_functions_address_is_declared_u64() {
    // `apply_fn(const float*, float*, float (*)(float), unsigned int)`.
    let symbol = "_Z8apply_fnPKfPfPFffEj";
    let declared = |f: TokenStream| {
        expand(
            quote!(),
            quote! {
                extern "C" {
                    #[kernel(name = #symbol)]
                    pub fn apply_fn(x: *const f32, y: *mut f32, f: #f, n: u32);
                }
            },
        )
    };
    for f in [quote!(u64), quote!(::cuda_kernel::ffi::c_ulonglong)] {
        let out = declared(f);
        assert!(!out.contains("compile_error"), "{out}");
    }
    let out = declared(quote!(u32));
    assert!(
        out.contains("whose parameter 3 is `float (*)(float)`, but `f: u32` is `unsigned int`"),
        "{out}"
    );
    // Where the kernel writes addresses: `addrs(float (**)(float))`, `*mut u64`.
    for (symbol, ok, ty) in [
        ("_Z5addrsPPFffE", true, quote!(*mut u64)),
        ("_Z5addrsPKPFffE", true, quote!(*const u64)),
        ("_Z5addrsPPFffE", false, quote!(u64)),
        ("_Z5addrsPPFffE", false, quote!(*mut *mut u64)),
    ] {
        let out = expand(
            quote!(),
            quote! {
                extern "C" {
                    #[kernel(name = #symbol)]
                    pub fn addrs(out: #ty);
                }
            },
        );
        assert_eq!(!out.contains("compile_error"), ok, "{symbol}: {out}");
    }
}

#[test]
fn integers_of_128_bits_are_cudas_int128() {
    // `k(unsigned __int128, __int128, unsigned __int128*)`: the symbol derived from the types,
    // and the values in 16 bytes aligned to 16.
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(cpp)]
                pub fn k(a: u128, b: i128, p: *mut u128);
            }
        },
    );
    assert!(!out.contains("compile_error"), "{out}");
    assert!(
        out.contains("pub const NAME: &str = \"_Z1konPo\";"),
        "{out}"
    );
    // Bound by name to a symbol of other types, the message names the C++ ones.
    let out = expand(
        quote!(),
        quote! {
            extern "C" {
                #[kernel(name = "_Z1konPo")]
                pub fn k(a: u64, b: i128, p: *mut u128);
            }
        },
    );
    assert!(
        out.contains("whose parameter 1 is `unsigned __int128`, but `a: u64` is"),
        "{out}"
    );
}

fn expand_derive(input: TokenStream) -> Expansion {
    let tokens = crate::derive::kernel_param(input);
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => Expansion(prettyplease::unparse(&file)),
        Err(e) => panic!("expansion is not a Rust file: {e}\n{tokens}"),
    }
}

#[test]
fn derive_places_fields_by_the_c_rule_and_writes_each_at_its_offset() {
    let out = expand_derive(quote! {
        #[repr(C, align(16))]
        pub struct Ray {
            origin: Float3,
            bounces: u8,
            weights: [[f32; 3]; 2],
        }
    });
    assert!(
        out.contains("const __FIELDS: [::cuda_kernel::__private::ParamSlot; 3usize] = ::cuda_kernel::__private::ParamLayout::place(["),
        "{out}"
    );
    assert!(
        out.contains("::cuda_kernel::__private::ParamSlot::of::<[[f32; 3]; 2]>(\"weights\")"),
        "{out}"
    );
    // The repr(align) reaches size and alignment as a number, not tokens to parse again.
    assert!(
        out.contains(
            "const SIZE: usize = ::cuda_kernel::__private::struct_size(&Ray::__FIELDS, 16usize);"
        ),
        "{out}"
    );
    assert!(
        out.contains("&[&[2, 3]]") || out.contains("&[2, 3]"),
        "{out}"
    );
    assert!(
        out.contains("&mut __out[Ray::__FIELDS[1usize].offset..Ray::__FIELDS[1usize].end()]"),
        "{out}"
    );
    assert!(
        out.contains("unsafe impl ::cuda_kernel::__private::cudarc::driver::DeviceRepr for Ray {}"),
        "{out}"
    );
    assert!(
        out.contains("the host layout of this struct differs from its device layout"),
        "{out}"
    );
}

#[test]
fn derive_refusals_leave_a_stand_in_impl_and_one_error_each() {
    let out = expand_derive(quote! {
        #[repr(packed)]
        struct Bad {
            a: u32,
        }
    });
    assert!(
        out.contains("packed structs cannot be kernel parameters"),
        "{out}"
    );
    assert!(
        out.contains("kernel parameter structs need #[repr(C)]"),
        "{out}"
    );
    assert!(
        out.contains("unsafe impl ::cuda_kernel::__private::KernelParam for Bad"),
        "{out}"
    );
    assert!(out.contains("unreachable!()"), "{out}");
    assert!(!out.contains("__FIELDS"), "{out}");
    let generic = expand_derive(quote! {
        #[repr(C)]
        struct G<T> { t: T }
    });
    assert!(!generic.contains("impl"), "{generic}");
}

/// The size of what one plain declaration expands to, printed for docs/BENCHMARKS.md and kept
/// under a budget: generated code delegates to the runtime.
#[test]
fn vector_add_expansion_stays_small() {
    let out = expand(
        quote!(),
        quote! {
            unsafe extern "C" {
                pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
            }
        },
    );
    let lines = out.0.lines().count();
    println!("vector_add expands to {lines} lines (prettyplease)");
    if std::env::var_os("PRINT_EXPANSION").is_some() {
        println!("{out}");
    }
    // (The launch's arguments, one per line, are most of it: each an erased argument, so that
    // nothing in the runtime is compiled per signature; 27 lines are the error a call of the
    // kernel as a function gives: 5 more than when its trait was not in a module of its own,
    // which keeps it out of the user's scope, 2% less to compile for 200 declarations.)
    assert!(lines <= 100, "{lines} lines:\n{out}");
}

/// The `#[kernel]` blocks of a file, each with the arguments of the `#[kernel(...)]` before
/// it (empty without), as text; `$OUT_DIR` (the build step's) is the committed PTX.
fn blocks_with_args(file: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let text = text
        .replace("$OUT_DIR/", "../kernels/ptx/")
        .replace("$CUDA_KERNEL_REPO/", "../");
    cuda_kernel_syntax::mutate::extern_blocks(&text)
        .into_iter()
        .map(|block| {
            let head = text.split(&block[7..]).next().unwrap_or_default();
            let args = head
                .rsplit_once("#[kernel(")
                .and_then(|(_, rest)| rest.rsplit_once(")]"))
                .map_or(
                    "",
                    |(args, between)| if between.trim() == "unsafe" { args } else { "" },
                );
            (args.to_string(), block)
        })
        .collect()
}

/// Nothing a user writes in or on a `#[kernel]` block may panic the macro: mutations of the
/// repository's declarations, with block arguments naming real PTX files, through the whole
/// expansion (`CUDA_KERNEL_MUTATIONS`, 20,000 by default).
#[test]
fn mutated_blocks_never_panic_the_macro() {
    use cuda_kernel_syntax::mutate;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    // The kernels crate's blocks and the generic and run-time named ones of the tests, over the
    // repository's PTX files.
    // The contracts of kernels/src/checked.rs and the malformed ones of tests/ui/contract.
    let mut sources = vec![
        repo.join("kernels/src/lib.rs"),
        repo.join("kernels/src/checked.rs"),
        repo.join("tests/pass/generics.rs"),
        repo.join("tests/pass/class_templates.rs"),
    ];
    for dir in ["tests/ui/generic", "tests/ui/contract"] {
        let mut files: Vec<_> = std::fs::read_dir(repo.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        sources.extend(files);
    }
    let mut corpus = Vec::new();
    for file in sources {
        for (args, block) in blocks_with_args(&file) {
            corpus.push(format!("{args}|||{block}"));
        }
    }
    // Most of the corpus expands for real, not just to an error.
    let expanded = corpus
        .iter()
        .filter(|input| {
            let (args, block) = input.split_once("|||").unwrap();
            // Every expansion is Rust (`expand` checks), written without a bug in its text.
            let out = expand(args.parse().unwrap(), block.parse().unwrap()).0;
            assert!(!out.contains("does not lex"), "{out}");
            !out.contains("compile_error")
        })
        .count();
    assert!(expanded >= 5, "{expanded} of {} expand", corpus.len());
    assert!(corpus.len() >= 10, "{}", corpus.len());
    mutate::run("#[kernel]", 21, &corpus, |input| {
        let (args, block) = input.split_once("|||").unwrap_or(("", input));
        let (Ok(args), Ok(block)) = (args.parse::<TokenStream>(), block.parse::<TokenStream>())
        else {
            return; // not tokens: rustc's lexer reports that before any macro runs
        };
        let _ = expand::kernel(args, block);
    });
    // No mutation made the macro write text that does not lex.
    assert_eq!(crate::code::LEX_FAILURES.with(|count| count.get()), 0);
}

/// Expands the blocks of a file many times, for profiling the macro (`CUDA_KERNEL_PROFILE_FILE`).
#[test]
#[ignore = "a profiling aid"]
fn profile_expansion() {
    let Some(file) = std::env::var_os("CUDA_KERNEL_PROFILE_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(file).unwrap();
    let blocks: Vec<TokenStream> = cuda_kernel_syntax::mutate::extern_blocks(&text)
        .iter()
        .map(|b| b.parse().unwrap())
        .collect();
    let start = std::time::Instant::now();
    for _ in 0..10 {
        for block in &blocks {
            let _ = expand::kernel(TokenStream::new(), block.clone());
        }
    }
    println!("{} blocks x 10: {:?}", blocks.len(), start.elapsed());
    let start = std::time::Instant::now();
    for _ in 0..10 {
        for block in &blocks {
            let _ = syn::parse2::<syn::ItemForeignMod>(block.clone()).unwrap();
        }
    }
    println!("syn parse: {:?}", start.elapsed());
    let start = std::time::Instant::now();
    for _ in 0..10 {
        for block in &blocks {
            let item = syn::parse2::<syn::ItemForeignMod>(block.clone()).unwrap();
            let mut cx = cuda_kernel_syntax::report::Errors::default();
            let b = cuda_kernel_syntax::parse::parse_block(&mut cx, item, &Default::default());
            cuda_kernel_syntax::check::check_block(&mut cx, &b);
        }
    }
    println!("syn parse + our parse + check: {:?}", start.elapsed());
}

/// Writes the expansion of every `#[kernel]` block of the repository's sources (and of
/// `CUDA_KERNEL_PROFILE_FILE`, where set) to `CUDA_KERNEL_EXPANSION_DUMP`: a change meant to
/// make the macro faster, not to change what it writes, compares the files before and after.
#[test]
#[ignore = "a profiling aid"]
fn dump_expansions() {
    let Some(dump) = std::env::var_os("CUDA_KERNEL_EXPANSION_DUMP") else {
        return;
    };
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let mut files = vec![
        repo.join("kernels/src/lib.rs"),
        repo.join("kernels/src/checked.rs"),
    ];
    let mut dirs = vec![repo.join("tests")];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "in") {
                files.push(path);
            }
        }
    }
    files.extend(std::env::var_os("CUDA_KERNEL_PROFILE_FILE").map(Into::into));
    let mut out = String::new();
    for file in files {
        for (args, block) in blocks_with_args(&file) {
            let (Ok(args), Ok(block)) = (args.parse::<TokenStream>(), block.parse::<TokenStream>())
            else {
                continue;
            };
            out.push_str(&format!("// {}\n", file.display()));
            out.push_str(&expand::kernel(args, block).to_string());
            out.push('\n');
        }
    }
    std::fs::write(dump, out).unwrap();
}
