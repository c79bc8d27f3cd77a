//! What a pointer parameter's launcher argument can be: device memory cudarc knows, or
//! [`Null`] for a pointer the kernel allows to be NULL.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop,
    UnifiedSlice, UnifiedView, UnifiedViewMut,
};

/// Device memory a `*const T` parameter reads: a `CudaSlice<T>`, `CudaView<T>` or
/// `CudaViewMut<T>` (and cudarc's unified-memory slices and views), [`Null`], or an `Option`
/// of one (`None` is NULL). Implement it
/// for a device-memory type of your own through its cudarc `DevicePtr<T>`.
///
/// Taking the address orders `stream` after earlier writes to the memory, as cudarc's own
/// launches do; the returned guard records the launch when dropped, after it is queued.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` for a `*const {T}` parameter",
    label = "expected `&CudaSlice<{T}>`, `&CudaView<{T}>` or `&Null`",
    note = "pointer parameters take cudarc device memory of their element type; host data gets there by copying it: `stream.clone_htod(&host)?`"
)]
pub trait DeviceArg<T> {
    /// The device address, and the guard that keeps cudarc's event tracking right.
    fn device_arg<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>);

    /// Refuses a launch on `stream` that this memory cannot take part in (memory of another
    /// context: [`Error::WrongContext`](crate::Error::WrongContext)); called for every pointer
    /// argument before anything is borrowed or launched. Nothing to check by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        let _ = stream;
        Ok(())
    }

    /// The memory's length in elements of `T`, where known: what the launch log and launch
    /// errors show next to its address ([`diagnostics`](crate::diagnostics)). Read only while
    /// the log or the verify mode is on. `None` by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn element_count(&self) -> Option<usize> {
        None
    }
}

/// Device memory whose length a contract may rely on: its `element_count` (and
/// `element_count_mut`) is exact, and `is_null` says whether it is NULL. A launcher with a
/// contract (`#[requires(...)]`) takes only such memory for its pointer parameters, since the
/// contract is checked against those lengths. cudarc's slices and views, [`Null`], `Option`s
/// of them and [`DeviceMemory`] are.
///
/// # Safety
///
/// Where `element_count` (or `element_count_mut`) returns `Some(n)`, the address the launch
/// passes holds at least `n` elements of `T`, valid for the launch; `is_null` is `true` only
/// where that address is 0.
///
/// ```
/// use cuda_kernel::{DeviceArg, ExactLength, Null};
/// use cuda_kernel::cudarc::driver::{CudaStream, SyncOnDrop, sys::CUdeviceptr};
///
/// /// A tensor's storage: a cudarc slice and the element count it was made for.
/// struct Storage(cuda_kernel::cudarc::driver::CudaSlice<f32>);
///
/// impl DeviceArg<f32> for Storage {
///     fn device_arg<'a>(&'a self, s: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
///         self.0.device_arg(s)
///     }
///     fn element_count(&self) -> Option<usize> {
///         self.0.element_count()
///     }
/// }
/// // SAFETY: the length is the cudarc slice's own.
/// unsafe impl ExactLength for Storage {}
/// assert!(ExactLength::is_null(&Null));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not vouch for its length, which this launch's contract checks",
    label = "a kernel with #[requires] takes memory of exact length",
    note = "cudarc's slices and views, `Null`, `Option`s of them and `DeviceMemory` are `ExactLength`; for a type of your own whose `element_count` is exact, `unsafe impl cuda_kernel::ExactLength for {Self} {{}}`"
)]
pub unsafe trait ExactLength {
    /// Whether the memory is NULL ([`Null`], or `None`): what a contract's `p.is_null()` reads.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is_null(&self) -> bool {
        false
    }
}

// SAFETY: cudarc's slices and views report their own length, in elements of their type.
unsafe impl<T> ExactLength for CudaSlice<T> {}
// SAFETY: as above.
unsafe impl<T> ExactLength for CudaView<'_, T> {}
// SAFETY: as above.
unsafe impl<T> ExactLength for CudaViewMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T> ExactLength for UnifiedSlice<T> {}
// SAFETY: as above.
unsafe impl<T> ExactLength for UnifiedView<'_, T> {}
// SAFETY: as above.
unsafe impl<T> ExactLength for UnifiedViewMut<'_, T> {}

// SAFETY: NULL, with no elements.
unsafe impl ExactLength for Null {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is_null(&self) -> bool {
        true
    }
}

// SAFETY: `None` is NULL with no elements; `Some` is the memory's own.
unsafe impl<A: ExactLength> ExactLength for Option<A> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is_null(&self) -> bool {
        self.as_ref().is_none_or(A::is_null)
    }
}

// SAFETY: `from_raw`'s caller vouched for the length.
unsafe impl<T> ExactLength for DeviceMemory<T> {}

/// Device memory a `*mut T` parameter writes: a `CudaSlice<T>` or `CudaViewMut<T>` (and
/// cudarc's unified-memory slice and mutable view), borrowed mutably, or [`Null`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not writable device memory of `{T}` for a `*mut {T}` parameter",
    label = "expected `&mut CudaSlice<{T}>`, `&mut CudaViewMut<{T}>` or `&mut Null`",
    note = "pointer parameters take cudarc device memory of their element type; host data gets there by copying it: `stream.clone_htod(&host)?`"
)]
pub trait DeviceArgMut<T> {
    /// The device address, and the guard that keeps cudarc's event tracking right.
    fn device_arg_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>);

    /// As [`DeviceArg::check`], for memory the kernel writes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        let _ = stream;
        Ok(())
    }

    /// As [`DeviceArg::element_count`], for memory the kernel writes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn element_count_mut(&self) -> Option<usize> {
        None
    }
}

/// cudarc's guard, or none where it has nothing to record: memory allocated with event tracking
/// off has no event (`Record(None)`), whose drop does nothing, so it is not kept to be dropped
/// after the launch.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn guard(sync: SyncOnDrop<'_>) -> Option<SyncOnDrop<'_>> {
    if let SyncOnDrop::Record(None) = sync {
        // Holds no event and no stream: forgetting it skips a drop that would do nothing.
        std::mem::forget(sync);
        return None;
    }
    Some(sync)
}

// One impl per cudarc type rather than a blanket impl over `DevicePtr<T>`, which would leave no
// room for `Null` (cudarc could add a blanket impl of its own).
macro_rules! device_memory {
    (read: $($ty:ty),*; write: $($mut_ty:ty),*) => {
        $(
            impl<T> DeviceArg<T> for $ty {
                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn device_arg<'a>(
                    &'a self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    let (ptr, sync) = DevicePtr::device_ptr(self, stream);
                    (ptr, guard(sync))
                }

                #[inline]
                fn element_count(&self) -> Option<usize> {
                    Some(DeviceSlice::len(self))
                }
            }
        )*
        $(
            impl<T> DeviceArgMut<T> for $mut_ty {
                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn device_arg_mut<'a>(
                    &'a mut self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    let (ptr, sync) = DevicePtrMut::device_ptr_mut(self, stream);
                    (ptr, guard(sync))
                }

                #[inline]
                fn element_count_mut(&self) -> Option<usize> {
                    Some(DeviceSlice::len(self))
                }
            }
        )*
    };
}

device_memory! {
    read: CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>, UnifiedSlice<T>, UnifiedView<'_, T>,
        UnifiedViewMut<'_, T>;
    write: CudaSlice<T>, CudaViewMut<'_, T>, UnifiedSlice<T>, UnifiedViewMut<'_, T>
}

/// NULL for a pointer parameter the kernel allows to be NULL (an optional bias, optional
/// strides): `&Null` for a `*const T` parameter, `&mut Null` for a `*mut T` one, of any `T`.
///
/// ```
/// use cuda_kernel::{Null, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     /// y = x W (+ bias, when bias is not NULL)
///     fn linear(x: *const f32, w: *const f32, bias: *const f32, y: *mut f32, n: u32);
/// }
///
/// // What a launch with `&Null` for the bias sends: address 0 in its slot.
/// let buf = Linear::pack(0x1000, 0x2000, 0, 0x3000, 8);
/// assert_eq!(buf.bytes()[16..24], [0; 8]);
/// # fn launch(k: &Linear, s: &cuda_kernel::cudarc::driver::CudaStream,
/// #     x: &cuda_kernel::cudarc::driver::CudaSlice<f32>,
/// #     w: &cuda_kernel::cudarc::driver::CudaSlice<f32>,
/// #     y: &mut cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// unsafe { k.launch(s, cuda_kernel::Config::for_elements(8, 8), x, w, &Null, y, 8) }
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Null;

impl<T> DeviceArg<T> for Null {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn element_count(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T> DeviceArgMut<T> for Null {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn element_count_mut(&self) -> Option<usize> {
        Some(0)
    }
}

/// `None` is NULL, `Some(memory)` the memory: an optional operand chosen at run time, such as
/// strides that are only passed for a non-contiguous tensor (candle's `SlicePtrOrNull`).
///
/// ```
/// use std::sync::Arc;
/// use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
/// use cuda_kernel::{Config, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     /// `info`: dims and strides, or NULL for contiguous input.
///     fn ucopy_f32(numel: usize, num_dims: usize, info: *const usize, x: *const f32, y: *mut f32);
/// }
///
/// # fn f(k: &UcopyF32, s: &Arc<CudaStream>, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>,
/// #     strided: bool) -> Result<(), cuda_kernel::Error> {
/// let info: Option<CudaSlice<usize>> =
///     if strided { Some(s.clone_htod(&[2, 2, 1, 2])?) } else { None };
/// unsafe { k.launch(s, Config::for_elements(4, 4), 4, 2, &info, x, y) }
/// # }
/// ```
impl<T, A: DeviceArg<T>> DeviceArg<T> for Option<A> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg(stream),
            None => (0, None),
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        match self {
            Some(memory) => memory.check(stream),
            None => Ok(()),
        }
    }

    #[inline]
    fn element_count(&self) -> Option<usize> {
        self.as_ref().map_or(Some(0), A::element_count)
    }
}

/// `None` is NULL, `Some(memory)` the memory, for a `*mut T` parameter the kernel allows to be
/// NULL.
impl<T, A: DeviceArgMut<T>> DeviceArgMut<T> for Option<A> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg_mut(stream),
            None => (0, None),
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        match self {
            Some(memory) => memory.check_mut(stream),
            None => Ok(()),
        }
    }

    #[inline]
    fn element_count_mut(&self) -> Option<usize> {
        self.as_ref().map_or(Some(0), A::element_count_mut)
    }
}

/// Device memory cuda-kernel and cudarc did not allocate, as a typed launch argument: a buffer
/// from `cudaMalloc`, a cuBLAS workspace, a memory pool, a PyTorch or JAX tensor handed over
/// through DLPack. A `CUdeviceptr` and a runtime API pointer are the same thing (Programming
/// Guide §3.3.4); this adds the element type, the length and the context the memory belongs to,
/// so that a launch on a stream of another context is refused ([`Error::WrongContext`]) before
/// the driver sees it.
///
/// It is `Copy` and takes part in no event tracking: ordering the work of other libraries on
/// the memory is the caller's, as with any foreign pointer.
///
/// ```no_run
/// use cuda_kernel::{Config, DeviceMemory, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     fn scale(x: *mut f32, a: f32, n: u32);
/// }
///
/// # fn f(k: &Scale, from_cuda_malloc: u64) -> Result<(), cuda_kernel::Error> {
/// let ctx = cuda_kernel::driver::context(0)?; // the primary context, which the runtime shares
/// let stream = ctx.default_stream();
/// // SAFETY: `from_cuda_malloc` holds 1024 floats of device 0, alive until the launch is done.
/// let mut x = unsafe { DeviceMemory::<f32>::from_raw(from_cuda_malloc, 1024, &ctx) };
/// unsafe { k.launch(&stream, Config::for_elements(1024, 256), &mut x, 2.0, 1024)? };
/// # Ok(()) }
/// ```
///
/// [`Error::WrongContext`]: crate::Error::WrongContext
#[derive(Debug)]
pub struct DeviceMemory<T> {
    ptr: CUdeviceptr,
    len: usize,
    ctx: cudarc::driver::sys::CUcontext,
    _element: core::marker::PhantomData<fn() -> T>,
}

impl<T> Clone for DeviceMemory<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DeviceMemory<T> {}

// SAFETY: an address, a length and a context handle: no thread-affine state.
unsafe impl<T> Send for DeviceMemory<T> {}
// SAFETY: as above; the view is never written through `&self`.
unsafe impl<T> Sync for DeviceMemory<T> {}

impl<T> DeviceMemory<T> {
    /// A view of `len` elements of `T` at device address `ptr`, memory of `ctx` (for memory
    /// from the CUDA runtime, the device's primary context: [`driver::context`]).
    ///
    /// # Safety
    /// `ptr` is the address of `len` elements of `T` in `ctx` (or memory every context of the
    /// device can reach), aligned for `T`, and stays allocated, and not written by others
    /// unordered with the launches, until every launch given this view has completed.
    ///
    /// [`driver::context`]: crate::driver::context
    pub unsafe fn from_raw(
        ptr: CUdeviceptr,
        len: usize,
        ctx: &cudarc::driver::CudaContext,
    ) -> Self {
        DeviceMemory {
            ptr,
            len,
            ctx: ctx.cu_ctx(),
            _element: core::marker::PhantomData,
        }
    }

    /// The device address.
    pub fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// How many elements it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements from `start` on (empty past the end).
    pub fn offset(&self, start: usize) -> Self {
        let start = start.min(self.len);
        DeviceMemory {
            ptr: self.ptr + (start * core::mem::size_of::<T>()) as u64,
            len: self.len - start,
            ..*self
        }
    }

    fn check_context(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        if stream.context().cu_ctx() == self.ctx {
            Ok(())
        } else {
            Err(crate::Error::WrongContext {
                ptr: self.ptr,
                device: stream.context().ordinal(),
            })
        }
    }
}

impl<T> DeviceArg<T> for DeviceMemory<T> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (self.ptr, None)
    }

    #[inline]
    fn check(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        self.check_context(stream)
    }

    #[inline]
    fn element_count(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl<T> DeviceArgMut<T> for DeviceMemory<T> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (self.ptr, None)
    }

    #[inline]
    fn check_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        self.check_context(stream)
    }

    #[inline]
    fn element_count_mut(&self) -> Option<usize> {
        Some(self.len)
    }
}

/// What a contract reads of a pointer parameter's memory.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// Its length in elements, where known.
    pub len: Option<usize>,
    /// Whether it is NULL.
    pub null: bool,
}

impl Memory {
    /// Of memory a `*const T` parameter reads.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn of<T, D: DeviceArg<T> + ExactLength + ?Sized>(memory: &D) -> Memory {
        Memory {
            len: memory.element_count(),
            null: memory.is_null(),
        }
    }

    /// Of memory a `*mut T` parameter writes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn of_mut<T, D: DeviceArgMut<T> + ExactLength + ?Sized>(memory: &D) -> Memory {
        Memory {
            len: memory.element_count_mut(),
            null: memory.is_null(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_guard_with_something_to_record_or_synchronize_is_kept() {
        assert!(guard(SyncOnDrop::Record(None)).is_none());
        // `Sync(None)` synchronizes nothing either, but it is not what memory allocated with
        // tracking off gives: kept, as every guard but the empty `Record`.
        assert!(guard(SyncOnDrop::Sync(None)).is_some());
    }
}

/// Device memory of any element type, for a `*const c_void` parameter (a kernel taking untyped
/// memory, `const void*` in C: ggml's and candle's quantized kernels take their blocks so):
/// cudarc's slices and views of any `T`, [`DeviceMemory`], [`Null`], or an `Option` of one.
/// Implemented for every type here that is [`DeviceArg<T>`] for its own `T`; a device-memory
/// type of your own implements it the same way, through its `DeviceArg`.
///
/// ```
/// use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
/// use cuda_kernel::ffi::c_void;
/// use cuda_kernel::{Config, Null, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     /// y[i] = the i-th value of the quantized blocks at vx (scales at vs, or none).
///     fn dequantize(vx: *const c_void, vs: *const c_void, y: *mut f32, n: u32);
/// }
///
/// # fn f(k: &Dequantize, s: &CudaStream, blocks: &CudaSlice<u8>, scales: &CudaSlice<f32>,
/// #     y: &mut CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// let config = Config::for_elements(256, 256);
/// unsafe { k.launch(s, config, blocks, scales, y, 256)? }; // bytes and floats alike
/// unsafe { k.launch(s, config, blocks, &Null, y, 256) } // NULL
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory for a `*const c_void` parameter",
    label = "expected `&CudaSlice<T>`, `&CudaView<T>` or `&Null`, of any `T`",
    note = "a `void*` parameter takes cudarc device memory of any element type; host data gets there by copying it: `stream.clone_htod(&host)?`"
)]
pub trait DeviceArgUntyped {
    /// The device address, and the guard that keeps cudarc's event tracking right.
    fn device_arg_untyped<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>);

    /// Refuses a launch on `stream` that this memory cannot take part in, as
    /// [`DeviceArg::check`]. Nothing to check by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_untyped(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        let _ = stream;
        Ok(())
    }

    /// The memory's length in bytes, where known: what the launch log shows. `None` by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte_count(&self) -> Option<usize> {
        None
    }
}

/// Device memory of any element type, for a `*mut c_void` parameter: cudarc's mutable slices
/// and views of any `T`, [`DeviceMemory`], [`Null`], or an `Option` of one, as
/// [`DeviceArgUntyped`] is for `*const c_void`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not writable device memory for a `*mut c_void` parameter",
    label = "expected `&mut CudaSlice<T>`, `&mut CudaViewMut<T>` or `&mut Null`, of any `T`",
    note = "a `void*` parameter the kernel writes takes mutable cudarc device memory of any element type"
)]
pub trait DeviceArgUntypedMut {
    /// The device address, and the guard that keeps cudarc's event tracking right.
    fn device_arg_untyped_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>);

    /// Refuses a launch on `stream` that this memory cannot take part in, as
    /// [`DeviceArgMut::check_mut`]. Nothing to check by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_untyped_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        let _ = stream;
        Ok(())
    }

    /// The memory's length in bytes, where known: what the launch log shows. `None` by default.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte_count_mut(&self) -> Option<usize> {
        None
    }
}

// Each typed memory of this crate and cudarc, untyped through its own `DeviceArg<T>`.
macro_rules! untyped {
    (read: $($ty:ty),*; write: $($mut_ty:ty),*) => {
        $(
            impl<T> DeviceArgUntyped for $ty {
                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn device_arg_untyped<'a>(
                    &'a self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    DeviceArg::<T>::device_arg(self, stream)
                }

                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn check_untyped(&self, stream: &CudaStream) -> Result<(), crate::Error> {
                    DeviceArg::<T>::check(self, stream)
                }

                #[inline]
                fn byte_count(&self) -> Option<usize> {
                    DeviceArg::<T>::element_count(self)?.checked_mul(size_of::<T>())
                }
            }
        )*
        $(
            impl<T> DeviceArgUntypedMut for $mut_ty {
                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn device_arg_untyped_mut<'a>(
                    &'a mut self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    DeviceArgMut::<T>::device_arg_mut(self, stream)
                }

                #[cfg_attr(debug_assertions, inline)]
                #[cfg_attr(not(debug_assertions), inline(always))]
                fn check_untyped_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
                    DeviceArgMut::<T>::check_mut(self, stream)
                }

                #[inline]
                fn byte_count_mut(&self) -> Option<usize> {
                    DeviceArgMut::<T>::element_count_mut(self)?.checked_mul(size_of::<T>())
                }
            }
        )*
    };
}

untyped! {
    read: CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>, UnifiedSlice<T>, UnifiedView<'_, T>,
        UnifiedViewMut<'_, T>, DeviceMemory<T>;
    write: CudaSlice<T>, CudaViewMut<'_, T>, UnifiedSlice<T>, UnifiedViewMut<'_, T>,
        DeviceMemory<T>
}

impl DeviceArgUntyped for Null {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_untyped<'a>(
        &'a self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte_count(&self) -> Option<usize> {
        Some(0)
    }
}

impl DeviceArgUntypedMut for Null {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_untyped_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte_count_mut(&self) -> Option<usize> {
        Some(0)
    }
}

impl<A: DeviceArgUntyped> DeviceArgUntyped for Option<A> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_untyped<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg_untyped(stream),
            None => (0, None),
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_untyped(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        match self {
            Some(memory) => memory.check_untyped(stream),
            None => Ok(()),
        }
    }

    #[inline]
    fn byte_count(&self) -> Option<usize> {
        self.as_ref().map_or(Some(0), A::byte_count)
    }
}

impl<A: DeviceArgUntypedMut> DeviceArgUntypedMut for Option<A> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn device_arg_untyped_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg_untyped_mut(stream),
            None => (0, None),
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_untyped_mut(&self, stream: &CudaStream) -> Result<(), crate::Error> {
        match self {
            Some(memory) => memory.check_untyped_mut(stream),
            None => Ok(()),
        }
    }

    #[inline]
    fn byte_count_mut(&self) -> Option<usize> {
        self.as_ref().map_or(Some(0), A::byte_count_mut)
    }
}
