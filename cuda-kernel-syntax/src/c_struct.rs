//! The C text of a `#[derive(KernelParam)]` struct, written once for the runtime and the build
//! step: `struct Name { ... };` (in its namespace, `alignas` for a `repr(align)`), then
//! `static_assert`s on its size, alignment and each field's offset as the host computes them.
//! The runtime writes it at compile time (a derived struct's `CUDA_DECLARATION`, a `const`), the
//! build step into the header it force-includes; both through these `const fn`s and
//! [`ConstText`].
//!
//! ```
//! use cuda_kernel_syntax::c_struct::{self, ConstText};
//! const T: ConstText<256> = {
//!     let t = c_struct::open(ConstText::new(), "", "Pair", 0);
//!     let t = c_struct::field(t, "float", 0, "a", &[]);
//!     let t = c_struct::close(t, "");
//!     c_struct::layout_asserts(t, "Pair", 4, 4)
//! };
//! assert!(T.as_str().starts_with("struct Pair {\n    float a;\n};\nstatic_assert(sizeof(Pair) == 4"));
//! assert!(!T.overflowed());
//! ```

/// Text built in a `const` (or at run time, the same way), in a buffer of `CAP` bytes. Text past
/// the capacity is dropped and [`overflowed`](Self::overflowed) says so: the runtime asserts it
/// in its constant (a compile-time error), the build step reports it.
#[derive(Clone, Copy)]
pub struct ConstText<const CAP: usize> {
    bytes: [u8; CAP],
    len: usize,
    overflowed: bool,
}

impl<const CAP: usize> ConstText<CAP> {
    /// Empty text.
    pub const fn new() -> Self {
        ConstText {
            bytes: [0; CAP],
            len: 0,
            overflowed: false,
        }
    }

    /// Appends `s`, unless the text would exceed `CAP` bytes (then marks it overflowed).
    pub const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        if self.len + b.len() > CAP {
            self.overflowed = true;
            return self;
        }
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
        if self.len + count > CAP {
            self.overflowed = true;
            return self;
        }
        while count > 0 {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// Whether text was dropped for want of capacity.
    pub const fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            // Only whole `&str`s are pushed, and a push that does not fit pushes nothing.
            Err(_) => "",
        }
    }
}

impl<const CAP: usize> Default for ConstText<CAP> {
    fn default() -> Self {
        Self::new()
    }
}

/// `namespace ns {` (for a struct in a namespace) and `struct alignas(N) Local {`.
pub const fn open<const CAP: usize>(
    mut t: ConstText<CAP>,
    namespace: &str,
    local: &str,
    repr_align: usize,
) -> ConstText<CAP> {
    if !namespace.is_empty() {
        t = t.push("namespace ").push(namespace).push(" {\n");
    }
    t = t.push("struct ");
    if repr_align > 1 {
        t = t.push("alignas(").push_usize(repr_align).push(") ");
    }
    t.push(local).push(" {\n")
}

/// A field, `    float* name[2][3];`: its C type, then `pointers` stars, its name and its
/// array dimensions, outermost first.
pub const fn field<const CAP: usize>(
    mut t: ConstText<CAP>,
    c_type: &str,
    pointers: u8,
    name: &str,
    dims: &[usize],
) -> ConstText<CAP> {
    t = t.push("    ").push(c_type);
    let mut i = 0;
    while i < pointers {
        t = t.push("*");
        i += 1;
    }
    t = t.push(" ").push(name);
    let mut d = 0;
    while d < dims.len() {
        t = t.push("[").push_usize(dims[d]).push("]");
        d += 1;
    }
    t.push(";\n")
}

/// `};`, and the namespace's `}`.
pub const fn close<const CAP: usize>(t: ConstText<CAP>, namespace: &str) -> ConstText<CAP> {
    let t = t.push("};\n");
    match namespace.is_empty() {
        true => t,
        false => t.push("}\n"),
    }
}

/// The `static_assert`s on the struct's size and alignment; `name` is its qualified C++ name.
pub const fn layout_asserts<const CAP: usize>(
    t: ConstText<CAP>,
    name: &str,
    size: usize,
    align: usize,
) -> ConstText<CAP> {
    t.push("static_assert(sizeof(")
        .push(name)
        .push(") == ")
        .push_usize(size)
        .push(", \"")
        .push(name)
        .push(": size differs from the Rust declaration\");\n")
        .push("static_assert(alignof(")
        .push(name)
        .push(") == ")
        .push_usize(align)
        .push(", \"")
        .push(name)
        .push(": alignment differs from the Rust declaration\");\n")
}

/// The `static_assert` on a field's offset.
pub const fn offset_assert<const CAP: usize>(
    t: ConstText<CAP>,
    name: &str,
    field: &str,
    offset: usize,
) -> ConstText<CAP> {
    t.push("static_assert(offsetof(")
        .push(name)
        .push(", ")
        .push(field)
        .push(") == ")
        .push_usize(offset)
        .push(", \"")
        .push(name)
        .push(".")
        .push(field)
        .push(": offset differs from the Rust declaration\");\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_pointers_are_written_out() {
        const T: ConstText<64> = field(ConstText::new(), "float", 2, "x", &[0, 32764]);
        assert_eq!(T.as_str(), "    float** x[0][32764];\n");
    }

    #[test]
    fn text_past_the_capacity_is_dropped_and_said() {
        let t = ConstText::<8>::new().push("1234").push("56789");
        assert_eq!(t.as_str(), "1234");
        assert!(t.overflowed());
        let t = ConstText::<4>::new().push_usize(12345);
        assert!(t.overflowed() && t.as_str().is_empty());
    }
}
