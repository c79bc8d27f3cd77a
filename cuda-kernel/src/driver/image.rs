//! A module image as the driver may read it: PTX text terminated by a NUL, or a cubin or fatbin,
//! whose header gives its size. Modules and libraries check their input here, once.

use std::ffi::{CString, c_void};

use crate::Error;

/// Code ready for `cuModuleLoadData` or `cuLibraryLoadData`.
pub(crate) enum Image<'a> {
    /// PTX text, NUL-terminated.
    Ptx(CString),
    /// An ELF cubin or a fatbin.
    Binary(&'a [u8]),
}

impl<'a> Image<'a> {
    /// PTX text; [`Error::InvalidPtx`] for text with a NUL byte, which the driver would cut.
    pub(crate) fn ptx(text: &str) -> Result<Image<'static>, Error> {
        CString::new(text)
            .map(Image::Ptx)
            .map_err(|_| Error::InvalidPtx("the text contains a NUL byte"))
    }

    /// A cubin or fatbin, or else PTX text as bytes (trailing NULs dropped); bytes that are
    /// none of these are [`Error::InvalidPtx`], never handed to the driver to read past
    /// their end.
    pub(crate) fn bytes(image: &'a [u8]) -> Result<Image<'a>, Error> {
        if is_binary(image) {
            return Ok(Image::Binary(image));
        }
        match std::str::from_utf8(image) {
            Ok(text) => Image::ptx(text.trim_end_matches('\0')),
            Err(_) => Err(Error::InvalidPtx(
                "the image is neither a cubin, a fatbin, nor PTX text",
            )),
        }
    }

    /// The pointer the driver's load calls take.
    pub(crate) fn as_ptr(&self) -> *const c_void {
        match self {
            Image::Ptx(text) => text.as_ptr().cast(),
            Image::Binary(bytes) => bytes.as_ptr().cast(),
        }
    }

    /// The same code as cudarc's module loader takes it.
    pub(crate) fn into_cudarc(self) -> cudarc::nvrtc::Ptx {
        match self {
            Image::Ptx(text) => {
                cudarc::nvrtc::Ptx::from_src(text.into_string().unwrap_or_default())
            }
            Image::Binary(bytes) => cudarc::nvrtc::Ptx::from_binary(bytes.to_vec()),
        }
    }
}

/// How a cubin (an ELF file) starts.
pub(crate) const ELF_MAGIC: &[u8] = b"\x7fELF";
/// A fatbin's first four bytes, little-endian.
pub(crate) const FATBIN_MAGIC: u32 = 0xBA55_ED50;

/// Whether `image` starts as an ELF cubin or a fatbin does.
fn is_binary(image: &[u8]) -> bool {
    image.starts_with(ELF_MAGIC) || image.starts_with(&FATBIN_MAGIC.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cubins_and_fatbins_reach_the_driver_as_binaries() {
        assert!(is_binary(b"\x7fELF\x02\x01\x01"));
        assert!(is_binary(&[0x50, 0xed, 0x55, 0xba, 1, 0]));
        assert!(!is_binary(b".version 9.0\n.target sm_90"));
        assert!(!is_binary(b""));
    }

    #[test]
    fn text_is_checked_once_for_modules_and_libraries() {
        assert!(matches!(Image::ptx("a\0b"), Err(Error::InvalidPtx(_))));
        assert!(matches!(
            Image::bytes(&[0xff, 0xfe]),
            Err(Error::InvalidPtx(_))
        ));
        assert!(
            matches!(Image::bytes(b".version 9.0\0\0"), Ok(Image::Ptx(t)) if t.as_bytes() == b".version 9.0")
        );
        assert!(matches!(Image::bytes(b"\x7fELF.."), Ok(Image::Binary(_))));
    }
}
