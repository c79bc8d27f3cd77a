//! A signature's arguments as one type: how every launch path packs, checks and borrows them,
//! written once, generically.
//!
//! A generated launcher names its parameters as a tuple of kinds ([`Kernel::__Params`]): [`In`]
//! for `*const T`, [`Out`] for `*mut T`, the type itself for a value. Its `launch` hands the
//! runtime its arguments as a tuple of the same shape, which [`Arg`] checks, borrows and writes
//! into the parameter buffer; its `pack` and a plan's recorded launches hand device addresses
//! and plan handles, which [`Pack`] writes. Tuples nest (a signature of more than
//! [`MAX_TUPLE`] parameters is a tuple of tuples), so any parameter count has one path.
//!
//! [`MAX_TUPLE`]: cuda_kernel_syntax::layout::MAX_TUPLE
//!
//! [`Kernel::__Params`]: crate::Kernel::__Params

use core::ffi::c_void;
use core::marker::PhantomData;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, SyncOnDrop};

use crate::declare::buffer::put;
use crate::declare::plan_handles::{PlanMut, PlanRef, PlanTensorMap};
use crate::{
    DeviceArg, DeviceArgMut, DeviceArgUntyped, DeviceArgUntypedMut, Error, KernelParam, ParamSlot,
    RawTensorMap, TensorMapArg,
};

/// A `*const T` parameter, as a kind: it takes device memory read as `T`s.
pub struct In<T>(PhantomData<fn() -> T>);

/// A `*mut T` parameter, as a kind: it takes device memory written as `T`s.
pub struct Out<T>(PhantomData<fn() -> T>);

/// A `*const c_void` parameter, as a kind: it takes device memory of any element type
/// ([`DeviceArgUntyped`]).
pub struct InUntyped;

/// A `*mut c_void` parameter, as a kind: it takes writable device memory of any element type
/// ([`DeviceArgUntypedMut`]).
pub struct OutUntyped;

/// A parameter of type `V` passed by value, as a kind.
pub struct Val<V>(PhantomData<fn() -> V>);

/// A TMA descriptor parameter (`TensorMap<T, N>` in a declaration), as a kind: it takes a
/// descriptor of `N`-dimensional memory of `T`s ([`TensorMapArg`]).
pub struct Tma<T, const N: usize>(PhantomData<fn() -> T>);

/// A value argument of a type that is not a primitive, with how it is written: made by [`val`].
pub struct Value<V> {
    value: V,
    write: fn(&V, &mut [u8]),
}

/// A parameter type, as a launch with the parameter buffer `B` takes it: every
/// [`KernelParam`]. The bound of [`val`], naming the launcher's buffer, whose size is its
/// layout's: where the layout fails to compile (a type that is not a parameter type, which it
/// reports at the type), the bound names that failure, and rustc reports nothing more.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a CUDA kernel parameter type",
    label = "not a kernel parameter type",
    note = "parameters are bool, i8..i64, u8..u64, usize, isize, f32, f64, half::f16, half::bf16, the vector types of cuda_kernel (Float4, Int2, ...), #[derive(KernelParam)] structs, *const T / *mut T for device memory, and TensorMap<T, N> for a TMA descriptor"
)]
pub trait ParamOf<B>: KernelParam {}

impl<V: KernelParam, B> ParamOf<B> for V {}

/// `value` as an argument of a launch whose parameter buffer is `B` ([`Value`]): what
/// generated code passes for a value of a type that is not a primitive.
#[inline(always)]
pub fn val<V: ParamOf<B>, B>(value: V) -> Value<V> {
    Value {
        value,
        write: V::write,
    }
}

impl<V> Value<V> {
    #[inline(always)]
    fn put(&self, slot: &ParamSlot, out: &mut [u8]) {
        (self.write)(&self.value, &mut out[slot.offset..slot.offset + slot.size]);
    }
}

/// A parameter kind, or a tuple of them: what a plan's recorded launch takes for it.
pub trait Params: Sized {
    /// The parameters it stands for: 1 for a kind, the sum for a tuple.
    const COUNT: usize = 1;
    /// [`PlanRef`] for [`In`], [`PlanMut`] for [`Out`], the value for a value.
    type Plan<'a>;
}

impl<T> Params for In<T> {
    type Plan<'a> = PlanRef<'a, T>;
}

impl<T> Params for Out<T> {
    type Plan<'a> = PlanMut<'a, T>;
}

impl Params for InUntyped {
    type Plan<'a> = PlanRef<'a, c_void>;
}

impl Params for OutUntyped {
    type Plan<'a> = PlanMut<'a, c_void>;
}

impl<V> Params for Val<V> {
    type Plan<'a> = V;
}

impl<T, const N: usize> Params for Tma<T, N> {
    type Plan<'a> = PlanTensorMap<'a, T, N>;
}

// A descriptor is written as its bytes, and its launch is a use of the memory it points into.
impl<T, const N: usize, A: TensorMapArg<T, N>> Arg<Tma<T, N>> for A {
    type Held<'h>
        = Option<SyncOnDrop<'h>>
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        TensorMapArg::check(self, stream)
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(None);
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        let (raw, guard) = self.use_on(stream);
        put(out, &slots[0], raw);
        guard
    }
}

impl<T, const N: usize> Pack<Tma<T, N>> for RawTensorMap {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl<T, const N: usize> Pack<Tma<T, N>> for PlanTensorMap<'_, T, N> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.raw());
    }
}

/// A launch argument for a parameter of kind `P`: checked, then borrowed for the launch while
/// its address (or value) is written into the parameter buffer.
pub trait Arg<P> {
    /// What keeps the borrow's bookkeeping until the launch is queued (cudarc's event guard).
    type Held<'h>
    where
        Self: 'h;

    /// Refuses a launch on `stream` this argument cannot take part in.
    fn check(&self, stream: &CudaStream) -> Result<(), Error>;

    /// Appends the arguments' lengths in elements, where known (for the launch log).
    fn lengths(&self, out: &mut Vec<Option<usize>>);

    /// Writes the argument at its slot (the first of `slots`, the rest its successors'),
    /// borrowing it on `stream`.
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h>;
}

impl<T, D: DeviceArg<T> + ?Sized> Arg<In<T>> for &D {
    type Held<'h>
        = Option<SyncOnDrop<'h>>
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        DeviceArg::<T>::check(*self, stream)
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(DeviceArg::<T>::element_count(*self));
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        let (ptr, sync) = DeviceArg::<T>::device_arg(*self, stream);
        put(out, &slots[0], &ptr);
        sync
    }
}

impl<T, D: DeviceArgMut<T> + ?Sized> Arg<Out<T>> for &mut D {
    type Held<'h>
        = Option<SyncOnDrop<'h>>
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        DeviceArgMut::<T>::check_mut(&**self, stream)
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(DeviceArgMut::<T>::element_count_mut(&**self));
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        let (ptr, sync) = DeviceArgMut::<T>::device_arg_mut(&mut **self, stream);
        put(out, &slots[0], &ptr);
        sync
    }
}

impl<D: DeviceArgUntyped + ?Sized> Arg<InUntyped> for &D {
    type Held<'h>
        = Option<SyncOnDrop<'h>>
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        DeviceArgUntyped::check_untyped(*self, stream)
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(DeviceArgUntyped::byte_count(*self));
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        let (ptr, sync) = DeviceArgUntyped::device_arg_untyped(*self, stream);
        put(out, &slots[0], &ptr);
        sync
    }
}

impl<D: DeviceArgUntypedMut + ?Sized> Arg<OutUntyped> for &mut D {
    type Held<'h>
        = Option<SyncOnDrop<'h>>
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        DeviceArgUntypedMut::check_untyped_mut(&**self, stream)
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(DeviceArgUntypedMut::byte_count_mut(&**self));
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        stream: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        let (ptr, sync) = DeviceArgUntypedMut::device_arg_untyped_mut(&mut **self, stream);
        put(out, &slots[0], &ptr);
        sync
    }
}

/// Arguments for a parameter of kind `P` as they are recorded or inspected: device addresses
/// (`CUdeviceptr`, for a launcher's `pack`), plan handles, values.
pub trait Pack<P> {
    /// Writes the argument at its slot (the first of `slots`).
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]);
}

impl<V: KernelParam> Pack<Val<V>> for V {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl<V> Pack<Val<V>> for Value<V> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        self.put(&slots[0], out);
    }
}

// A value borrows nothing: launched as it is packed (bare, or through `val`).
impl<V, A: Pack<Val<V>>> Arg<Val<V>> for A {
    type Held<'h>
        = ()
    where
        Self: 'h;

    #[inline(always)]
    fn check(&self, _: &CudaStream) -> Result<(), Error> {
        Ok(())
    }

    fn lengths(&self, out: &mut Vec<Option<usize>>) {
        out.push(None);
    }

    #[inline(always)]
    fn put<'h>(
        &'h mut self,
        _: &'h CudaStream,
        slots: &[ParamSlot],
        out: &mut [u8],
    ) -> Self::Held<'h> {
        self.pack(slots, out);
    }
}

macro_rules! address_packs {
    ($($kind:ident),*) => {$(
        impl<T> Pack<$kind<T>> for CUdeviceptr {
            #[inline(always)]
            fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
                put(out, &slots[0], self);
            }
        }
    )*};
}
address_packs!(In, Out);

impl Pack<InUntyped> for CUdeviceptr {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl Pack<OutUntyped> for CUdeviceptr {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl Pack<InUntyped> for PlanRef<'_, c_void> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl Pack<OutUntyped> for PlanMut<'_, c_void> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl<T> Pack<In<T>> for PlanRef<'_, T> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl<T> Pack<Out<T>> for PlanMut<'_, T> {
    #[inline(always)]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

macro_rules! tuples {
    ($( ($($p:ident $a:ident $i:tt),*) )*) => {$(
        impl<$($p: Params),*> Params for ($($p,)*) {
            const COUNT: usize = 0 $(+ $p::COUNT)*;
            type Plan<'a> = ($($p::Plan<'a>,)*);
        }

        // Each element's slots start after its predecessors' (`at`, a constant once inlined).
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::unused_unit)]
        impl<$($p: Params, $a: Arg<$p>),*> Arg<($($p,)*)> for ($($a,)*) {
            type Held<'h> = ($($a::Held<'h>,)*) where Self: 'h;

            #[inline(always)]
            fn check(&self, stream: &CudaStream) -> Result<(), Error> {
                $(self.$i.check(stream)?;)*
                Ok(())
            }

            fn lengths(&self, out: &mut Vec<Option<usize>>) {
                $(self.$i.lengths(out);)*
            }

            #[inline(always)]
            fn put<'h>(
                &'h mut self,
                stream: &'h CudaStream,
                slots: &[ParamSlot],
                out: &mut [u8],
            ) -> Self::Held<'h> {
                let mut at = 0;
                ($({
                    let held = self.$i.put(stream, &slots[at..], out);
                    at += $p::COUNT;
                    held
                },)*)
            }
        }

        #[allow(unused_variables, unused_mut, unused_assignments)]
        impl<$($p: Params, $a: Pack<$p>),*> Pack<($($p,)*)> for ($($a,)*) {
            #[inline(always)]
            fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
                let mut at = 0;
                $(
                    self.$i.pack(&slots[at..], out);
                    at += $p::COUNT;
                )*
            }
        }
    )*};
}

tuples! {
    ()
    (P0 A0 0)
    (P0 A0 0, P1 A1 1)
    (P0 A0 0, P1 A1 1, P2 A2 2)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10)
    (P0 A0 0, P1 A1 1, P2 A2 2, P3 A3 3, P4 A4 4, P5 A5 5, P6 A6 6, P7 A7 7, P8 A8 8, P9 A9 9, P10 A10 10, P11 A11 11)
}
#[cfg(test)]
mod tests {
    use super::*;

    /// The tuples implemented are those the macro makes: up to `MAX_TUPLE` elements.
    #[test]
    fn tuples_reach_the_length_the_macro_nests_at() {
        fn params<P: Params>() {}
        assert_eq!(cuda_kernel_syntax::layout::MAX_TUPLE, 12);
        type V = Val<u8>;
        params::<(V, V, V, V, V, V, V, V, V, V, V, In<f32>)>();
        params::<((V, Out<f32>), (V,))>();
    }

    #[test]
    fn addresses_and_values_pack_at_their_slots() {
        const SLOTS: [ParamSlot; 3] = crate::ParamLayout::place([
            ParamSlot::of::<*const f32>("a"),
            ParamSlot::of::<u8>("b"),
            ParamSlot::of::<*mut f32>("c"),
        ]);
        let mut out = [0u8; 24];
        let args: (CUdeviceptr, Value<u8>, CUdeviceptr) = (0x1122, val::<_, ()>(7), 0x3344);
        Pack::<(In<f32>, Val<u8>, Out<f32>)>::pack(&args, &SLOTS, &mut out);
        assert_eq!(out[..8], 0x1122u64.to_le_bytes());
        assert_eq!(out[8], 7);
        assert_eq!(out[16..], 0x3344u64.to_le_bytes());
    }
}
