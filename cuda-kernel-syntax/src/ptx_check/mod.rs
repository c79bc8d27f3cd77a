//! Checking declarations against the PTX named by `#[kernel(ptx = "...")]`: every kernel must
//! be an entry of the file, with as many parameters, each of the same size and alignment.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use syn::LitStr;

use crate::ast::Block;
use crate::ptx::{self, Entry};
use crate::report::Errors;

mod entry;
mod family;
mod global;
mod problems;
mod template;

use entry::*;
use family::*;
use global::*;
use problems::*;
use template::*;

/// The PTX file of a block, read.
pub struct PtxFile {
    /// Absolute path, for `include_bytes!` (so editing the file rebuilds the crate).
    pub path: PathBuf,
    /// The path as the user wrote it, for messages.
    pub shown: String,
    /// Its entries.
    pub entries: Vec<Entry>,
    /// Its `.const` and `.global` variables.
    pub globals: Vec<ptx::Global>,
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
    match read_cached(text) {
        Ok((entries, globals)) => Some(PtxFile {
            path,
            shown,
            entries,
            globals,
        }),
        Err(e) => {
            cx.error(lit, format!("cannot read the kernels of {shown}: {e}"));
            None
        }
    }
}

/// The entries and globals of a PTX text, read once per process for the same text: a crate's
/// blocks often check against one file (a backend's `#[kernel]` blocks, each naming the PTX of
/// its module), and the macro runs unoptimized in a debug build. The text itself is the key, so
/// an edited file is read again; the few most recent files are kept.
fn read_cached(text: String) -> Result<(Vec<ptx::Entry>, Vec<ptx::Global>), ptx::PtxError> {
    type Read = Arc<(Vec<ptx::Entry>, Vec<ptx::Global>)>;
    static CACHE: Mutex<Vec<(String, Read)>> = Mutex::new(Vec::new());
    const KEPT: usize = 8;
    let cache = || {
        CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some((_, read)) = cache().iter().find(|(kept, _)| *kept == text) {
        return Ok((read.0.clone(), read.1.clone()));
    }
    let read = ptx::entries_and_globals(&text)?;
    let mut kept = cache();
    if kept.len() == KEPT {
        kept.remove(0);
    }
    kept.push((text, Arc::new(read.clone())));
    Ok(read)
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
    for global in &mut block.globals {
        global.ptx_layout = check_global(cx, global, file);
    }
    // Entries another declaration of the block binds are not members of a run-time family.
    let mut claimed: Vec<String> = Vec::new();
    for kernel in block.kernels.iter().filter(|k| k.run_time_name.is_none()) {
        if !kernel.symbol_at_load() {
            claimed.push(kernel.symbol.clone());
        } else if kernel.cpp.is_none() {
            claimed.extend(
                family_members(kernel, file, &[])
                    .into_iter()
                    .map(|m| m.symbol),
            );
        }
    }
    // An entry two run-time patterns match belongs to the one with more fixed text:
    // `badd_f32` to `b{op}_{T}`, not to `{op}_{T}`.
    let run_time: Vec<(usize, Vec<String>)> = block
        .kernels
        .iter()
        .filter(|k| k.run_time_name.is_some() && k.cpp.is_none())
        .map(|k| {
            let members = family_members(k, file, &claimed);
            (
                literal_len(&k.symbol),
                members.into_iter().map(|m| m.symbol).collect(),
            )
        })
        .collect();
    for kernel in &mut block.kernels {
        if kernel.symbol_at_load() && kernel.cpp.is_none() {
            let mut exclude = Vec::new();
            if kernel.run_time_name.is_some() {
                exclude.extend(claimed.iter().cloned());
                let own = literal_len(&kernel.symbol);
                for (len, symbols) in &run_time {
                    if *len > own {
                        exclude.extend(symbols.iter().cloned());
                    }
                }
            }
            kernel.members = Some(check_family(cx, kernel, file, &exclude));
            continue;
        }
        if kernel.is_generic() || kernel.device_fn.is_some() {
            let (members, names) = check_template_instances(cx, kernel, file);
            kernel.members = members;
            kernel.cuda_names = names;
            continue;
        }
        if let Some((symbol, names)) = entry_by_struct_names(kernel, file) {
            kernel.symbol = symbol;
            kernel.cuda_names = names;
        }
        match entry_by_cpp_name(cx, kernel, file) {
            ByCppName::NotApplicable => {}
            ByCppName::Found(symbol) => {
                if let Some(name) = &kernel.name_arg {
                    crate::check::check_symbol_params(cx, kernel, &symbol, name);
                }
                kernel.symbol = symbol;
            }
            ByCppName::Ambiguous => continue,
        }
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
