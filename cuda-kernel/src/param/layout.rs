//! Parameter layouts: where each kernel parameter sits in the launch's parameter buffer, placed
//! by the C layout rule of `cuda_kernel_syntax::layout`.

use cuda_kernel_syntax::layout::Cursor;

/// Largest parameter buffer a kernel can take on Volta or newer with CUDA 12.1+ (driver R530+).
///
/// Older GPUs and drivers allow 4,096 bytes ([`MAX_PARAM_BYTES_LEGACY`]). A declaration whose
/// parameters exceed this limit does not compile.
pub const MAX_PARAM_BYTES: usize = 32_764;

/// Parameter space of GPUs older than Volta, and of any GPU under a driver older than CUDA 12.1.
pub const MAX_PARAM_BYTES_LEGACY: usize = 4_096;

/// Largest alignment whose buffer offset is the same on every GPU architecture.
///
/// Parameters aligned to 32 bytes or more land at offsets that depend on where the GPU's constant
/// bank starts, so a layout computed on the host is only sound up to this alignment: from the
/// first parameter aligned above it, the offsets are the loaded function's
/// ([`ParamLayout::fixed`]).
pub const MAX_STATIC_ALIGN: usize = 16;

/// Largest alignment a kernel parameter may have: a TMA descriptor's (`CUtensorMap`, aligned to
/// 128 bytes by CUDA 13's `cuda.h`).
pub const MAX_ALIGN: usize = 128;

/// One parameter of a kernel: its name and where its bytes go in the parameter buffer.
///
/// ```
/// use cuda_kernel::ParamSlot;
/// let slot = ParamSlot::of::<f32>("scale");
/// assert_eq!((slot.size, slot.align), (4, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamSlot {
    /// The parameter's name in the declaration.
    pub name: &'static str,
    /// Byte offset of the parameter in the buffer.
    pub offset: usize,
    /// Size of the parameter on the device, in bytes.
    pub size: usize,
    /// Alignment of the parameter on the device, in bytes.
    pub align: usize,
    /// How CUDA C spells the parameter's type (for an array field, its element type).
    pub ty: crate::CType,
}

impl ParamSlot {
    /// A slot for a parameter of type `T`, not yet placed (offset 0).
    ///
    /// [`ParamLayout::place`] gives each slot of a signature its offset.
    pub const fn of<T: crate::KernelParam>(name: &'static str) -> ParamSlot {
        ParamSlot {
            name,
            offset: 0,
            size: T::SIZE,
            align: T::ALIGN,
            ty: T::CUDA_TYPE,
        }
    }

    /// One past the last byte of the parameter: `offset + size`.
    pub const fn end(&self) -> usize {
        self.offset + self.size
    }
}

/// The layout of a declared signature, each parameter named by a string, computed at compile
/// time: what a generated `LAYOUT` is (`layout!("a": *const f32, "n": u32)`). Only in a
/// constant's initializer, where the placed slots are promoted to a `'static` (an inline
/// `const { .. }` block would do the same as one more item per declaration to compile).
#[doc(hidden)]
#[macro_export]
macro_rules! __layout {
    ($($name:literal: $ty:ty),* $(,)?) => {
        $crate::ParamLayout::from_slots(
            &$crate::ParamLayout::place([$($crate::ParamSlot::of::<$ty>($name)),*]),
        )
    };
}

/// The parameter buffer of one kernel signature, computed at compile time.
///
/// Each parameter sits at the previous one's end rounded up to its own alignment, starting at 0,
/// in declaration order; [`size`](Self::size) is the last parameter's end, with no tail padding
/// (the driver rejects a padded size with `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`).
///
/// That rule holds on every GPU up to an alignment of 16 bytes. A parameter aligned above it (a
/// TMA descriptor, a `#[repr(C, align(64))]` struct) lands where the GPU's constant bank puts
/// it, which differs between architectures: from the first such parameter on, the offsets
/// computed here are the C rule's, and a launch uses the loaded function's, which the driver
/// reports (`cuFuncGetParamInfo`) and the load keeps ([`fixed`](Self::fixed) says where the
/// constant part ends; [`Loaded::layout`](crate::Loaded::layout) is the placed layout).
///
/// ```
/// use cuda_kernel::{Float4, ParamLayout, ParamSlot};
/// // The Programming Guide's example: (int, float4, char, float)
/// const SLOTS: [ParamSlot; 4] = ParamLayout::place([
///     ParamSlot::of::<i32>("i"),
///     ParamSlot::of::<Float4>("f4"),
///     ParamSlot::of::<i8>("c"),
///     ParamSlot::of::<f32>("f"),
/// ]);
/// const LAYOUT: ParamLayout = ParamLayout::from_slots(&SLOTS);
/// let offsets: Vec<usize> = LAYOUT.params.iter().map(|p| p.offset).collect();
/// assert_eq!(offsets, [0, 16, 32, 36]);
/// assert_eq!(LAYOUT.size, 40);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamLayout {
    /// Bytes the buffer holds: the last parameter's offset plus its size (0 without parameters).
    pub size: usize,
    /// Largest alignment among the parameters (1 without parameters).
    pub align: usize,
    /// The parameters in declaration order.
    pub params: &'static [ParamSlot],
    /// How many leading parameters sit at the same offset on every GPU: all of them, but for a
    /// signature with a parameter aligned above [`MAX_STATIC_ALIGN`], the ones before it. The
    /// rest are placed by the loaded function.
    pub fixed: usize,
}

impl ParamLayout {
    /// The layout of a kernel without parameters.
    pub const EMPTY: ParamLayout = ParamLayout {
        size: 0,
        align: 1,
        params: &[],
        fixed: 0,
    };

    /// Gives each slot its offset: the previous slot's end rounded up to the slot's alignment.
    ///
    /// This is the rule for a parameter buffer and for the fields of a C struct alike. Fails to
    /// evaluate (a compile error in a `const`) when an alignment is not a power of two.
    ///
    /// # Panics
    ///
    /// Called at run time, it panics when an alignment is not a power of two.
    pub const fn place<const N: usize>(mut slots: [ParamSlot; N]) -> [ParamSlot; N] {
        Self::place_in(&mut slots);
        slots
    }

    /// [`place`](Self::place) for slots in a slice, as when a signature is only known at run time.
    ///
    /// # Panics
    ///
    /// When an alignment is not a power of two.
    pub const fn place_in(slots: &mut [ParamSlot]) {
        let mut cursor = Cursor::START;
        let mut i = 0;
        while i < slots.len() {
            let (offset, next) = cursor.place(slots[i].size, slots[i].align);
            slots[i].offset = offset;
            cursor = next;
            i += 1;
        }
    }

    /// The layout of a signature whose slots were placed by [`place`](Self::place).
    ///
    /// Fails to evaluate (a compile error in a `const`) when the parameters exceed
    /// [`MAX_PARAM_BYTES`], or when one is aligned above [`MAX_ALIGN`].
    ///
    /// # Panics
    ///
    /// Called at run time (for a signature known only then), it panics in those cases.
    pub const fn from_slots(params: &'static [ParamSlot]) -> ParamLayout {
        let cursor = replay(params);
        let (size, align) = (cursor.end(), cursor.align());
        assert!(
            align <= MAX_ALIGN,
            "a kernel parameter is aligned to more than 128 bytes (a TMA descriptor's alignment), which cuda-kernel does not pass by value: pass it through device memory as *const T"
        );
        assert!(
            size <= MAX_PARAM_BYTES,
            "kernel parameters exceed the 32764 bytes a launch can pass: pass large data through device memory as *const T"
        );
        let mut fixed = 0;
        while fixed < params.len() && params[fixed].align <= MAX_STATIC_ALIGN {
            fixed += 1;
        }
        ParamLayout {
            size,
            align,
            params,
            fixed,
        }
    }

    /// Whether every parameter sits at the same offset on every GPU (none is aligned above
    /// [`MAX_STATIC_ALIGN`]): then this layout is the one every launch uses.
    pub const fn is_fixed(&self) -> bool {
        self.fixed == self.params.len()
    }

    /// This layout with the offsets the driver reports for a loaded function (`(offset, size)`
    /// per parameter), for a signature that is not [fixed](Self::is_fixed): the parameters
    /// before [`fixed`](Self::fixed) must sit where this layout puts them, each later one must
    /// have its declared size, start at or after its predecessor's end and end within
    /// [`MAX_PARAM_BYTES`]. `None` where one does not.
    ///
    /// The placed slots live for the rest of the process, shared by every function placed the
    /// same way (one per signature and GPU architecture, however often it is loaded).
    pub fn placed(&self, loaded: &[(usize, usize)]) -> Option<ParamLayout> {
        if self.misfit(loaded).is_some() {
            return None;
        }
        let mut slots = self.params.to_vec();
        for (slot, &(offset, _)) in slots.iter_mut().zip(loaded) {
            slot.offset = offset;
        }
        Some(ParamLayout {
            size: slots.last().map_or(0, ParamSlot::end),
            align: self.align,
            params: intern(slots),
            fixed: self.params.len(),
        })
    }

    /// The first parameter that the driver's `(offset, size)` of each parameter of a loaded
    /// function do not fit (see [`placed`](Self::placed)); the parameter count where the counts
    /// differ; `None` where every parameter fits.
    pub fn misfit(&self, loaded: &[(usize, usize)]) -> Option<usize> {
        let mut end = 0;
        for (i, (slot, &(offset, size))) in self.params.iter().zip(loaded).enumerate() {
            // The constant bank starts at a multiple of 16 on every GPU: a parameter after
            // one placed by the GPU still sits at a multiple of its alignment, up to 16.
            let fits = if i < self.fixed {
                offset == slot.offset
            } else {
                offset >= end && offset % slot.align.min(MAX_STATIC_ALIGN) == 0
            };
            if !fits || size != slot.size || offset.saturating_add(size) > MAX_PARAM_BYTES {
                return Some(i);
            }
            end = offset + size;
        }
        (loaded.len() != self.params.len()).then_some(self.params.len().min(loaded.len()))
    }

    /// The slot of the parameter called `name`, if there is one.
    pub fn param(&self, name: &str) -> Option<&ParamSlot> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// `slots` for the rest of the process, the same slice for the same slots.
fn intern(slots: Vec<ParamSlot>) -> &'static [ParamSlot] {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static PLACED: OnceLock<Mutex<HashSet<&'static [ParamSlot]>>> = OnceLock::new();
    let mut placed = PLACED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(known) = placed.get(slots.as_slice()) {
        return known;
    }
    let slots: &'static [ParamSlot] = Vec::leak(slots);
    placed.insert(slots);
    slots
}

/// Where a layout of the already placed `slots` ends: placing them again gives the same offsets.
const fn replay(slots: &[ParamSlot]) -> Cursor {
    let mut cursor = Cursor::START;
    let mut i = 0;
    while i < slots.len() {
        cursor = cursor.place(slots[i].size, slots[i].align).1;
        i += 1;
    }
    cursor
}

/// Size of a C struct whose fields were placed by [`ParamLayout::place`]: the end of the last
/// field rounded up to the struct's alignment (see [`struct_align`]).
pub const fn struct_size(fields: &[ParamSlot], repr_align: usize) -> usize {
    replay(fields).struct_size(repr_align)
}

/// Alignment of a C struct: its most aligned field's, or `repr_align` (`#[repr(align(N))]`,
/// 1 without) if larger.
pub const fn struct_align(fields: &[ParamSlot], repr_align: usize) -> usize {
    replay(fields).struct_align(repr_align)
}

impl core::fmt::Display for ParamLayout {
    /// `(a@0:8, n@8:4) = 12 bytes`: each parameter as `name@offset:size`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}@{}:{}", p.name, p.offset, p.size)?;
        }
        write!(f, ") = {} bytes", self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Double2, Float2, Float4, Int2};
    use half::f16;

    fn layout<const N: usize>(slots: [ParamSlot; N]) -> Vec<(usize, usize)> {
        ParamLayout::place(slots)
            .iter()
            .map(|s| (s.offset, s.size))
            .collect()
    }

    #[test]
    fn programming_guide_example_extended() {
        // (int, float4, char, float, CUdeviceptr, float2, double, __half, double2): the offsets
        // nvcc gives the echo_guide kernel (kernels/cuda/echo.cu).
        let slots = ParamLayout::place([
            ParamSlot::of::<i32>("i"),
            ParamSlot::of::<Float4>("f4"),
            ParamSlot::of::<i8>("c"),
            ParamSlot::of::<f32>("f"),
            ParamSlot::of::<u64>("p"),
            ParamSlot::of::<Float2>("f2"),
            ParamSlot::of::<f64>("d"),
            ParamSlot::of::<f16>("h"),
            ParamSlot::of::<Double2>("d2"),
        ]);
        let got: Vec<_> = slots.iter().map(|s| (s.offset, s.size)).collect();
        assert_eq!(
            got,
            [
                (0, 4),
                (16, 16),
                (32, 1),
                (36, 4),
                (40, 8),
                (48, 8),
                (56, 8),
                (64, 2),
                (80, 16)
            ]
        );
    }

    #[test]
    fn size_has_no_tail_padding() {
        static SLOTS: [ParamSlot; 2] =
            ParamLayout::place([ParamSlot::of::<f64>("d"), ParamSlot::of::<u8>("b")]);
        let l = ParamLayout::from_slots(&SLOTS);
        assert_eq!(
            l.size, 9,
            "size must stop at the last byte, not round up to 16"
        );
        assert_eq!(l.align, 8);
    }

    #[test]
    fn every_scalar_after_a_byte_is_rounded_to_its_alignment() {
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<u16>("b")]),
            [(0, 1), (2, 2)]
        );
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<f32>("b")]),
            [(0, 1), (4, 4)]
        );
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<i64>("b")]),
            [(0, 1), (8, 8)]
        );
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<Int2>("b")]),
            [(0, 1), (8, 8)]
        );
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<Float4>("b")]),
            [(0, 1), (16, 16)]
        );
        assert_eq!(
            layout([ParamSlot::of::<u8>("a"), ParamSlot::of::<*const f64>("b")]),
            [(0, 1), (8, 8)]
        );
        assert_eq!(
            layout([ParamSlot::of::<bool>("a"), ParamSlot::of::<f16>("b")]),
            [(0, 1), (2, 2)]
        );
    }

    /// `(u32 a, CUtensorMap m, u8 *out)` as the C rule places it (0, 128, 256) and as an H100
    /// does (0, 112, 240: `cuFuncGetParamInfo`, driver 580).
    #[test]
    fn a_layout_with_a_parameter_aligned_above_16_takes_the_drivers_offsets() {
        static SLOTS: [ParamSlot; 3] = ParamLayout::place([
            ParamSlot::of::<u32>("a"),
            ParamSlot::of::<crate::RawTensorMap>("m"),
            ParamSlot::of::<*mut u8>("out"),
        ]);
        let declared = ParamLayout::from_slots(&SLOTS);
        assert_eq!(
            (declared.fixed, declared.size, declared.align),
            (1, 264, 128)
        );
        assert!(!declared.is_fixed());
        let h100 = [(0, 4), (112, 128), (240, 8)];
        let placed = declared.placed(&h100).unwrap();
        assert!(placed.is_fixed());
        assert_eq!(
            placed.to_string(),
            "(a@0:4, m@112:128, out@240:8) = 248 bytes"
        );
        // The same placement twice shares its slots.
        assert!(core::ptr::eq(
            placed.params,
            declared.placed(&h100).unwrap().params
        ));
        // What cannot be: `a` moved, `m` overlapping `a`, `out` off 8, a size changed, a
        // parameter missing or added.
        for wrong in [
            &[(4, 4), (112, 128), (240, 8)][..],
            &[(0, 4), (0, 128), (240, 8)],
            &[(0, 4), (112, 128), (244, 8)],
            &[(0, 4), (112, 64), (240, 8)],
            &[(0, 4), (112, 128)],
            &[(0, 4), (112, 128), (240, 8), (248, 8)],
        ] {
            assert_eq!(declared.placed(wrong), None, "{wrong:?}");
            assert!(declared.misfit(wrong).is_some());
        }
        assert_eq!(declared.misfit(&h100), None);
        assert_eq!(declared.misfit(&[(0, 4), (0, 128), (240, 8)]), Some(1));
    }

    #[test]
    fn empty_layout() {
        static SLOTS: [ParamSlot; 0] = ParamLayout::place([]);
        assert_eq!(ParamLayout::from_slots(&SLOTS), ParamLayout::EMPTY);
    }

    #[test]
    fn display_names_offsets_and_sizes() {
        static SLOTS: [ParamSlot; 2] =
            ParamLayout::place([ParamSlot::of::<*const f32>("a"), ParamSlot::of::<u32>("n")]);
        let l = ParamLayout::from_slots(&SLOTS);
        assert_eq!(l.to_string(), "(a@0:8, n@8:4) = 12 bytes");
        assert_eq!(l.param("n").map(|p| p.offset), Some(8));
        assert_eq!(l.param("m"), None);
    }
}
