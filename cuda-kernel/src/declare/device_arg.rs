//! What a pointer parameter's launcher argument can be: device memory cudarc knows, or
//! [`Null`] for a pointer the kernel allows to be NULL.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop,
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
}

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
}

// One impl per cudarc type rather than a blanket impl over `DevicePtr<T>`, which would leave no
// room for `Null` (cudarc could add a blanket impl of its own).
macro_rules! device_memory {
    (read: $($ty:ty),*; write: $($mut_ty:ty),*) => {
        $(
            impl<T> DeviceArg<T> for $ty {
                #[inline(always)]
                fn device_arg<'a>(
                    &'a self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    let (ptr, sync) = DevicePtr::device_ptr(self, stream);
                    (ptr, Some(sync))
                }
            }
        )*
        $(
            impl<T> DeviceArgMut<T> for $mut_ty {
                #[inline(always)]
                fn device_arg_mut<'a>(
                    &'a mut self,
                    stream: &'a CudaStream,
                ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
                    let (ptr, sync) = DevicePtrMut::device_ptr_mut(self, stream);
                    (ptr, Some(sync))
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
    #[inline(always)]
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }
}

impl<T> DeviceArgMut<T> for Null {
    #[inline(always)]
    fn device_arg_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
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
    #[inline(always)]
    fn device_arg<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg(stream),
            None => (0, None),
        }
    }
}

/// `None` is NULL, `Some(memory)` the memory, for a `*mut T` parameter the kernel allows to be
/// NULL.
impl<T, A: DeviceArgMut<T>> DeviceArgMut<T> for Option<A> {
    #[inline(always)]
    fn device_arg_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        match self {
            Some(memory) => memory.device_arg_mut(stream),
            None => (0, None),
        }
    }
}
