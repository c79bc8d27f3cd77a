//! The C layout rule, once: where a field or parameter lands after the ones before it, and the
//! size and alignment of a struct. The runtime's `ParamLayout` and derived structs, and the build
//! step's generated C declarations, all compute through these `const fn`s.
//!
//! ```
//! use cuda_kernel_syntax::layout::Cursor;
//! // struct { char c; float4 v; short s; }: fields at 0, 16, 32; 48 bytes, aligned to 16.
//! let cursor = Cursor::START;
//! let (c, cursor) = cursor.place(1, 1);
//! let (v, cursor) = cursor.place(16, 16);
//! let (s, cursor) = cursor.place(2, 2);
//! assert_eq!((c, v, s), (0, 16, 32));
//! assert_eq!(cursor.end(), 34); // a parameter buffer stops here
//! assert_eq!(cursor.struct_size(1), 48); // a struct rounds up to its alignment
//! assert_eq!(cursor.struct_align(1), 16);
//! ```

/// How far a layout has got: the end of the last placed member and the largest alignment seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    end: usize,
    align: usize,
}

impl Cursor {
    /// Nothing placed yet.
    pub const START: Cursor = Cursor { end: 0, align: 1 };

    /// Places a member of `size` bytes aligned to `align` (a power of two): it lands at the end
    /// of the previous one rounded up to `align`. Returns its offset and the cursor after it.
    ///
    /// # Panics
    ///
    /// When `align` is not a power of two (a compile error in a `const`).
    pub const fn place(self, size: usize, align: usize) -> (usize, Cursor) {
        assert!(
            align.is_power_of_two(),
            "kernel parameter alignment must be a power of two"
        );
        let offset = self.end.next_multiple_of(align);
        let align = if align > self.align {
            align
        } else {
            self.align
        };
        (
            offset,
            Cursor {
                end: offset + size,
                align,
            },
        )
    }

    /// One past the last placed byte: the size of a parameter buffer, which has no tail padding
    /// (the driver refuses a padded size).
    pub const fn end(self) -> usize {
        self.end
    }

    /// The most aligned member's alignment (1 when nothing was placed).
    pub const fn align(self) -> usize {
        self.align
    }

    /// A C struct's alignment: its most aligned field's, or `repr_align` (`alignas`,
    /// `#[repr(align(N))]`, 1 without) if larger.
    pub const fn struct_align(self, repr_align: usize) -> usize {
        if repr_align > self.align {
            repr_align
        } else {
            self.align
        }
    }

    /// A C struct's size: the end of its last field rounded up to its alignment.
    pub const fn struct_size(self, repr_align: usize) -> usize {
        self.end.next_multiple_of(self.struct_align(repr_align))
    }
}

/// The most parameters (or arguments) generated code puts in one tuple: the runtime implements
/// its argument traits for tuples up to this length, and a longer signature is a tuple of
/// tuples.
pub const MAX_TUPLE: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_programming_guide_example() {
        // (int, float4, char, float): offsets 0, 16, 32, 36 and 40 bytes.
        let mut cursor = Cursor::START;
        let mut offsets = Vec::new();
        for (size, align) in [(4, 4), (16, 16), (1, 1), (4, 4)] {
            let (offset, next) = cursor.place(size, align);
            offsets.push(offset);
            cursor = next;
        }
        assert_eq!(offsets, [0, 16, 32, 36]);
        assert_eq!((cursor.end(), cursor.align()), (40, 16));
    }

    #[test]
    fn structs_round_up_and_take_repr_align() {
        let (_, c) = Cursor::START.place(8, 8);
        let (_, c) = c.place(1, 1);
        assert_eq!((c.end(), c.struct_size(1), c.struct_align(1)), (9, 16, 8));
        assert_eq!((c.struct_size(32), c.struct_align(32)), (32, 32));
        assert_eq!(Cursor::START.struct_size(1), 0);
    }
}
