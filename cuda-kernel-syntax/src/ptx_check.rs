//! Checking declarations against the PTX named by `#[kernel(ptx = "...")]`: every kernel must
//! be an entry of the file, with as many parameters, each of the same size and alignment.

use std::path::{Path, PathBuf};

use syn::ext::IdentExt;
use syn::{LitStr, Type};

use crate::ast::{Block, Kernel, PtxLayout};
use crate::check::type_text;
use crate::ptx::{self, Entry, PtxParam};
use crate::report::Errors;
use crate::types::{self, Class};

/// The PTX file of a block, read.
pub struct PtxFile {
    /// Absolute path, for `include_bytes!` (so editing the file rebuilds the crate).
    pub path: PathBuf,
    /// The path as the user wrote it, for messages.
    pub shown: String,
    /// Its entries.
    pub entries: Vec<Entry>,
}

/// Reads `lit`, resolved against `manifest_dir` or, for `"$NAME/file.ptx"`, against the
/// folder in the environment variable `NAME` (`$OUT_DIR`, where a build script writes);
/// reports an unreadable or malformed file on the literal and says what to run.
pub fn read_ptx(cx: &mut Errors, lit: &LitStr, manifest_dir: Option<&Path>) -> Option<PtxFile> {
    let shown = lit.value();
    let path = match resolve(&shown, manifest_dir) {
        Ok(path) => path,
        Err(message) => {
            cx.error(lit, message);
            return None;
        }
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            let hint = if shown.starts_with("$OUT_DIR") {
                "the build script writes it: does it compile the .cu file of that name with \
                 cuda-kernel-build?"
            } else {
                "the path is relative to the crate's Cargo.toml; generate the file with nvcc -ptx \
                 or cuda-kernel-build"
            };
            cx.error(
                lit,
                format!("cannot read PTX file {}: {e} ({hint})", path.display()),
            );
            return None;
        }
    };
    match ptx::entries(&text) {
        Ok(entries) => Some(PtxFile {
            path,
            shown,
            entries,
        }),
        Err(e) => {
            cx.error(lit, format!("cannot read the kernels of {shown}: {e}"));
            None
        }
    }
}

/// Where `ptx = "..."` points: `$NAME/rest` under the environment variable `NAME`'s folder,
/// anything else relative to the manifest directory.
pub fn resolve(shown: &str, manifest_dir: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(var) = shown.strip_prefix('$') {
        let (name, rest) = var.split_once('/').unwrap_or((var, ""));
        return match std::env::var_os(name) {
            Some(dir) => Ok(PathBuf::from(dir).join(rest)),
            None if name == "OUT_DIR" => Err(
                "`$OUT_DIR` is not set: the crate needs a build script (cuda-kernel-build \
                 compiles .cu files into OUT_DIR)"
                    .to_string(),
            ),
            None => Err(format!(
                "`${name}` is not set in the environment of this build"
            )),
        };
    }
    Ok(match manifest_dir {
        Some(dir) => dir.join(shown),
        None => PathBuf::from(shown),
    })
}

/// Checks every kernel of the block against the PTX, leaving on each parameter the layout the
/// compiler must confirm where the front end cannot (`Param::ptx_layout`).
pub fn check_against_ptx(cx: &mut Errors, block: &mut Block, file: &PtxFile) {
    for kernel in &mut block.kernels {
        let Some(entry) = check_entry_exists(cx, kernel, file) else {
            continue;
        };
        if !check_param_count(cx, kernel, entry, &file.shown) {
            continue; // the per-parameter checks would only repeat the shift
        }
        let layouts: Vec<_> = (0..kernel.params.len().min(entry.params.len()))
            .map(|i| {
                // A type the parse refused is reported already.
                (kernel.params[i].type_error.is_none())
                    .then(|| check_param(cx, kernel, i, &entry.params[i]))
                    .flatten()
            })
            .collect();
        for (param, layout) in kernel.params.iter_mut().zip(layouts) {
            param.ptx_layout = layout;
        }
    }
}

/// Rule: the kernel's entry symbol is an `.entry` of the PTX. When only C++-mangled entries of
/// that name exist, say so and how to bind one.
fn check_entry_exists<'a>(
    cx: &mut Errors,
    kernel: &Kernel,
    file: &'a PtxFile,
) -> Option<&'a Entry> {
    let symbol = &kernel.symbol;
    if let Some(entry) = ptx::find(&file.entries, symbol) {
        return Some(entry);
    }
    let span: &dyn quote::ToTokens = match &kernel.name_arg {
        Some(lit) => lit,
        None => &kernel.ident,
    };
    let base = kernel.ident.unraw().to_string();
    let derived = kernel.cpp.is_some() && kernel.name_arg.is_none();
    let mangled = ptx::mangled_matches(&file.entries, if derived { &base } else { symbol });
    let names: Vec<_> = mangled.iter().map(|e| format!("`{}`", e.name)).collect();
    let message = if derived && !mangled.is_empty() {
        format!(
            "{} has no entry `{symbol}`, the symbol #[kernel(cpp)] derives from this declaration, \
             but has {}: the parameter types differ from the C++ declaration's (i8 mangles as \
             signed char, i64 as long long), or bind the symbol with #[kernel(name = \"...\")]",
            file.shown,
            names.join(", ")
        )
    } else if let Some(first) = mangled.first() {
        format!(
            "{} has no entry `{symbol}`, but has the C++ kernel{} {} of that name: declare the \
             CUDA kernel extern \"C\", or bind the mangled symbol with #[kernel(name = \"{}\")] \
             (or #[kernel(cpp)] to derive it from the signature)",
            file.shown,
            if mangled.len() > 1 { "s" } else { "" },
            names.join(", "),
            first.name
        )
    } else if file.entries.is_empty() {
        format!(
            "{} has no entry `{symbol}`: it declares no kernels at all",
            file.shown
        )
    } else {
        let names: Vec<_> = file.entries.iter().map(|e| e.name.as_str()).collect();
        format!(
            "{} has no entry `{symbol}`; its entries are: {}",
            file.shown,
            names.join(", ")
        )
    };
    cx.error(span, message);
    None
}

/// Rule: the declaration has as many parameters as the entry.
/// When the counts differ and a parameter before the end already sits in a slot of another
/// shape, that parameter is named (a parameter dropped from the middle shifts every later one).
/// Returns whether the per-parameter checks still make sense.
fn check_param_count(cx: &mut Errors, kernel: &Kernel, entry: &Entry, shown: &str) -> bool {
    let (declared, actual) = (kernel.params.len(), entry.params.len());
    if declared != actual {
        let shifted = kernel
            .params
            .iter()
            .zip(&entry.params)
            .enumerate()
            .find(|(_, (p, ptx))| {
                known_layout(&p.ty)
                    .is_some_and(|(size, align, _)| (size, align) != (ptx.size, ptx.align))
            });
        if let Some((i, (param, ptx))) = shifted {
            cx.error(
                &param.ident,
                format!(
                    "`{}` takes {actual} parameters in {shown} but {declared} are declared here, \
                     and `{}` is declared where the PTX has parameter {i} as {} ({}): a parameter \
                     is {} before `{}`",
                    entry.name,
                    param.ident,
                    ptx.describe(),
                    suggestion(ptx),
                    if declared < actual {
                        "missing"
                    } else {
                        "extra"
                    },
                    param.ident
                ),
            );
            return false;
        }
    }
    if declared > actual {
        for param in &kernel.params[actual..] {
            cx.error(
                &param.ident,
                format!(
                    "`{}` takes {actual} parameter{} in {shown}: `{}` has no counterpart there",
                    entry.name,
                    if actual == 1 { "" } else { "s" },
                    param.ident
                ),
            );
        }
    } else if declared < actual {
        let missing: Vec<_> = entry.params[declared..]
            .iter()
            .map(|p| format!("{} ({})", p.describe(), suggestion(p)))
            .collect();
        cx.error(
            &kernel.sig.ident,
            format!(
                "`{}` takes {actual} parameters in {shown} but {declared} are declared here: \
                 missing {}",
                entry.name,
                missing.join(", ")
            ),
        );
    }
    true
}

/// Size, alignment and float-ness of the types whose layout the front end knows itself:
/// pointers and Rust primitives.
fn known_layout(ty: &Type) -> Option<(usize, usize, Option<bool>)> {
    match ty {
        Type::Ptr(_) => Some((8, 8, None)),
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().and_then(|name| {
            types::primitive(&name.to_string())
                .map(|t| (t.size, t.align, Some(t.class == Class::Float)))
        }),
        _ => None,
    }
}

/// Rule: each parameter has the PTX's size and alignment, and a scalar's kind (integer or
/// floating point) matches. Checked here for pointers and Rust primitives; for other types the
/// returned layout becomes a compile-time assertion.
fn check_param(
    cx: &mut Errors,
    kernel: &Kernel,
    index: usize,
    ptx: &PtxParam,
) -> Option<PtxLayout> {
    let (ident, ty) = (&kernel.params[index].ident, &kernel.params[index].ty);
    let declared = format!("`{ident}: {}`", type_text(ty));
    let ptx_side = format!(
        "{} ({} byte{}{})",
        ptx.describe(),
        ptx.size,
        if ptx.size == 1 { "" } else { "s" },
        if ptx.array_len.is_some() {
            format!(", align {}", ptx.align)
        } else {
            String::new()
        }
    );
    let known = known_layout(ty).map(|(size, align, float)| {
        let what = match ty {
            Type::Ptr(_) => "a 64-bit device address".to_string(),
            _ => format!("{size} byte{}", if size == 1 { "" } else { "s" }),
        };
        (size, align, what, float)
    });
    let Some((size, align, what, float)) = known else {
        return Some(PtxLayout {
            size: ptx.size,
            align: ptx.align,
            message: format!(
                "{declared} does not match parameter {index} of `{}`, which the PTX declares as \
                 {ptx_side}: did you mean {}?",
                kernel.symbol,
                suggestion(ptx)
            ),
        });
    };
    if (size, align) != (ptx.size, ptx.align) {
        cx.error(
            ty,
            format!(
                "{declared} is {what} but the PTX declares {ptx_side}: did you mean {}?",
                suggestion(ptx)
            ),
        );
    } else if float == Some(false) && ptx.is_float() {
        cx.error(
            ty,
            format!(
                "{declared} is an integer but the PTX declares {}, a float: did you mean {}?",
                ptx.ty,
                suggestion(ptx)
            ),
        );
    } else if float == Some(true) && ptx.is_integer() {
        cx.error(
            ty,
            format!(
                "{declared} is a float but the PTX declares {}, an integer: did you mean {}?",
                ptx.ty,
                suggestion(ptx)
            ),
        );
    }
    None
}

/// The Rust types that fit a PTX parameter.
fn suggestion(ptx: &PtxParam) -> String {
    types::suggestion(&ptx.ty, ptx.array_len, ptx.size, ptx.align)
}
