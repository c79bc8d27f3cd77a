//! A crate on candle-core's public CUDA API as 0.11.1 publishes it, written against the original:
//! `build-tests.sh check` compiles it against the port's candle-core, so that a bound added to a
//! public trait, an impl taken away or a variant added to a public enum fails CI. Each item below
//! is what a crate above candle-core writes: maps of its own (`Map1`..`Map3`, `Map1Any`,
//! `Map2Any`, `Map2InPlace`) with the traits' bounds and no more, generic callers of `f`, the
//! unary and binary ops through their public maps, and an exhaustive match on `CudaError`.
#![allow(dead_code)]

use candle_core::cuda_backend::cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use candle_core::cuda_backend::{
    CudaError, Map1, Map1Any, Map2, Map2Any, Map2InPlace, Map3, WrapErr, S,
};
use candle_core::{CudaDevice, Layout, Result, WithDType};

/// A map of a crate above candle: the bounds of the trait, nothing else.
pub struct Copy1;

impl Map1 for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits>(
        &self,
        src: &CudaSlice<T>,
        dev: &CudaDevice,
        _layout: &Layout,
    ) -> Result<CudaSlice<T>> {
        let mut out = dev.alloc_zeros::<T>(src.len())?;
        dev.memcpy_dtod(src, &mut out)?;
        Ok(out)
    }
}

impl Map2 for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits>(
        &self,
        src1: &CudaSlice<T>,
        layout1: &Layout,
        _src2: &CudaSlice<T>,
        _layout2: &Layout,
        dev: &CudaDevice,
    ) -> Result<CudaSlice<T>> {
        Map1::f(self, src1, dev, layout1)
    }
}

impl Map3 for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits>(
        &self,
        src1: &CudaSlice<T>,
        layout1: &Layout,
        _src2: &CudaSlice<T>,
        _layout2: &Layout,
        _src3: &CudaSlice<T>,
        _layout3: &Layout,
        dev: &CudaDevice,
    ) -> Result<CudaSlice<T>> {
        Map1::f(self, src1, dev, layout1)
    }
}

impl Map2InPlace for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits>(
        &self,
        dst: &mut CudaSlice<T>,
        _dst_l: &Layout,
        src: &CudaSlice<T>,
        _src_l: &Layout,
        dev: &CudaDevice,
    ) -> Result<()> {
        dev.memcpy_dtod(src, dst)?;
        Ok(())
    }
}

impl Map1Any for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits, W: Fn(CudaSlice<T>) -> S>(
        &self,
        src: &CudaSlice<T>,
        dev: &CudaDevice,
        layout: &Layout,
        wrap: W,
    ) -> Result<S> {
        Ok(wrap(Map1::f(self, src, dev, layout)?))
    }
}

impl Map2Any for Copy1 {
    fn f<T: DeviceRepr + WithDType + ValidAsZeroBits>(
        &self,
        src1: &CudaSlice<T>,
        layout1: &Layout,
        _src2: &CudaSlice<T>,
        _layout2: &Layout,
        dev: &CudaDevice,
    ) -> Result<S> {
        // A map whose result's dtype is not its operands': this one makes none.
        let _ = (src1, layout1, dev);
        Err(CudaError::InternalError("no map of another dtype")).w()
    }
}

/// A generic caller of `f`, with the bounds of candle's traits: any map, any candle dtype.
pub fn apply<M: Map1, T: DeviceRepr + WithDType + ValidAsZeroBits>(
    map: &M,
    src: &CudaSlice<T>,
    dev: &CudaDevice,
    layout: &Layout,
) -> Result<CudaSlice<T>> {
    map.f::<T>(src, dev, layout)
}

/// Candle's own ops through their public maps: `exp` and `add` on any candle dtype.
pub fn exp<T: DeviceRepr + WithDType + ValidAsZeroBits>(
    src: &CudaSlice<T>,
    dev: &CudaDevice,
    layout: &Layout,
) -> Result<CudaSlice<T>> {
    apply(&candle_core::op::Exp, src, dev, layout)
}

pub fn add<T: DeviceRepr + WithDType + ValidAsZeroBits>(
    lhs: &CudaSlice<T>,
    rhs: &CudaSlice<T>,
    dev: &CudaDevice,
    layout: &Layout,
) -> Result<CudaSlice<T>> {
    Map2::f(&candle_core::op::Add, lhs, layout, rhs, layout, dev)
}

/// Every variant of candle's CUDA error, matched without a wildcard: a new variant is a
/// breaking change for this match.
pub fn describe(e: &CudaError) -> &'static str {
    match e {
        CudaError::Cuda(_) => "driver",
        CudaError::Compiler(_) => "nvrtc",
        CudaError::Cublas(_) => "cublas",
        CudaError::Curand(_) => "curand",
        CudaError::MissingKernel { .. } => "missing kernel",
        CudaError::UnsupportedDtype { .. } => "dtype",
        CudaError::InternalError(_) => "internal",
        CudaError::MatMulNonContiguous { .. } => "matmul",
        CudaError::UnexpectedDType { .. } => "unexpected dtype",
        CudaError::Load { .. } => "load",
    }
}
