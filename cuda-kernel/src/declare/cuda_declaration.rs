//! CUDA C declarations of `#[derive(KernelParam)]` structs, so the device code is checked
//! against the same layout as the host code.

use crate::{CType, ParamSlot};

/// Text built at compile time (a `const`), for declarations whose numbers come from layouts.
pub struct ConstText<const CAP: usize> {
    bytes: [u8; CAP],
    len: usize,
}

impl<const CAP: usize> ConstText<CAP> {
    /// Empty text.
    pub const fn new() -> Self {
        ConstText {
            bytes: [0; CAP],
            len: 0,
        }
    }

    /// Appends `s`; fails to evaluate when the text would exceed `CAP` bytes.
    pub const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        assert!(
            self.len + b.len() <= CAP,
            "CUDA declaration too long for its buffer"
        );
        let mut i = 0;
        while i < b.len() {
            self.bytes[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends `n` in decimal.
    pub const fn push_usize(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        assert!(
            self.len + count <= CAP,
            "CUDA declaration too long for its buffer"
        );
        while count > 0 {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// Appends a C type: its name and its `*`s.
    pub const fn push_type(mut self, ty: CType) -> Self {
        self = self.push(ty.name);
        let mut i = 0;
        while i < ty.pointers {
            self = self.push("*");
            i += 1;
        }
        self
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(_) => panic!("CUDA declaration is not UTF-8"),
        }
    }
}

impl<const CAP: usize> Default for ConstText<CAP> {
    fn default() -> Self {
        Self::new()
    }
}

/// Array dimensions of each field of a struct declaration, outermost first: `[2, 3]` for
/// `float m[2][3]`, empty for a field that is not an array. Names and types come from the
/// fields' slots.
pub type FieldDims = &'static [usize];

/// Bytes reserved for one struct's declaration text.
pub const DECLARATION_CAPACITY: usize = 8192;

/// `struct Name { ... };` (in `namespace ns { ... }` for a `name` of `ns::Name`, whose
/// `namespace` is `ns` and `local` name `Name`) followed by `static_assert`s on its size,
/// alignment and each field's offset, as computed by the host layout rules.
#[allow(clippy::too_many_arguments)]
pub const fn struct_declaration(
    name: &'static str,
    namespace: &'static str,
    local: &'static str,
    dims: &[FieldDims],
    slots: &[ParamSlot],
    size: usize,
    align: usize,
    repr_align: usize,
) -> ConstText<DECLARATION_CAPACITY> {
    let mut t = ConstText::new();
    if !namespace.is_empty() {
        t = t.push("namespace ").push(namespace).push(" {\n");
    }
    t = t.push("struct ");
    if repr_align > 1 {
        t = t.push("alignas(").push_usize(repr_align).push(") ");
    }
    t = t.push(local).push(" {\n");
    let mut i = 0;
    while i < slots.len() {
        t = t
            .push("    ")
            .push_type(slots[i].ty)
            .push(" ")
            .push(slots[i].name);
        let mut d = 0;
        while d < dims[i].len() {
            t = t.push("[").push_usize(dims[i][d]).push("]");
            d += 1;
        }
        t = t.push(";\n");
        i += 1;
    }
    t = t.push("};\n");
    if !namespace.is_empty() {
        t = t.push("}\n");
    }
    t = t
        .push("static_assert(sizeof(")
        .push(name)
        .push(") == ")
        .push_usize(size)
        .push(", \"")
        .push(name)
        .push(": size differs from the Rust declaration\");\n");
    t = t
        .push("static_assert(alignof(")
        .push(name)
        .push(") == ")
        .push_usize(align)
        .push(", \"")
        .push(name)
        .push(": alignment differs from the Rust declaration\");\n");
    let mut i = 0;
    while i < slots.len() {
        t = t
            .push("static_assert(offsetof(")
            .push(name)
            .push(", ")
            .push(slots[i].name)
            .push(") == ")
            .push_usize(slots[i].offset)
            .push(", \"")
            .push(name)
            .push(".")
            .push(slots[i].name)
            .push(": offset differs from the Rust declaration\");\n");
        i += 1;
    }
    t
}

/// A CUDA header holding `declarations` (each a derived struct's `CUDA_DECLARATION`), in order:
/// declare nested structs before the structs that hold them.
///
/// ```
/// #[derive(Clone, Copy, cuda_kernel::KernelParam)]
/// #[repr(C)]
/// struct Scale {
///     factor: f32,
///     offset: f64,
/// }
/// let header = cuda_kernel::cuda_header(&[Scale::CUDA_DECLARATION]);
/// assert!(header.contains("static_assert(offsetof(Scale, offset) == 8"));
/// ```
pub fn cuda_header(declarations: &[&str]) -> String {
    let mut text = String::from(
        "// Generated by cuda-kernel from #[derive(KernelParam)] structs: do not edit.\n\
         #pragma once\n#include <cstddef>\n#include <cstdint>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n",
    );
    for declaration in declarations {
        // Guarded by name, as cuda-kernel-build declares the same structs in the header it
        // force-includes: whichever comes first declares the struct. The qualified name is the
        // one the first assertion names (`geo::Pair`).
        let guard = declaration
            .split_once("static_assert(sizeof(")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(name, _)| cuda_kernel_syntax::cpp::struct_guard(name));
        text.push('\n');
        match guard {
            Some(guard) => {
                text.push_str(&format!(
                    "#ifndef {guard}\n#define {guard}\n{declaration}#endif\n"
                ));
            }
            None => text.push_str(declaration),
        }
    }
    text
}

/// Writes [`cuda_header`] to `path` unless the file already holds exactly that text (so a build
/// script calling it does not trigger rebuilds of its own).
pub fn write_cuda_header(
    path: impl AsRef<std::path::Path>,
    declarations: &[&str],
) -> std::io::Result<()> {
    let text = cuda_header(declarations);
    if std::fs::read_to_string(path.as_ref()).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_types_are_written_out() {
        const T: ConstText<64> = ConstText::new()
            .push("x")
            .push_usize(0)
            .push(" ")
            .push_usize(32764)
            .push(" ")
            .push_type(CType::named("float").pointer().pointer());
        assert_eq!(T.as_str(), "x0 32764 float**");
    }
}
