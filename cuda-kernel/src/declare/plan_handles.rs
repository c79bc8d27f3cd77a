//! What a plan's recorded launches take for memory and descriptors: handles that borrow the
//! memory for as long as the plan lives ([`PlanRef`], [`PlanMut`], [`PlanTensorMap`]). The
//! argument kinds of `declare::args` pack them as launches pack their arguments; the plan
//! (`graph::plan`) makes them.

use core::marker::PhantomData;

use cudarc::driver::sys::CUdeviceptr;

use crate::RawTensorMap;

/// A shared borrow for `'a` of memory holding `T`s, as a type.
pub(crate) type Borrows<'a, T> = PhantomData<(&'a (), fn() -> T)>;
/// A mutable borrow for `'a` of memory holding `T`s, as a type.
pub(crate) type BorrowsMut<'a, T> = PhantomData<(&'a mut (), fn() -> T)>;

/// A TMA descriptor in a plan, made by [`Plan::tensor_map`](crate::Plan::tensor_map) or [`Plan::tensor_map_mut`](crate::Plan::tensor_map_mut): the
/// argument a recorded launch takes for a `TensorMap<T, N>` parameter. Copy it freely; it is
/// valid while the plan that made it lives.
pub struct PlanTensorMap<'a, T, const N: usize> {
    pub(crate) raw: RawTensorMap,
    pub(crate) _marker: Borrows<'a, T>,
}

impl<T, const N: usize> Clone for PlanTensorMap<'_, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for PlanTensorMap<'_, T, N> {}

impl<T, const N: usize> PlanTensorMap<'_, T, N> {
    /// The descriptor's bytes.
    pub fn raw(&self) -> RawTensorMap {
        self.raw
    }
}

impl<T, const N: usize> core::fmt::Debug for PlanTensorMap<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PlanTensorMap<{}, {N}>", core::any::type_name::<T>())
    }
}

/// Device memory a plan's launches read: `*const T` arguments. Copy it freely; it is valid
/// while the plan that made it lives.
#[derive(Debug)]
pub struct PlanRef<'a, T> {
    pub(crate) ptr: CUdeviceptr,
    pub(crate) len: Option<usize>,
    pub(crate) _marker: Borrows<'a, T>,
}

/// Device memory a plan's launches write (and read): `*mut T` arguments, or through
/// [`read`](PlanMut::read) `*const T` ones.
#[derive(Debug)]
pub struct PlanMut<'a, T> {
    pub(crate) ptr: CUdeviceptr,
    pub(crate) len: Option<usize>,
    pub(crate) _marker: BorrowsMut<'a, T>,
}

macro_rules! handle_methods {
    ($($handle:ident),*) => {$(
        impl<T> Clone for $handle<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $handle<'_, T> {}

        impl<T> $handle<'_, T> {
            /// NULL, for a pointer the kernel allows to be NULL.
            pub const fn null() -> Self {
                $handle {
                    ptr: 0,
                    len: Some(0),
                    _marker: PhantomData,
                }
            }

            /// The device address the launches get.
            pub fn address(&self) -> CUdeviceptr {
                self.ptr
            }

            /// The memory's length in elements, where the memory reports it
            /// ([`DeviceArg::element_count`](crate::DeviceArg::element_count)): what a kernel's contract is checked against
            /// when a launch is recorded or updated.
            pub fn element_count(&self) -> Option<usize> {
                self.len
            }

            /// What a contract reads of the memory: for a recorded launch's checks.
            #[doc(hidden)]
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            pub fn __memory(&self) -> crate::declare::device_arg::Memory {
                crate::declare::device_arg::Memory {
                    len: self.len,
                    null: self.ptr == 0,
                }
            }
        }
    )*};
}

handle_methods!(PlanRef, PlanMut);

macro_rules! erase {
    ($($handle:ident $param:literal),*) => {$(
        impl<'a, T> $handle<'a, T> {
            #[doc = concat!("The same memory for a `", $param, "` parameter (a kernel taking ")]
            #[doc = "untyped memory, `void*` in C), its length counted in bytes."]
            pub fn erase(self) -> $handle<'a, core::ffi::c_void> {
                $handle {
                    ptr: self.ptr,
                    len: self.len.and_then(|n| n.checked_mul(size_of::<T>())),
                    _marker: PhantomData,
                }
            }
        }
    )*};
}

erase!(PlanRef "*const c_void", PlanMut "*mut c_void");

impl<'a, T> PlanMut<'a, T> {
    /// The same memory for a `*const T` parameter.
    pub fn read(self) -> PlanRef<'a, T> {
        PlanRef {
            ptr: self.ptr,
            len: self.len,
            _marker: PhantomData,
        }
    }
}
