//! How many parameters each kernel of a module image takes, read from the image itself: the
//! `.entry` declarations of PTX, the `EIATTR_KPARAM_INFO` records of a cubin's
//! `.nv.info.<kernel>` sections, and the PTX or cubins inside a fatbin.
//!
//! The load check asks the driver for each parameter's offset and size; knowing the count, it
//! never asks for one past the last, a call that fails (`CUDA_ERROR_INVALID_VALUE`) and that
//! compute-sanitizer reports as an error of the user's program. Drivers of CUDA 13.2 and newer
//! say the count themselves (`cuFuncGetParamCount`); this is for older ones. Reading is
//! bounds-checked throughout: a malformed image gives no count, never a panic.

use std::collections::HashMap;

use crate::driver::image::{ELF_MAGIC, FATBIN_MAGIC, Image};
use crate::driver::result;

/// The parameter count of every kernel an image defines, by symbol; empty where the image
/// could not be read (a compressed fatbin, text that is not PTX).
#[derive(Debug, Default)]
pub(crate) struct ParamCounts(HashMap<String, usize>);

impl ParamCounts {
    /// The counts of an image about to be loaded, where the driver cannot say them itself
    /// (no `cuFuncGetParamCount`); `None` where it can.
    pub(crate) fn needed(image: &Image<'_>) -> Option<ParamCounts> {
        if result::has_param_count() {
            return None;
        }
        Some(match image {
            Image::Ptx(text) => ParamCounts::of_ptx(text.to_str().unwrap_or_default()),
            Image::Binary(bytes) => ParamCounts::of_image(bytes),
        })
    }

    /// The counts of a module image: PTX text, a cubin or a fatbin.
    pub(crate) fn of_image(image: &[u8]) -> ParamCounts {
        let mut counts = HashMap::new();
        read_image(image, &mut counts, 0);
        ParamCounts(counts)
    }

    /// The counts of PTX text.
    pub(crate) fn of_ptx(text: &str) -> ParamCounts {
        let mut counts = HashMap::new();
        read_ptx(text, &mut counts);
        ParamCounts(counts)
    }

    /// The names of an image's entries that nvcc named in its internal namespace
    /// (`_INTERNAL_...`: instances over `static` device functions), read only where the image
    /// holds the mark.
    pub(crate) fn internal_names(image: &Image<'_>) -> Vec<String> {
        use cuda_kernel_syntax::itanium::{ALL_INTERNAL_MARKS, has_internal_parts};
        let counts = match image {
            Image::Ptx(text) => {
                let text = text.to_str().unwrap_or_default();
                if !has_internal_parts(text) {
                    return Vec::new();
                }
                ParamCounts::of_ptx(text)
            }
            Image::Binary(bytes) => {
                let any = ALL_INTERNAL_MARKS
                    .iter()
                    .any(|m| bytes.windows(m.len()).any(|w| w == m.as_bytes()));
                if !any {
                    return Vec::new();
                }
                ParamCounts::of_image(bytes)
            }
        };
        counts
            .0
            .into_keys()
            .filter(|n| has_internal_parts(n))
            .collect()
    }

    /// The count for `kernel`, where the image said.
    pub(crate) fn get(&self, kernel: &str) -> Option<usize> {
        self.0.get(kernel).copied()
    }
}

fn read_image(image: &[u8], counts: &mut HashMap<String, usize>, depth: u8) {
    if image.starts_with(ELF_MAGIC) {
        read_cubin(image, counts);
    } else if u32_at(image, 0) == Some(FATBIN_MAGIC) && depth == 0 {
        read_fatbin(image, counts);
    } else if let Ok(text) = std::str::from_utf8(image) {
        read_ptx(text.trim_end_matches('\0'), counts);
    }
}

fn read_ptx(text: &str, counts: &mut HashMap<String, usize>) {
    if let Ok(entries) = cuda_kernel_syntax::ptx::entries(text) {
        for entry in entries {
            counts.entry(entry.name).or_insert(entry.params.len());
        }
    }
}

/// A fatbin: a header (magic, version, header size, size of what follows), then entries, each
/// with a header (kind, version, header size, payload size, ..., flags) and its payload. Only
/// uncompressed payloads are read; all of a fatbin's entries define the same kernels.
fn read_fatbin(image: &[u8], counts: &mut HashMap<String, usize>) {
    let (Some(header), Some(size)) = (u16_at(image, 6), u64_at(image, 8)) else {
        return;
    };
    let start = header as usize;
    let end = start.saturating_add(size as usize).min(image.len());
    let mut at = start;
    while at < end {
        let (Some(entry_header), Some(payload)) = (u32_at(image, at + 4), u64_at(image, at + 8))
        else {
            return;
        };
        let body = at.saturating_add(entry_header as usize);
        let Some(next) = body.checked_add(payload as usize) else {
            return;
        };
        if entry_header < 16 || next > end {
            return;
        }
        // A compressed payload starts with neither ELF's magic nor PTX text; reading it as
        // PTX finds no entry.
        read_image(&image[body..next], counts, 1);
        at = next;
    }
}

/// `EIATTR_KPARAM_INFO`: one record per kernel parameter.
const KPARAM_INFO: u8 = 0x17;

/// A cubin: the `.nv.info.<kernel>` section of each kernel lists its parameters.
fn read_cubin(image: &[u8], counts: &mut HashMap<String, usize>) {
    // 64-bit little-endian ELF only (every cubin nvcc writes today).
    if image.get(4) != Some(&2) || image.get(5) != Some(&1) {
        return;
    }
    let (Some(shoff), Some(shentsize), Some(shnum), Some(shstrndx)) = (
        u64_at(image, 0x28),
        u16_at(image, 0x3a),
        u16_at(image, 0x3c),
        u16_at(image, 0x3e),
    ) else {
        return;
    };
    let section = |index: usize| -> Option<(u32, &[u8])> {
        let at = (shoff as usize).checked_add(index.checked_mul(shentsize as usize)?)?;
        let name = u32_at(image, at)?;
        let offset = u64_at(image, at.checked_add(0x18)?)? as usize;
        let size = u64_at(image, at.checked_add(0x20)?)? as usize;
        Some((name, image.get(offset..offset.checked_add(size)?)?))
    };
    let Some((_, names)) = section(shstrndx as usize) else {
        return;
    };
    for index in 0..shnum as usize {
        let Some((name, data)) = section(index) else {
            continue;
        };
        let Some(name) = c_str_at(names, name as usize) else {
            continue;
        };
        let Some(kernel) = name.strip_prefix(".nv.info.") else {
            continue;
        };
        if let Some(count) = kparam_count(data) {
            counts.entry(kernel.to_owned()).or_insert(count);
        }
    }
}

/// The `EIATTR_KPARAM_INFO` records among a section's attributes; `None` for attributes it
/// cannot walk.
fn kparam_count(mut data: &[u8]) -> Option<usize> {
    let mut count = 0;
    while !data.is_empty() {
        let (&format, &attribute) = (data.first()?, data.get(1)?);
        let len = match format {
            // EIFMT_NVAL: no value.
            1 => 2,
            // EIFMT_BVAL, EIFMT_HVAL: a value in two bytes.
            2 | 3 => 4,
            // EIFMT_SVAL: a size, then that many bytes.
            4 => 4 + u16_at(data, 2)? as usize,
            _ => return None,
        };
        if attribute == KPARAM_INFO {
            count += 1;
        }
        data = data.get(len..)?;
    }
    Some(count)
}

fn c_str_at(bytes: &[u8], at: usize) -> Option<&str> {
    let rest = bytes.get(at..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        bytes.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        bytes.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built from tests/fixtures/params.cu (see the file for the commands).
    const CUBIN: &[u8] = include_bytes!("../../tests/fixtures/params.cubin");
    const FATBIN: &[u8] = include_bytes!("../../tests/fixtures/params.fatbin");
    const PTX_FATBIN: &[u8] = include_bytes!("../../tests/fixtures/params_ptx.fatbin");
    /// nvcc compresses the PTX of a fatbin by default (its cubins not).
    const COMPRESSED: &[u8] = include_bytes!("../../tests/fixtures/params_ptx_compressed.fatbin");

    fn expect(counts: &ParamCounts) {
        assert_eq!(counts.get("vector_add"), Some(4));
        assert_eq!(counts.get("mixed"), Some(4));
        assert_eq!(counts.get("none"), Some(0));
        assert_eq!(counts.get("_Z5twiceIfEvPT_j"), Some(2));
        assert_eq!(counts.get("absent"), None);
    }

    #[test]
    fn counts_from_cubins_fatbins_and_ptx() {
        expect(&ParamCounts::of_image(CUBIN));
        expect(&ParamCounts::of_image(FATBIN));
        expect(&ParamCounts::of_image(PTX_FATBIN));
        // Compressed PTX is not read: no count, and the load check asks the driver as before.
        assert_eq!(ParamCounts::of_image(COMPRESSED).get("vector_add"), None);
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
                   .visible .entry k(\n.param .u64 k_param_0,\n.param .u32 k_param_1\n)\n{\nret;\n}\n";
        assert_eq!(ParamCounts::of_ptx(ptx).get("k"), Some(2));
        assert_eq!(ParamCounts::of_image(ptx.as_bytes()).get("k"), Some(2));
    }

    #[test]
    fn malformed_images_give_no_count_and_never_panic() {
        use cuda_kernel_syntax::mutate::Rng;
        for image in [CUBIN, FATBIN, PTX_FATBIN, COMPRESSED] {
            for cut in (0..image.len()).step_by(97) {
                let _ = ParamCounts::of_image(&image[..cut]);
            }
        }
        let runs = cuda_kernel_syntax::mutate::count();
        let mut rng = Rng::new(0x9a7a_c0de);
        for i in 0..runs {
            let source = [CUBIN, FATBIN, PTX_FATBIN][i % 3];
            let mut image = source.to_vec();
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(image.len());
                image[at] = match rng.below(4) {
                    0 => 0,
                    1 => 0xff,
                    2 => image[at].wrapping_add(1),
                    _ => rng.below(256) as u8,
                };
            }
            let _ = ParamCounts::of_image(&image);
        }
        cuda_kernel_syntax::mutate::report("image parameter counts", runs);
    }
}
