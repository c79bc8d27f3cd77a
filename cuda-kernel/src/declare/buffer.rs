//! The parameter buffer of one launch, and the `extra` array that hands it to the driver, for
//! launches and graph node updates alike.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::{KernelParam, ParamLayout, ParamSlot};

/// The packed parameters of one launch, as passed to `cuLaunchKernel` through
/// `CU_LAUNCH_PARAM_BUFFER_POINTER`.
///
/// `N` is a signature's [`ParamLayout::size`](crate::ParamLayout::size), so the buffer lives on the stack. It starts
/// zeroed: padding between parameters reaches the device as zeros. For packing a signature
/// known as constants (a generated `pack` returns a [`ParamBytes`], sized when made):
///
/// ```
/// use cuda_kernel::{ParamBuffer, ParamLayout, ParamSlot};
/// const SLOTS: [ParamSlot; 2] = ParamLayout::place([ParamSlot::of::<u8>("a"), ParamSlot::of::<f32>("b")]);
/// const LAYOUT: ParamLayout = ParamLayout::from_slots(&SLOTS);
/// let mut buf = ParamBuffer::<{ LAYOUT.size }>::new();
/// buf.put(&LAYOUT.params[1], &2.0f32);
/// assert_eq!(buf.bytes(), [0, 0, 0, 0, 0, 0, 0, 64]);
/// ```
#[repr(C, align(16))]
pub struct ParamBuffer<const N: usize>([u8; N]);

impl<const N: usize> ParamBuffer<N> {
    /// A zeroed buffer.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub const fn new() -> Self {
        ParamBuffer([0; N])
    }

    /// Writes `value` into `slot`, which must lie inside the buffer (it panics otherwise, as
    /// slicing does; generated code only passes slots of its own layout).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn put<T: KernelParam>(&mut self, slot: &ParamSlot, value: &T) {
        put(&mut self.0, slot, value);
    }

    /// The packed bytes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The packed bytes, for the driver.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> Default for ParamBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The packed parameters of one launch, sized when made: what a launch packs into (on the
/// stack) and a generated `pack` returns.
///
/// Up to [`INLINE`](Self::INLINE) bytes (the 4 KiB every driver takes) live in the value
/// itself, of which only the first `len` are written (zeroed, so padding between parameters
/// reaches the device as zeros); a larger signature (CUDA 12.1+ drivers take up to 32764 bytes)
/// is packed on the heap.
///
/// ```
/// #[cuda_kernel::kernel]
/// unsafe extern "C" {
///     fn scale(x: *mut f32, a: f32, n: u32);
/// }
/// let buf = Scale::pack(0x7f00_0000_1000, 2.0, 3);
/// assert_eq!(buf.bytes().len(), Scale::LAYOUT.size);
/// assert_eq!(buf.bytes()[..8], 0x7f00_0000_1000u64.to_le_bytes());
/// assert_eq!(buf.bytes()[8..12], 2.0f32.to_le_bytes());
/// assert_eq!(buf.bytes()[12..], 3u32.to_le_bytes());
/// ```
pub struct ParamBytes {
    inline: Inline,
    heap: Vec<u8>,
    len: usize,
}

/// The inline bytes, aligned as the driver reads a parameter buffer.
#[repr(C, align(16))]
struct Inline([core::mem::MaybeUninit<u8>; ParamBytes::INLINE]);

impl ParamBytes {
    /// Bytes kept in the value itself; a larger buffer is on the heap.
    pub const INLINE: usize = crate::MAX_PARAM_BYTES_LEGACY;

    /// `len` zeroed bytes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn new(len: usize) -> Self {
        let mut bytes = ParamBytes {
            inline: Inline([core::mem::MaybeUninit::uninit(); ParamBytes::INLINE]),
            heap: Vec::new(),
            len,
        };
        if len > ParamBytes::INLINE {
            bytes.heap = vec![0; len];
        } else {
            // SAFETY: `len` bytes lie inside the inline array; zeroing them initializes them.
            unsafe { core::ptr::write_bytes(bytes.inline.0.as_mut_ptr(), 0, len) };
        }
        bytes
    }

    /// Writes `value` into `slot`, which must lie inside the buffer (it panics otherwise).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn put<T: KernelParam>(&mut self, slot: &ParamSlot, value: &T) {
        put(self.bytes_mut(), slot, value);
    }

    /// The packed bytes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bytes(&self) -> &[u8] {
        if self.len > ParamBytes::INLINE {
            &self.heap
        } else {
            // SAFETY: the first `len` inline bytes were initialized by `new`.
            unsafe { core::slice::from_raw_parts(self.inline.0.as_ptr().cast::<u8>(), self.len) }
        }
    }

    /// The packed bytes, for the driver.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        if self.len > ParamBytes::INLINE {
            &mut self.heap
        } else {
            // SAFETY: as in `bytes`.
            unsafe {
                core::slice::from_raw_parts_mut(self.inline.0.as_mut_ptr().cast::<u8>(), self.len)
            }
        }
    }
}

impl core::fmt::Debug for ParamBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("ParamBytes").field(&self.bytes()).finish()
    }
}

/// Writes `value` into `slot` of the packed bytes `out` (panics, as slicing does, for a slot
/// outside them; generated code only passes slots of its own layout).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn put<T: KernelParam>(out: &mut [u8], slot: &ParamSlot, value: &T) {
    value.write(&mut out[slot.offset..slot.offset + T::SIZE]);
}

/// The `extra` array that passes `params` as one buffer (`CU_LAUNCH_PARAM_BUFFER_POINTER`,
/// `CU_LAUNCH_PARAM_BUFFER_SIZE`, `CU_LAUNCH_PARAM_END`); `size` holds `params.len()` and must
/// outlive every use of the array.
pub(crate) fn buffer_extra(params: &mut [u8], size: &mut usize) -> [*mut c_void; 5] {
    [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        params.as_mut_ptr().cast::<c_void>(),
        sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        std::ptr::from_mut(size).cast::<c_void>(),
        sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ]
}

/// The pointer to hand the driver as `extra`: null for a kernel without parameters, for which
/// the driver refuses a buffer (a size of 0 is CUDA_ERROR_INVALID_VALUE).
pub(crate) fn extra_or_null(extra: &mut [*mut c_void; 5], params: &[u8]) -> *mut *mut c_void {
    if params.is_empty() {
        std::ptr::null_mut()
    } else {
        extra.as_mut_ptr()
    }
}

/// One pointer per parameter into a packed buffer (`kernelParams`): what graph kernel nodes and
/// cooperative launches take instead of a buffer. On the stack for up to 32 parameters.
pub(crate) struct ParamPointers {
    on_stack: [*mut c_void; 32],
    on_heap: Vec<*mut c_void>,
    len: usize,
}

impl ParamPointers {
    /// Pointers to each parameter of `layout` in `params`, packed for that layout.
    pub(crate) fn new(layout: &ParamLayout, params: &mut [u8]) -> ParamPointers {
        let base = params.as_mut_ptr();
        let mut pointers = ParamPointers {
            on_stack: [std::ptr::null_mut(); 32],
            on_heap: Vec::new(),
            len: layout.params.len(),
        };
        for (i, slot) in layout.params.iter().enumerate() {
            assert!(slot.end() <= params.len(), "a parameter outside its buffer");
            // SAFETY: the slot lies inside the buffer (asserted).
            let pointer = unsafe { base.add(slot.offset) }.cast::<c_void>();
            match pointers.on_stack.get_mut(i) {
                Some(entry) if pointers.len <= 32 => *entry = pointer,
                _ => pointers.on_heap.push(pointer),
            }
        }
        pointers
    }

    /// The array for the driver: null for a kernel without parameters.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        if self.len == 0 {
            std::ptr::null_mut()
        } else if self.len <= 32 {
            self.on_stack.as_mut_ptr()
        } else {
            self.on_heap.as_mut_ptr()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Float4, ParamLayout};

    #[test]
    fn buffer_packs_each_value_at_its_slot_and_zeroes_padding() {
        static SLOTS: [ParamSlot; 3] = ParamLayout::place([
            ParamSlot::of::<u8>("c"),
            ParamSlot::of::<Float4>("v"),
            ParamSlot::of::<u16>("s"),
        ]);
        const LAYOUT: ParamLayout = ParamLayout::from_slots(&SLOTS);
        let mut buf = ParamBuffer::<{ LAYOUT.size }>::new();
        buf.put(&LAYOUT.params[0], &0xabu8);
        buf.put(&LAYOUT.params[1], &Float4::new(1.0, 2.0, 3.0, 4.0));
        buf.put(&LAYOUT.params[2], &0x0102u16);
        let b = buf.bytes();
        assert_eq!(b.len(), 34);
        assert_eq!(b[0], 0xab);
        assert!(b[1..16].iter().all(|&x| x == 0), "padding must be zero");
        assert_eq!(b[16..20], 1.0f32.to_le_bytes());
        assert_eq!(b[28..32], 4.0f32.to_le_bytes());
        assert_eq!(b[32..34], [0x02, 0x01]);
    }
}
