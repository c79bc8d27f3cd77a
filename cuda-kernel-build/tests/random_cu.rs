//! Generated declarations on code nobody tuned them to: random `.cu` files from a vocabulary
//! that holds every Rust keyword C++ allows as a name, the launcher's own argument names,
//! `__` names and names that camel-case alike; the same names across namespaces (the global one
//! included); structs with default member initializers, by-value enums, default arguments;
//! templates over types, values, enums and `static` or namespaced device functions; class
//! templates and structs with base classes as parameters (every parameter typed from the
//! compiler's facts, the debug information of `nvcc -ptx -G`); anonymous
//! namespaces, `volatile` pointers, one file in five compiled with `-rdc=true` (whose
//! `static` kernels are named `__nv_static_<...>_`), and headers of kernels included by a
//! relative path outside the file's folder, a struct of theirs holding an enum of theirs; no
//! generated name, doc line or `name =`
//! holds a part of nvcc's internal names. Each file is
//! compiled by nvcc, its block generated and checked by the front end as `#[kernel]` checks it,
//! every entry declared; then all the blocks are compiled by rustc in one crate.
//!
//! `CUDA_KERNEL_RANDOM_CU=N` sets the number of files (default 1000); nvcc's output is kept in
//! `~/.cache/cuda-kernel/random-cu` by a hash of the source, as the build step keeps a file's
//! PTX while its inputs are unchanged. Ignored where nvcc does not run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{parse, ptx_check};

/// Names C++ takes and Rust does not, or not everywhere.
const NAMES: &[&str] = &[
    "fn",
    "mod",
    "loop",
    "match",
    "ref",
    "box",
    "type",
    "impl",
    "trait",
    "move",
    "mut",
    "pub",
    "crate",
    "self",
    "Self",
    "super",
    "use",
    "where",
    "in",
    "let",
    "priv",
    "macro",
    "yield",
    "async",
    "await",
    "dyn",
    "abstract",
    "become",
    "final",
    "override",
    "unsafe",
    "unsized",
    "gen",
    "stream",
    "config",
    "__x",
    "_",
    "Kernels",
    "kernels",
    "reset",
    "value",
    "x",
    "n",
    "Pair",
    "vector_add",
    "vectorAdd",
    "VectorAdd",
    "try_",
    "r",
    "T",
    "N",
    "Option",
    "Result",
    "Box",
    "String",
    "Vec",
    "core",
    "alloc",
    "__ck",
    "Some",
    "None",
    "Ok",
];

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n.max(1)
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// A name of the vocabulary not in `used`, which it joins.
    fn fresh(&mut self, used: &mut Vec<String>) -> String {
        for _ in 0..64 {
            let name = self.pick(NAMES).to_string();
            if !used.contains(&name) {
                used.push(name.clone());
                return name;
            }
        }
        let name = format!("name{}", used.len());
        used.push(name.clone());
        name
    }
}

/// Scalar C types a parameter or field takes.
const SCALARS: &[&str] = &[
    "float",
    "int",
    "unsigned int",
    "double",
    "long long",
    "short",
];

/// One random `.cu` file: its text, and whether every kernel of it is expected declared.
fn random_file(rng: &mut Rng, index: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// random file {index}");
    // One extern "C" name space for the whole file.
    let mut c_names: Vec<String> = Vec::new();
    let namespaces: Vec<Option<String>> = {
        let mut list = vec![None];
        let mut used = Vec::new();
        for _ in 0..rng.below(3) {
            let ns = rng.fresh(&mut used);
            // A namespace is also a name a kernel of the global namespace may have.
            list.push(Some(match rng.chance(30) {
                true => format!("{ns}::{}", rng.fresh(&mut used)),
                false => ns,
            }));
        }
        // An anonymous namespace: its symbols hold a hash of the source's path.
        if rng.chance(20) {
            list.push(Some(String::new()));
        }
        list
    };
    let static_only = rng.chance(30);
    // The outermost namespaces' names, which no name of the global scope may take.
    let outer: Vec<String> = namespaces
        .iter()
        .flatten()
        .map(|ns| ns.split("::").next().unwrap_or_default().to_string())
        .collect();
    // The global namespace's names: an anonymous namespace's names are apart from them (the
    // two scopes' names both reach the file's scope, and a name of each makes nvcc's host
    // host stubs ambiguous: nvcc -ptx takes such a file, nvcc -c does not, and a crate's
    // build compiles its host side).
    let mut global: Vec<String> = Vec::new();
    for ns in &namespaces {
        // Names of this scope: kernels, structs, enums, device functions are all distinct.
        let mut scope: Vec<String> = outer.clone();
        if ns.as_deref() == Some("") {
            scope.extend(global.iter().cloned());
        }
        if let Some(ns) = ns {
            for part in ns.split("::") {
                let _ = writeln!(out, "namespace {part} {{");
            }
        }
        // Structs.
        let mut structs: Vec<String> = Vec::new();
        for _ in 0..rng.below(3) {
            let name = rng.fresh(&mut scope);
            let mut fields = Vec::new();
            let mut body = String::new();
            for _ in 0..1 + rng.below(3) {
                let field = rng.fresh(&mut fields);
                let ty = rng.pick(SCALARS);
                let init = match rng.below(4) {
                    0 => " = 0",
                    1 => "{}",
                    _ => "",
                };
                let _ = write!(body, " {ty} {field}{init};");
            }
            let _ = writeln!(out, "struct {name} {{{body} }};");
            structs.push(name);
        }
        // Class templates and structs with a base class, which only the compiler's facts
        // type: parameters take an instance by value or through a pointer.
        let mut records: Vec<String> = Vec::new();
        if rng.chance(25) {
            let name = rng.fresh(&mut scope);
            let field = rng.pick(SCALARS);
            let _ = writeln!(
                out,
                "template <typename Elem_t> struct {name} {{ Elem_t a; {field} n; __device__ Elem_t get() const {{ return a; }} }};"
            );
            records.push(format!("{name}<float>"));
            records.push(format!("const {name}<double>*"));
        }
        if rng.chance(20) && !structs.is_empty() {
            let name = rng.fresh(&mut scope);
            let base = structs[rng.below(structs.len())].clone();
            let _ = writeln!(
                out,
                "struct {name} : {base} {{ {} z; }};",
                rng.pick(SCALARS)
            );
            records.push(name);
        }
        // Enums: unscoped ones' enumerators are names of the scope too.
        let mut enums: Vec<(String, Vec<String>)> = Vec::new();
        for e in 0..rng.below(2) {
            let name = rng.fresh(&mut scope);
            let class = rng.chance(50);
            let base = if rng.chance(50) {
                " : unsigned char"
            } else {
                ""
            };
            let values: Vec<String> = (0..2 + rng.below(2))
                .map(|v| format!("E{index}_{e}_{v}"))
                .collect();
            let body: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(v, n)| match v {
                    1 => format!("{n} = {}", 3 + v),
                    _ => n.clone(),
                })
                .collect();
            let kind = if class { "enum class" } else { "enum" };
            let _ = writeln!(out, "{kind} {name}{base} {{ {} }};", body.join(", "));
            let qualified: Vec<String> = values
                .iter()
                .map(|v| match class {
                    true => format!("{name}::{v}"),
                    false => v.clone(),
                })
                .collect();
            enums.push((name, qualified));
        }
        // Device functions: `static` ones, or external ones of a namespace.
        let mut device_fns: Vec<String> = Vec::new();
        for _ in 0..rng.below(3) {
            let name = format!("op_{}", rng.fresh(&mut scope).trim_start_matches('_'));
            if scope.contains(&name) {
                continue;
            }
            scope.push(name.clone());
            let linkage = if static_only || ns.is_none() || rng.chance(50) {
                "static "
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{linkage}__device__ float {name}(float v) {{ return v; }}"
            );
            device_fns.push(name);
        }
        // Kernels.
        for _ in 0..1 + rng.below(4) {
            let name = rng.fresh(&mut scope);
            let extern_c =
                ns.is_none() && !static_only && rng.chance(30) && !c_names.contains(&name);
            let linkage = match (extern_c, static_only) {
                (true, _) => "extern \"C\" ",
                (false, true) => "static ",
                (false, false) => "",
            };
            // Template parameters and parameters: one scope of names, apart from the types'.
            let mut names: Vec<String> = scope.clone();
            let kind = if extern_c { 0 } else { rng.below(6) };
            let mut head = Vec::new();
            let mut instances: Vec<Vec<String>> = vec![Vec::new()];
            let mut type_param = None;
            let mut variadic: Option<String> = None;
            match kind {
                1 => {
                    let t = rng.fresh(&mut names);
                    head.push(format!("typename {t}"));
                    instances = vec![vec!["float".into()], vec!["double".into()]];
                    type_param = Some(t);
                }
                2 => {
                    let v = rng.fresh(&mut names);
                    head.push(format!("int {v}"));
                    instances = vec![vec!["2".into()], vec!["-3".into()]];
                }
                3 if !enums.is_empty() => {
                    let (e, values) = &enums[rng.below(enums.len())];
                    let v = rng.fresh(&mut names);
                    head.push(format!("{e} {v}"));
                    instances = values.iter().take(2).map(|x| vec![x.clone()]).collect();
                }
                5 => {
                    // A variadic template: its instances by their symbols.
                    let t = rng.fresh(&mut names);
                    head.push(format!("typename... {t}"));
                    instances = vec![vec!["float".into(), "int".into()], vec![]];
                    variadic = Some(t);
                }
                4 if !device_fns.is_empty() => {
                    let f = rng.fresh(&mut names);
                    let t = rng.fresh(&mut names);
                    head.push(format!("float (*{f})(float)"));
                    head.push(format!("typename {t}"));
                    instances = device_fns
                        .iter()
                        .take(2)
                        .map(|d| vec![d.clone(), "float".into()])
                        .collect();
                    type_param = Some(t);
                }
                _ => {}
            }
            let mut params: Vec<(String, String)> = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let pname = rng.fresh(&mut names);
                let ty = match rng.below(9) {
                    8 if !records.is_empty() => records[rng.below(records.len())].clone(),
                    0 | 1 => format!("{}*", rng.pick(SCALARS)),
                    7 => format!("volatile {}*", rng.pick(SCALARS)),
                    2 => format!("const {}*", rng.pick(SCALARS)),
                    3 if !structs.is_empty() => structs[rng.below(structs.len())].clone(),
                    4 if !enums.is_empty() => enums[rng.below(enums.len())].0.clone(),
                    5 if type_param.is_some() => {
                        format!("const {}*", type_param.clone().unwrap_or_default())
                    }
                    6 => "dim3".to_string(),
                    _ => rng.pick(SCALARS).to_string(),
                };
                params.push((ty, pname));
            }
            if let Some(pack) = &variadic {
                let name = rng.fresh(&mut names);
                params.push((format!("{pack}..."), name));
            }
            let default = if variadic.is_none()
                && rng.chance(20)
                && params.last().is_some_and(|(t, _)| t.ends_with('*'))
            {
                " = nullptr"
            } else {
                ""
            };
            let list: Vec<String> = params
                .iter()
                .enumerate()
                .map(|(i, (t, n))| {
                    let d = if i + 1 == params.len() { default } else { "" };
                    format!("{t} {n}{d}")
                })
                .collect();
            let template = match head.is_empty() {
                true => String::new(),
                false => format!("template <{}> ", head.join(", ")),
            };
            // A kernel uses what its pointers point to (a class template nothing uses is
            // not instantiated, and has no layout).
            let body: String = params
                .iter()
                .filter(|(t, _)| t.ends_with('*') && records.contains(t))
                .map(|(_, n)| format!("(void)sizeof(*{n}); "))
                .collect();
            let _ = writeln!(
                out,
                "{template}{linkage}__global__ void {name}({}) {{ {body}}}",
                list.join(", ")
            );
            if !head.is_empty() {
                for args in &instances {
                    let mut concrete: Vec<String> = params
                        .iter()
                        .filter(|(t, _)| !t.ends_with("..."))
                        .map(|(t, _)| match &type_param {
                            Some(tp) if *t == format!("const {tp}*") => {
                                format!("const {}*", args[args.len() - 1])
                            }
                            _ => t.clone(),
                        })
                        .collect();
                    if variadic.is_some() {
                        concrete.extend(args.iter().cloned());
                    }
                    let _ = writeln!(
                        out,
                        "template __global__ void {name}<{}>({});",
                        args.join(", "),
                        concrete.join(", ")
                    );
                }
            }
            if extern_c {
                c_names.push(name);
            }
        }
        if let Some(ns) = ns {
            for _ in ns.split("::") {
                let _ = writeln!(out, "}}");
            }
        } else {
            global = scope;
        }
    }
    out
}

/// For some files, a kernel template whose parameters are member types of a template argument
/// (`typename C::Eq*`, as cuSZ's kernels take their configuration's types: its symbols spell
/// `Cfg<float>::Eq*`, not the typedef's type), a device function's address and 128-bit
/// integers, in a namespace of its own or none, with two instances.
fn member_types_kernel(rng: &mut Rng, index: usize) -> Option<String> {
    if !rng.chance(15) {
        return None;
    }
    let (open, close) = match rng.chance(70) {
        true => (format!("namespace dep{index} {{\n"), "}\n"),
        false => (String::new(), ""),
    };
    let (cfg, kernel) = (format!("Cfg{index}"), format!("member_types{index}"));
    let mut out = open;
    let _ = writeln!(
        out,
        "template <typename E> struct {cfg} {{ typedef E Eq; typedef unsigned short Small; typedef E* Ptr; }};"
    );
    // A device function's address (ccminer's `bool (*)(uint32_t*)`), through a typedef.
    let function = format!("Fn{index}");
    let _ = writeln!(out, "typedef float (*{function})(float);");
    // Parameters by what `C` stands for in them, in a random order and number.
    let mut params: Vec<(&str, String)> = vec![
        ("T*", "data".into()),
        ("typename C::Eq*", "eq".into()),
        ("const typename C::Small*", "small".into()),
        ("typename C::Small", "n".into()),
        ("typename C::Ptr", "ptr".into()),
        ("typename C::Eq", "value".into()),
        (&function, "f".into()),
        // tfhe-rs's 128-bit torus.
        ("unsigned __int128", "wide".into()),
        ("const __int128*", "wides".into()),
    ];
    for i in (1..params.len()).rev() {
        params.swap(i, rng.below(i + 1));
    }
    params.truncate(2 + rng.below(params.len() - 1));
    let list: Vec<String> = params.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let _ = writeln!(
        out,
        "template <typename T, typename C> __global__ void {kernel}({}) {{ }}",
        list.join(", ")
    );
    for (t, e) in [("float", rng.pick(SCALARS)), ("double", rng.pick(SCALARS))] {
        let c = format!("{cfg}<{e}>");
        let concrete: Vec<String> = params
            .iter()
            .map(|(p, _)| {
                p.replace("typename C::", &format!("{c}::"))
                    .replace("T*", &format!("{t}*"))
            })
            .collect();
        let _ = writeln!(
            out,
            "template __global__ void {kernel}<{t}, {c} >({});",
            concrete.join(", ")
        );
    }
    out.push_str(close);
    Some(out)
}

/// For some files, a header of kernels of their own (an `extern "C"` one taking a struct
/// whose field is an enum of the header, and a template's instances), which the file includes
/// by a relative path outside its folder.
fn random_header(rng: &mut Rng, index: usize) -> Option<String> {
    if !rng.chance(15) {
        return None;
    }
    let ty = rng.pick(&["float", "int", "double"]);
    let base = rng.pick(&["", " : unsigned char", " : short", " : long long"]);
    Some(format!(
        "#pragma once\n\
         enum h{index}_mode{base} {{ h{index}_off, h{index}_on = 3 }};\n\
         struct h{index}_opts {{ h{index}_mode mode; {ty} scale; int n; }};\n\
         extern \"C\" __global__ void h{index}_fill({ty} *x, h{index}_opts o) {{ if (threadIdx.x < o.n && o.mode) x[threadIdx.x] = o.scale; }}\n\
         template <typename T> __global__ void h{index}_scale(T *x, T s) {{ x[threadIdx.x] *= s; }}\n\
         template __global__ void h{index}_scale<{ty}>({ty} *, {ty});\n"
    ))
}

fn cache_dir() -> PathBuf {
    let base = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/cuda-kernel"))
        .unwrap_or_else(|| std::env::temp_dir().join("cuda-kernel-cache"));
    base.join("random-cu")
}

/// nvcc's PTX and device-side preprocessed text of `source` (named `name`), from the cache
/// when this source was compiled before.
fn nvcc(dir: &Path, name: &str, source: &str, rdc: bool) -> Result<(String, String), String> {
    let hash = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (name, source, "compute_75", "nvcc 13.0", rdc).hash(&mut h);
        h.finish()
    };
    let cache = cache_dir();
    let (ptx_path, ii_path) = (
        cache.join(format!("{hash:016x}.ptx")),
        cache.join(format!("{hash:016x}.ii")),
    );
    if let (Ok(ptx), Ok(ii)) = (
        std::fs::read_to_string(&ptx_path),
        std::fs::read_to_string(&ii_path),
    ) {
        return Ok((ptx, ii));
    }
    let cu = dir.join(name);
    std::fs::write(&cu, source).unwrap();
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let run = |args: &[&str], out: &Path| -> Result<String, String> {
        let o = Command::new(&nvcc)
            .args(args)
            .arg("-o")
            .arg(out)
            .arg(&cu)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        std::fs::read_to_string(out).map_err(|e| e.to_string())
    };
    // Separate compilation names `static` kernels and tables `__nv_static_<...>_`.
    let rdc = if rdc { "-rdc=true" } else { "-rdc=false" };
    let ptx = run(
        &["-ptx", "-arch=compute_75", rdc],
        &dir.join(format!("{name}.ptx")),
    )?;
    let ii = run(
        &["-E", "-arch=compute_75", rdc],
        &dir.join(format!("{name}.ii")),
    )?;
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(&ptx_path, &ptx).unwrap();
    std::fs::write(&ii_path, &ii).unwrap();
    Ok((ptx, ii))
}

/// The PTX of `nvcc -ptx -G` of `source`, whose debug information holds the compiler's facts,
/// from the cache when this source was compiled before.
fn debug_ptx(dir: &Path, name: &str, source: &str, rdc: bool) -> Result<String, String> {
    let hash = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (name, source, "compute_75", "nvcc 13.0 -ptx -G", rdc).hash(&mut h);
        h.finish()
    };
    let cached = cache_dir().join(format!("{hash:016x}.g.ptx"));
    if let Ok(ptx) = std::fs::read_to_string(&cached) {
        return Ok(ptx);
    }
    let cu = dir.join(name);
    std::fs::write(&cu, source).unwrap();
    let out = dir.join(format!("{name}.g.ptx"));
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let rdc = if rdc { "-rdc=true" } else { "-rdc=false" };
    let o = Command::new(&nvcc)
        .args(["-ptx", "-G", "-arch=compute_75", rdc, "-o"])
        .arg(&out)
        .arg(&cu)
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let ptx = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(cache_dir()).unwrap();
    std::fs::write(&cached, &ptx).unwrap();
    Ok(ptx)
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn random_cu_files_generate_declarations_that_compile_and_declare_every_kernel() {
    let count: usize = std::env::var("CUDA_KERNEL_RANDOM_CU")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("random-cu");
    let _ = std::fs::remove_dir_all(&target);
    std::fs::create_dir_all(target.join("src")).unwrap();
    // The files, compiled by nvcc on every core.
    // Some files include a header of theirs by a path outside their folder and every include
    // path (`#include "../vendor/llm.c/llmc/gelu.cuh"`), whose kernels are the file's to
    // declare, not the toolkit's (one takes a struct holding an enum of the header).
    let headers = target.parent().unwrap().join("random-cu-inc");
    std::fs::create_dir_all(&headers).unwrap();
    let sources: Vec<String> = (0..count)
        .map(|i| {
            let mut file = random_file(&mut Rng(0x5eed_0000 + i as u64), i);
            if let Some(more) = member_types_kernel(&mut Rng(0xde9e_0000 + i as u64), i) {
                file.push_str(&more);
            }
            match random_header(&mut Rng(0x4ead_0000 + i as u64), i) {
                Some(header) => {
                    // The header's hash in the file: nvcc's cached output is the file's.
                    let hash = {
                        use std::hash::{Hash, Hasher};
                        let mut h = std::collections::hash_map::DefaultHasher::new();
                        header.hash(&mut h);
                        h.finish()
                    };
                    std::fs::write(headers.join(format!("h{i}.cuh")), header).unwrap();
                    format!("#include \"../random-cu-inc/h{i}.cuh\" // {hash:016x}\n{file}")
                }
                None => file,
            }
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let compiled: Vec<Result<(String, String), String>> = std::thread::scope(|s| {
        let chunks: Vec<_> = (0..threads)
            .map(|t| {
                let sources = &sources;
                let target = &target;
                s.spawn(move || {
                    (t..sources.len())
                        .step_by(threads)
                        .map(|i| {
                            (
                                i,
                                nvcc(target, &format!("r{i}.cu"), &sources[i], i % 5 == 4),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<_> = chunks.into_iter().flat_map(|c| c.join().unwrap()).collect();
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    });
    let mut lib = String::new();
    let (mut entries_total, mut declared_total, mut warned_total) = (0, 0, 0);
    // Kernels of the files' own headers, declared in their blocks.
    let mut from_headers = 0;
    for (i, result) in compiled.into_iter().enumerate() {
        let name = format!("r{i}.cu");
        let (ptx, ii) =
            result.unwrap_or_else(|e| panic!("nvcc refused {name}:\n{e}\n{}", sources[i]));
        // The source beside its PTX and block, for a failure's reader.
        std::fs::write(target.join(&name), &sources[i]).unwrap();
        let ptx_path = target.join(format!("r{i}.ptx"));
        std::fs::write(&ptx_path, &ptx).unwrap();
        let mut cx = Errors::default();
        let lit = syn::LitStr::new(ptx_path.to_str().unwrap(), proc_macro2::Span::call_site());
        let ptx_file = ptx_check::read_ptx(&mut cx, &lit, None).expect("the PTX reads");
        let entries: Vec<String> = ptx_file.entries.iter().map(|e| e.name.clone()).collect();
        // The file and its header are the code base's; the toolkit's headers are not.
        let here = |file: &str| file.contains("random-cu");
        // The compiler's facts, as the build step compiles them: the device compilation again,
        // with -G, which takes whatever -ptx took.
        let debug = debug_ptx(&target, &name, &sources[i], i % 5 == 4)
            .unwrap_or_else(|e| panic!("nvcc -G refused {name}:\n{e}\n{}", sources[i]));
        let facts =
            cuda_kernel_build::Facts::read(&debug).unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = cuda_kernel_build::Options {
            ptx: ptx_path.to_str().unwrap(),
            module: "Kernels",
            entries: &entries,
            facts: Some(&facts),
            ..Default::default()
        };
        let generated = cuda_kernel_build::generate(&name, &ii, &here, &options);
        let context = || format!("{name}:\n{}\n{}", sources[i], generated.rust);
        // Names that hold still: nothing of nvcc's run- or path-dependent names.
        for internal in ["_INTERNAL_", "_GLOBAL__N_", "__nv_static_"] {
            assert!(
                !generated.rust.contains(internal),
                "{internal}: {}",
                context()
            );
        }
        // Every entry declared (a C++ kernel named with a word no Rust identifier spells,
        // `Self`, by its C++ name), none left to a warning.
        assert!(
            generated.warnings.is_empty(),
            "{:?}\n{}",
            generated.warnings,
            context()
        );
        assert!(
            generated.accounting.complete(),
            "{}\n{}",
            generated.accounting,
            context()
        );
        assert_eq!(
            generated.accounting.declared,
            entries.len(),
            "{}\n{}",
            generated.accounting,
            context()
        );
        // The front end's checks, as #[kernel] runs them.
        if !generated.rust.is_empty() {
            let file: syn::File =
                syn::parse_str(&generated.rust).unwrap_or_else(|e| panic!("{e}\n{}", context()));
            for item in file.items {
                if let syn::Item::ForeignMod(mut block) = item {
                    block.attrs.clear();
                    let mut parsed = parse::parse_block(&mut cx, block, &Default::default());
                    ptx_check::check_against_ptx(&mut cx, &mut parsed, &ptx_file);
                }
            }
        }
        assert!(cx.is_empty(), "{:?}\n{}", cx.messages(), context());
        let rs = target.join(format!("r{i}.rs"));
        std::fs::write(&rs, &generated.rust).unwrap();
        let _ = writeln!(
            lib,
            "pub mod r{i} {{ include!({:?}); }}",
            rs.to_str().unwrap()
        );
        from_headers += generated.from_headers.len();
        entries_total += entries.len();
        declared_total += generated.accounting.declared;
        warned_total += generated.accounting.warned;
    }
    // rustc on every block at once.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    std::fs::write(
        target.join("Cargo.toml"),
        format!(
            "[package]\nname = \"random-cu\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n[lib]\npath = \"src/lib.rs\"\n[dependencies]\n\
             cuda-kernel = {{ path = {:?} }}\n[workspace]\n",
            manifest.join("cuda-kernel").to_str().unwrap()
        ),
    )
    .unwrap();
    std::fs::write(
        target.join("src/lib.rs"),
        format!("#![deny(warnings)]\n#![allow(dead_code, unused)]\n{lib}"),
    )
    .unwrap();
    // The workspace's versions of syn, cudarc and the rest, not whatever the registry has
    // published since: a new release must not fail this test.
    std::fs::copy(manifest.join("Cargo.lock"), target.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .args(["check", "--quiet", "--manifest-path"])
        .arg(target.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("random-cu-target"))
        .env_remove("RUSTFLAGS")
        // One check of a new crate each run: an incremental cache would only fill the disk.
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("cargo runs");
    if !built.status.success() {
        // rustc's errors, not the warnings before them (which the output is cut to).
        let stderr = String::from_utf8_lossy(&built.stderr);
        let errors: Vec<&str> = stderr
            .split("\n\n")
            .filter(|d| !d.trim_start().starts_with("warning"))
            .collect();
        panic!(
            "the generated blocks do not compile:\n{}",
            errors.join("\n\n")
        );
    }
    println!(
        "random-cu: {count} files, {entries_total} entries, {declared_total} declared \
         ({from_headers} kernels of headers the files include by relative paths), \
         {warned_total} named in warnings, every block compiled"
    );
}
