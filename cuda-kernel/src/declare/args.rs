//! A signature's arguments: how every launch path packs, checks and borrows them, written once.
//!
//! A generated launcher names its parameters as a tuple of kinds ([`Kernel::__Params`]): [`In`]
//! for `*const T`, [`Out`] for `*mut T`, the type itself for a value. Its `launch` hands the
//! runtime one [`LaunchArg`] per parameter, each made by the constructor of its kind
//! (compiled once per argument type, whatever the kernel), which the one launch path checks,
//! borrows and writes into the parameter buffer without knowing the types; its `pack` and a
//! plan's recorded launches hand device addresses and plan handles as a tuple of the same shape,
//! which [`Pack`] writes. Tuples nest (a signature of more than [`MAX_TUPLE`] parameters is a
//! tuple of tuples), so any parameter count has one path.
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
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn val<V: ParamOf<B>, B>(value: V) -> Value<V> {
    Value {
        value,
        write: V::write,
    }
}

impl<V> Value<V> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(&self, slot: &ParamSlot, out: &mut [u8]) {
        (self.write)(&self.value, &mut out[slot.offset..slot.offset + slot.size]);
    }
}

/// The arguments' lengths in elements (`None` where unknown), gathered by the launch's check for the
/// launch log and the verify mode, and only while one of them is on.
pub struct Lengths(Option<Vec<Option<usize>>>);

impl Lengths {
    /// Gathering lengths when `on`, else nothing (and allocating nothing).
    #[inline]
    pub(crate) fn new(on: bool) -> Lengths {
        Lengths(on.then(Vec::new))
    }

    /// Whether lengths are gathered.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn on(&self) -> bool {
        self.0.is_some()
    }

    /// Appends the next argument's length.
    pub fn push(&mut self, length: Option<usize>) {
        if let Some(lengths) = &mut self.0 {
            lengths.push(length);
        }
    }

    /// The lengths gathered (empty when none were).
    pub(crate) fn into_vec(self) -> Vec<Option<usize>> {
        self.0.unwrap_or_default()
    }
}

/// One argument of a launch, its type erased: the argument, and how to check it and write it
/// into the parameter buffer (functions compiled once per argument type). What a generated
/// `launch` hands the runtime, one per parameter, in order.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub struct LaunchArg<'a> {
    arg: *mut (),
    check: CheckFn,
    put: WriteFn<'a>,
    _borrow: PhantomData<&'a mut ()>,
}

/// A constructor of [`LaunchArg`] for one kind of device memory: borrowed as `&'a D` or
/// `&'a mut D` (`mut`), erased as a `*$ptr D` (`const` or `mut`), its length from `$len`, its
/// check `$check`, its address and guard from `$address`, all of the trait `$bound` (of `<T>`
/// where the kind has an element type). Pointers are converted with `as`, not `ptr::from_ref`
/// or `cast`: those are generic functions, one more item per argument type in a crate that
/// launches (a debug build compiles each).
macro_rules! memory_arg {
    ($(#[$doc:meta])* $name:ident<$($t:ident)?>($($m:tt)?) $bound:ident, $ptr:ident,
     $len:ident, $check:ident, $address:ident) => {
        $(#[$doc])*
        #[cfg_attr(debug_assertions, inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub fn $name<$($t,)? D: $bound$(<$t>)?>(memory: &'a $($m)? D) -> impl LaunchArgs<'a> {
            #[inline]
            fn check<$($t,)? D: $bound$(<$t>)?>(
                arg: *mut (),
                stream: &CudaStream,
                lengths: &mut Lengths,
            ) -> Result<(), Error> {
                // SAFETY: `arg` is the borrow of `D` it was made from, alive for the launch.
                let memory = unsafe { &*(arg as *const D) };
                if lengths.on() {
                    lengths.push(memory.$len());
                }
                memory.$check(stream)
            }
            #[inline]
            fn write<'a, $($t,)? D: $bound$(<$t>)? + 'a>(
                arg: *mut (),
                stream: &'a CudaStream,
                slot: &ParamSlot,
                out: &mut [u8],
            ) -> Option<SyncOnDrop<'a>> {
                // SAFETY: as in `check`; the one use of the borrow for `'a` (the argument is
                // written once).
                let memory: &'a $($m)? D = unsafe { &$($m)? *(arg as *mut D) };
                let (ptr, sync) = memory.$address(stream);
                put(out, slot, &ptr);
                sync
            }
            leaf(memory as *$ptr D as *mut (), check::<$($t,)? D>, write::<$($t,)? D>)
        }
    };
}

impl<'a> LaunchArg<'a> {
    memory_arg! {
        /// Device memory read as `T`s (a `*const T` parameter).
        input<T>() DeviceArg, const, element_count, check, device_arg
    }

    memory_arg! {
        /// Device memory written as `T`s (a `*mut T` parameter), borrowed mutably.
        output<T>(mut) DeviceArgMut, mut, element_count_mut, check_mut, device_arg_mut
    }

    memory_arg! {
        /// Device memory of any element type (a `*const void` parameter).
        input_untyped<>() DeviceArgUntyped, const, byte_count, check_untyped,
        device_arg_untyped
    }

    memory_arg! {
        /// Writable device memory of any element type (a `*mut void` parameter).
        output_untyped<>(mut) DeviceArgUntypedMut, mut, byte_count_mut, check_untyped_mut,
        device_arg_untyped_mut
    }

    /// A TMA descriptor of `N`-dimensional memory of `T`s: written as its bytes, and a use of
    /// the memory it points into.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn tensor_map<T, const N: usize, A: TensorMapArg<T, N>>(
        map: &'a mut A,
    ) -> impl LaunchArgs<'a> {
        #[inline]
        fn check<T, const N: usize, A: TensorMapArg<T, N>>(
            arg: *mut (),
            stream: &CudaStream,
            lengths: &mut Lengths,
        ) -> Result<(), Error> {
            // SAFETY: `arg` is the `&'a mut A` it was made from.
            let map = unsafe { &*(arg as *const A) };
            if lengths.on() {
                lengths.push(None);
            }
            map.check(stream)
        }
        #[inline]
        fn write<'a, T, const N: usize, A: TensorMapArg<T, N> + 'a>(
            arg: *mut (),
            stream: &'a CudaStream,
            slot: &ParamSlot,
            out: &mut [u8],
        ) -> Option<SyncOnDrop<'a>> {
            // SAFETY: as in `check`, the one use of the mutable borrow for `'a`.
            let map: &'a mut A = unsafe { &mut *(arg as *mut A) };
            let (raw, guard) = map.use_on(stream);
            put(out, slot, raw);
            guard
        }
        leaf(map as *mut A as *mut (), check::<T, N, A>, write::<T, N, A>)
    }

    /// A value of a parameter type, passed as its bytes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn value<V: KernelParam>(value: &'a V) -> impl LaunchArgs<'a> {
        #[inline]
        fn write<'a, V: KernelParam + 'a>(
            arg: *mut (),
            _: &'a CudaStream,
            slot: &ParamSlot,
            out: &mut [u8],
        ) -> Option<SyncOnDrop<'a>> {
            // SAFETY: `arg` is the `&'a V` it was made from.
            put(out, slot, unsafe { &*(arg as *const V) });
            None
        }
        leaf(value as *const V as *mut (), check_value, write::<V>)
    }

    /// A value made by [`val`] (of a type that is not one of cuda-kernel's).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn value_of<V>(value: &'a Value<V>) -> impl LaunchArgs<'a> {
        #[inline]
        fn write<'a, V: 'a>(
            arg: *mut (),
            _: &'a CudaStream,
            slot: &ParamSlot,
            out: &mut [u8],
        ) -> Option<SyncOnDrop<'a>> {
            // SAFETY: `arg` is the `&'a Value<V>` it was made from.
            unsafe { &*(arg as *const Value<V>) }.put(slot, out);
            None
        }
        leaf(value as *const Value<V> as *mut (), check_value, write::<V>)
    }
}

/// How an argument is checked: its length appended while lengths are gathered, then the check
/// of its type.
type CheckFn = fn(*mut (), &CudaStream, &mut Lengths) -> Result<(), Error>;
/// How an argument is written at its slot and borrowed on the stream, for `'a`.
type WriteFn<'a> = fn(*mut (), &'a CudaStream, &ParamSlot, &mut [u8]) -> Option<SyncOnDrop<'a>>;

/// An argument with its functions, erased in a debug build ([`LaunchArg`]): the launch is then
/// compiled once per parameter count, whatever the kernels and argument types, which is what a
/// backend's rebuild spends its time on.
#[cfg(debug_assertions)]
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn leaf<'a>(arg: *mut (), check: CheckFn, write: WriteFn<'a>) -> LaunchArg<'a> {
    LaunchArg {
        arg,
        check,
        put: write,
        _borrow: PhantomData,
    }
}

/// An argument with its functions in its type in an optimized build ([`Typed`]): each launch is
/// compiled for its argument types, and their checks and writes inline into it (called through
/// pointers, a launch costs a tenth of a microsecond more).
#[cfg(not(debug_assertions))]
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn leaf<'a, C, W>(arg: *mut (), check: C, write: W) -> Typed<'a, C, W>
where
    C: Fn(*mut (), &CudaStream, &mut Lengths) -> Result<(), Error>,
    W: Fn(*mut (), &'a CudaStream, &ParamSlot, &mut [u8]) -> Option<SyncOnDrop<'a>>,
{
    Typed {
        arg,
        check,
        write,
        _borrow: PhantomData,
    }
}

/// One argument of a launch with its functions (zero-sized, the functions of its type) in its
/// type: what an optimized build launches with.
#[cfg(not(debug_assertions))]
pub struct Typed<'a, C, W> {
    arg: *mut (),
    check: C,
    write: W,
    _borrow: PhantomData<&'a mut ()>,
}

#[cfg(not(debug_assertions))]
impl<'a, C, W> LaunchArgs<'a> for Typed<'a, C, W>
where
    C: Fn(*mut (), &CudaStream, &mut Lengths) -> Result<(), Error>,
    W: Fn(*mut (), &'a CudaStream, &ParamSlot, &mut [u8]) -> Option<SyncOnDrop<'a>>,
{
    const COUNT: usize = 1;
    type Held = Option<SyncOnDrop<'a>>;

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream, lengths: &mut Lengths) -> Result<(), Error> {
        (self.check)(self.arg, stream, lengths)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(self, stream: &'a CudaStream, slots: &[ParamSlot], out: &mut [u8]) -> Self::Held {
        (self.write)(self.arg, stream, &slots[0], out)
    }
}

/// A value has nothing to check, and no length.
#[inline]
fn check_value(_: *mut (), _: &CudaStream, lengths: &mut Lengths) -> Result<(), Error> {
    if lengths.on() {
        lengths.push(None);
    }
    Ok(())
}

/// A launch's arguments, each erased ([`LaunchArg`]), as a tuple (nested past
/// [`MAX_TUPLE`](cuda_kernel_syntax::layout::MAX_TUPLE)): what the one launch path checks,
/// writes and releases. Generic over the tuple's shape alone, so compiled once per parameter
/// count whatever the kernels; in an optimized build, where the launch inlines into the
/// launcher, each argument's functions are known and inline too.
pub trait LaunchArgs<'a> {
    /// The parameters it stands for: 1 for an argument, the sum for a tuple.
    const COUNT: usize;
    /// Checks each argument in order (memory of another context is refused).
    fn check(&self, stream: &CudaStream, lengths: &mut Lengths) -> Result<(), Error>;
    /// The borrows' guards, kept until the launch is queued.
    type Held;
    /// Writes each argument at its slot, the first of `slots` (its successors' after it).
    fn put(self, stream: &'a CudaStream, slots: &[ParamSlot], out: &mut [u8]) -> Self::Held;
}

impl<'a> LaunchArgs<'a> for LaunchArg<'a> {
    const COUNT: usize = 1;

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream, lengths: &mut Lengths) -> Result<(), Error> {
        (self.check)(self.arg, stream, lengths)
    }

    type Held = Option<SyncOnDrop<'a>>;

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(self, stream: &'a CudaStream, slots: &[ParamSlot], out: &mut [u8]) -> Self::Held {
        // Taking `self`: each argument is written once (a second write of memory borrowed
        // mutably would alias).
        (self.put)(self.arg, stream, &slots[0], out)
    }
}

macro_rules! launch_tuples {
    ($( ($($a:ident $i:tt),*) )*) => {$(
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::unused_unit)]
        impl<'a, $($a: LaunchArgs<'a>),*> LaunchArgs<'a> for ($($a,)*) {
            const COUNT: usize = 0 $(+ $a::COUNT)*;

            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn check(&self, stream: &CudaStream, lengths: &mut Lengths) -> Result<(), Error> {
                $(self.$i.check(stream, lengths)?;)*
                Ok(())
            }

            type Held = ($($a::Held,)*);

            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn put(self, stream: &'a CudaStream, slots: &[ParamSlot], out: &mut [u8]) -> Self::Held {
                let mut at = 0;
                ($({
                    let held = self.$i.put(stream, &slots[at..], out);
                    at += $a::COUNT;
                    held
                },)*)
            }
        }
    )*};
}

launch_tuples! {
    ()
    (A0 0)
    (A0 0, A1 1)
    (A0 0, A1 1, A2 2)
    (A0 0, A1 1, A2 2, A3 3)
    (A0 0, A1 1, A2 2, A3 3, A4 4)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11)
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

impl<T, const N: usize> Pack<Tma<T, N>> for RawTensorMap {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl<T, const N: usize> Pack<Tma<T, N>> for PlanTensorMap<'_, T, N> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.raw());
    }
}

/// Arguments for a parameter of kind `P` as they are recorded or inspected: device addresses
/// (`CUdeviceptr`, for a launcher's `pack`), plan handles, values.
pub trait Pack<P> {
    /// Writes the argument at its slot (the first of `slots`).
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]);
}

impl<V: KernelParam> Pack<Val<V>> for V {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl<V> Pack<Val<V>> for Value<V> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        self.put(&slots[0], out);
    }
}

macro_rules! address_packs {
    ($($kind:ident),*) => {$(
        impl<T> Pack<$kind<T>> for CUdeviceptr {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
                put(out, &slots[0], self);
            }
        }
    )*};
}
address_packs!(In, Out);

impl Pack<InUntyped> for CUdeviceptr {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl Pack<OutUntyped> for CUdeviceptr {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], self);
    }
}

impl Pack<InUntyped> for PlanRef<'_, c_void> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl Pack<OutUntyped> for PlanMut<'_, c_void> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl<T> Pack<In<T>> for PlanRef<'_, T> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack(&self, slots: &[ParamSlot], out: &mut [u8]) {
        put(out, &slots[0], &self.address());
    }
}

impl<T> Pack<Out<T>> for PlanMut<'_, T> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
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

        #[allow(unused_variables, unused_mut, unused_assignments)]
        impl<$($p: Params, $a: Pack<$p>),*> Pack<($($p,)*)> for ($($a,)*) {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
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
