//! A small strided-tensor CUDA backend built the way candle's is: one `extern "C"` kernel per op
//! and dtype (`uexp_f32`, `badd_bf16`, `cast_f16_f32`, ...), the op and the dtype chosen at run
//! time, a module loaded on first use, one generic body per kind of op, and the backend's own
//! error type. Every launch is typed: the kernels are declared once in [`kernels`], checked
//! against the PTX at compile time, and loaded and checked against the driver on first use.
//!
//! ```no_run
//! use tensor_backend::{Device, Tensor};
//!
//! let dev = Device::new(0)?;
//! let x = dev.tensor(&[1.0f32, 4.0, 9.0, 16.0], &[2, 2])?;
//! let y = dev.unary("sqrt", &x)?; // usqrt_f32, chosen by name at run time
//! assert_eq!(dev.to_vec::<f32>(&y)?, [1.0, 2.0, 3.0, 4.0]);
//! let t = dev.unary("copy", &x.t()?)?; // a transposed view, strided
//! assert_eq!(dev.to_vec::<f32>(&t)?, [1.0, 9.0, 4.0, 16.0]);
//! # Ok::<(), tensor_backend::Error>(())
//! ```

pub mod kernels;

use std::sync::{Arc, OnceLock};

use cuda_kernel::cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits,
};
use cuda_kernel::{Config, KernelParam};
use half::{bf16, f16};

use kernels::{BinaryKernels, CastKernels, ReduceKernels, SelectKernels, UnaryKernels};

/// What can go wrong in the backend: its own errors, and the launch library's and the driver's.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Loading or launching a kernel failed (a kernel or member the PTX lacks, a signature the
    /// driver disagrees with, a configuration the device refuses).
    #[error(transparent)]
    Kernel(#[from] cuda_kernel::Error),
    /// A cudarc call (allocation, copy) failed.
    #[error("CUDA: {0}")]
    Driver(#[from] DriverError),
    /// Operands of different dtypes.
    #[error("dtype mismatch in {op}: {lhs:?} and {rhs:?}")]
    DTypeMismatch {
        /// The op.
        op: &'static str,
        /// The first operand's dtype.
        lhs: DType,
        /// The second operand's dtype.
        rhs: DType,
    },
    /// Operands of different shapes, or a shape the op cannot take.
    #[error("shape mismatch in {op}: {lhs:?} and {rhs:?}")]
    ShapeMismatch {
        /// The op.
        op: &'static str,
        /// The first operand's shape.
        lhs: Vec<usize>,
        /// The second operand's shape.
        rhs: Vec<usize>,
    },
    /// A dtype the op has no kernel for (`ids` of a float type).
    #[error("{op} does not take {dtype:?}")]
    UnsupportedDType {
        /// The op.
        op: &'static str,
        /// The dtype.
        dtype: DType,
    },
}

/// [`Error::ShapeMismatch`] of `op` between two shapes.
fn shape_mismatch(
    op: &'static str,
    lhs: impl Into<Vec<usize>>,
    rhs: impl Into<Vec<usize>>,
) -> Error {
    Error::ShapeMismatch {
        op,
        lhs: lhs.into(),
        rhs: rhs.into(),
    }
}

/// The backend's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// The element types the backend stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// `u8`.
    U8,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `half::f16`.
    F16,
    /// `half::bf16`.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

/// A dtype of the backend: its device memory and host conversions.
pub trait WithDType:
    KernelParam + DeviceRepr + ValidAsZeroBits + Copy + Send + Sync + std::fmt::Debug + 'static
{
    /// Its tag.
    const DTYPE: DType;
    /// Wraps device memory of this type.
    fn storage(slice: CudaSlice<Self>) -> Storage;
    /// The device memory of a storage of this type.
    fn slice(storage: &Storage) -> Option<&CudaSlice<Self>>;
    /// The value as f64, for host references.
    fn to_f64(self) -> f64;
    /// A value from f64, for host references.
    fn from_f64(value: f64) -> Self;
}

macro_rules! with_dtype {
    ($($ty:ty => $dtype:ident, $to:expr, $from:expr;)*) => {$(
        impl WithDType for $ty {
            const DTYPE: DType = DType::$dtype;
            fn storage(slice: CudaSlice<Self>) -> Storage {
                Storage::$dtype(slice)
            }
            fn slice(storage: &Storage) -> Option<&CudaSlice<Self>> {
                match storage {
                    Storage::$dtype(s) => Some(s),
                    _ => None,
                }
            }
            fn to_f64(self) -> f64 {
                ($to)(self)
            }
            fn from_f64(value: f64) -> Self {
                ($from)(value)
            }
        }
    )*};
}

with_dtype! {
    u8 => U8, |v: u8| v as f64, |v: f64| v as u8;
    u32 => U32, |v: u32| v as f64, |v: f64| v as u32;
    i64 => I64, |v: i64| v as f64, |v: f64| v as i64;
    f16 => F16, f16::to_f64, f16::from_f64;
    bf16 => BF16, bf16::to_f64, bf16::from_f64;
    f32 => F32, |v: f32| v as f64, |v: f64| v as f32;
    f64 => F64, |v: f64| v, |v: f64| v;
}

/// Device memory of one of the dtypes.
#[derive(Debug)]
pub enum Storage {
    /// `u8` elements.
    U8(CudaSlice<u8>),
    /// `u32` elements.
    U32(CudaSlice<u32>),
    /// `i64` elements.
    I64(CudaSlice<i64>),
    /// `half::f16` elements.
    F16(CudaSlice<f16>),
    /// `half::bf16` elements.
    BF16(CudaSlice<bf16>),
    /// `f32` elements.
    F32(CudaSlice<f32>),
    /// `f64` elements.
    F64(CudaSlice<f64>),
}

/// Runs `$body` with `$s` bound to the storage's slice and `$T` to its element type.
macro_rules! dispatch {
    ($storage:expr, |$s:ident: $T:ident| $body:expr) => {
        match $storage {
            Storage::U8($s) => {
                type $T = u8;
                $body
            }
            Storage::U32($s) => {
                type $T = u32;
                $body
            }
            Storage::I64($s) => {
                type $T = i64;
                $body
            }
            Storage::F16($s) => {
                type $T = f16;
                $body
            }
            Storage::BF16($s) => {
                type $T = bf16;
                $body
            }
            Storage::F32($s) => {
                type $T = f32;
                $body
            }
            Storage::F64($s) => {
                type $T = f64;
                $body
            }
        }
    };
}

/// Runs `$body` with `$s` bound to the storage's slice and `$I` to its type, for the id
/// dtypes (u8, u32, i64); another dtype is `Error::UnsupportedDType` of `$op`.
macro_rules! dispatch_ids {
    ($storage:expr, $op:literal, |$s:ident: $I:ident| $body:expr) => {
        match $storage {
            Storage::U8($s) => {
                type $I = u8;
                $body
            }
            Storage::U32($s) => {
                type $I = u32;
                $body
            }
            Storage::I64($s) => {
                type $I = i64;
                $body
            }
            other => Err(Error::UnsupportedDType {
                op: $op,
                dtype: other.dtype(),
            }),
        }
    };
}

impl Storage {
    /// Its dtype.
    pub fn dtype(&self) -> DType {
        dispatch!(self, |_s: T| T::DTYPE)
    }
}

/// Where a tensor's elements are: shape, strides in elements, and the first element's offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Size in each dimension.
    pub shape: Vec<usize>,
    /// Elements between neighbours in each dimension (0 to broadcast).
    pub strides: Vec<usize>,
    /// Index of the first element.
    pub offset: usize,
}

impl Layout {
    /// A contiguous row-major layout of `shape`.
    pub fn contiguous(shape: &[usize]) -> Layout {
        let mut strides = vec![1; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        Layout {
            shape: shape.to_vec(),
            strides,
            offset: 0,
        }
    }

    /// How many elements it holds.
    pub fn elem_count(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether it is row-major contiguous (dims of size 1 aside).
    pub fn is_contiguous(&self) -> bool {
        let mut acc = 1;
        for (&dim, &stride) in self.shape.iter().zip(&self.strides).rev() {
            if dim > 1 && stride != acc {
                return false;
            }
            acc *= dim;
        }
        true
    }

    /// The element index of each position, in row-major order of the shape (host reference).
    pub fn indices(&self) -> Vec<usize> {
        (0..self.elem_count())
            .map(|mut i| {
                let mut at = self.offset;
                for (&dim, &stride) in self.shape.iter().zip(&self.strides).rev() {
                    at += (i % dim) * stride;
                    i /= dim;
                }
                at
            })
            .collect()
    }
}

/// A tensor: storage shared between views, and a layout over it.
#[derive(Clone, Debug)]
pub struct Tensor {
    storage: Arc<Storage>,
    layout: Layout,
}

impl Tensor {
    /// Its dtype.
    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }

    /// Its layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Its shape.
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }

    /// The transpose of a 2-D tensor: a view with its strides swapped.
    pub fn t(&self) -> Result<Tensor> {
        self.transpose(0, 1)
    }

    /// A view with dimensions `a` and `b` swapped.
    pub fn transpose(&self, a: usize, b: usize) -> Result<Tensor> {
        let mut layout = self.layout.clone();
        if a >= layout.shape.len() || b >= layout.shape.len() {
            return Err(shape_mismatch("transpose", layout.shape, vec![a, b]));
        }
        layout.shape.swap(a, b);
        layout.strides.swap(a, b);
        Ok(Tensor {
            storage: Arc::clone(&self.storage),
            layout,
        })
    }

    /// A view repeating this tensor along new leading dimensions (stride 0), to `shape`.
    pub fn broadcast_as(&self, shape: &[usize]) -> Result<Tensor> {
        let extra = shape.len().checked_sub(self.layout.shape.len());
        let fits = extra.is_some_and(|extra| {
            self.layout
                .shape
                .iter()
                .zip(&shape[extra..])
                .all(|(a, b)| a == b || *a == 1)
        });
        let Some(extra) = extra.filter(|_| fits) else {
            return Err(shape_mismatch(
                "broadcast_as",
                self.layout.shape.clone(),
                shape.to_vec(),
            ));
        };
        let mut strides = vec![0; extra];
        for (i, (&dim, &stride)) in self
            .layout
            .shape
            .iter()
            .zip(&self.layout.strides)
            .enumerate()
        {
            strides.push(if dim == 1 && shape[extra + i] != 1 {
                0
            } else {
                stride
            });
        }
        Ok(Tensor {
            storage: Arc::clone(&self.storage),
            layout: Layout {
                shape: shape.to_vec(),
                strides,
                offset: self.layout.offset,
            },
        })
    }
}

/// A GPU with its stream and the backend's modules, each loaded on first use.
pub struct Device {
    stream: Arc<CudaStream>,
    unary: OnceLock<UnaryKernels>,
    binary: OnceLock<BinaryKernels>,
    cast: OnceLock<CastKernels>,
    reduce: OnceLock<ReduceKernels>,
    select: OnceLock<SelectKernels>,
}

/// A module of the device, loaded (its PTX into the context) the first time an op needs it.
macro_rules! module {
    ($method:ident, $name:ident, $ty:ty) => {
        fn $method(&self) -> Result<&$ty> {
            if let Some(module) = self.$name.get() {
                return Ok(module);
            }
            let module = <$ty>::load(self.stream.context())?;
            Ok(self.$name.get_or_init(|| module))
        }
    };
}

impl Device {
    /// The GPU of this ordinal, with a new stream.
    pub fn new(ordinal: usize) -> Result<Device> {
        let ctx: Arc<CudaContext> = cuda_kernel::driver::context(ordinal)?;
        Ok(Device {
            stream: ctx.new_stream()?,
            unary: OnceLock::new(),
            binary: OnceLock::new(),
            cast: OnceLock::new(),
            reduce: OnceLock::new(),
            select: OnceLock::new(),
        })
    }

    /// The stream every op is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    module!(unary_kernels, unary, UnaryKernels);
    module!(binary_kernels, binary, BinaryKernels);
    module!(cast_kernels, cast, CastKernels);
    module!(reduce_kernels, reduce, ReduceKernels);
    module!(select_kernels, select, SelectKernels);

    /// A contiguous tensor of `shape` holding `data`.
    pub fn tensor<T: WithDType>(&self, data: &[T], shape: &[usize]) -> Result<Tensor> {
        let layout = Layout::contiguous(shape);
        if layout.elem_count() != data.len() {
            return Err(shape_mismatch("tensor", vec![data.len()], shape.to_vec()));
        }
        Ok(Tensor {
            storage: Arc::new(T::storage(self.stream.clone_htod(data)?)),
            layout,
        })
    }

    /// The elements in row-major order of the shape, whatever the layout.
    pub fn to_vec<T: WithDType>(&self, t: &Tensor) -> Result<Vec<T>> {
        let Some(slice) = T::slice(&t.storage) else {
            return Err(Error::DTypeMismatch {
                op: "to_vec",
                lhs: t.dtype(),
                rhs: T::DTYPE,
            });
        };
        let all = self.stream.clone_dtoh(slice)?;
        Ok(t.layout.indices().into_iter().map(|i| all[i]).collect())
    }

    /// The kernels' `info`: `None` (a NULL pointer: the kernels take the fast path) for
    /// contiguous operands, else dims followed by each operand's strides in device memory.
    fn info(&self, layouts: &[&Layout]) -> Result<Option<CudaSlice<usize>>> {
        if layouts.iter().all(|l| l.is_contiguous()) {
            return Ok(None);
        }
        let mut info = layouts[0].shape.clone();
        for layout in layouts {
            info.extend(&layout.strides);
        }
        Ok(Some(self.stream.clone_htod(&info)?))
    }

    fn output<T: WithDType>(&self, shape: &[usize], data: CudaSlice<T>) -> Tensor {
        Tensor {
            storage: Arc::new(T::storage(data)),
            layout: Layout::contiguous(shape),
        }
    }

    /// `op(x)` elementwise: `"copy"`, `"neg"`, `"exp"`, `"log"`, `"sqrt"`, `"abs"`, `"sqr"`,
    /// `"relu"`, `"recip"` (the integer dtypes have copy and sqr, i64 neg too).
    pub fn unary(&self, op: &str, x: &Tensor) -> Result<Tensor> {
        dispatch!(&*x.storage, |s: T| self.unary_typed::<T>(op, s, x))
    }

    /// One generic body for every op and dtype: the launcher for `u{op}_{T}` comes from the
    /// module's cache, loaded and checked the first time.
    fn unary_typed<T: WithDType>(
        &self,
        op: &str,
        src: &CudaSlice<T>,
        x: &Tensor,
    ) -> Result<Tensor> {
        let kernel = self.unary_kernels()?.unary::<T>(op)?;
        let layout = &x.layout;
        let n = layout.elem_count();
        let info = self.info(&[layout])?;
        let src = src.slice(layout.offset..);
        // SAFETY: uninitialised memory the kernel writes in full before any read.
        let mut out = unsafe { self.stream.alloc::<T>(n)? };
        let config = Config::for_elements(n as u32, 256);
        // SAFETY: the kernel reads the n elements `info` (or contiguity) addresses in `src` and
        // writes n elements of `out`.
        let dims = layout.shape.len();
        unsafe { kernel.launch(&self.stream, config, n, dims, &info, &src, &mut out)? };
        Ok(self.output(&layout.shape, out))
    }

    /// `x ^ e` elementwise, for the float dtypes.
    pub fn powf(&self, x: &Tensor, e: f64) -> Result<Tensor> {
        dispatch!(&*x.storage, |s: T| {
            let kernel = self.unary_kernels()?.powf::<T>()?;
            let layout = &x.layout;
            let n = layout.elem_count();
            let info = self.info(&[layout])?;
            let src = s.slice(layout.offset..);
            let mut out = self.stream.alloc_zeros::<T>(n)?;
            let config = Config::for_elements(n as u32, 256);
            let e = T::from_f64(e);
            // SAFETY: as for `unary`.
            unsafe {
                kernel.launch(
                    &self.stream,
                    config,
                    n,
                    layout.shape.len(),
                    &info,
                    e,
                    &src,
                    &mut out,
                )?;
            }
            Ok(self.output(&layout.shape, out))
        })
    }

    /// `lhs op rhs` elementwise: `"add"`, `"sub"`, `"mul"`, `"div"`, `"maximum"`, `"minimum"`.
    pub fn binary(&self, op: &str, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor> {
        self.same("binary", lhs, rhs)?;
        dispatch!(&*lhs.storage, |l: T| {
            let r = T::slice(&rhs.storage).expect("same dtype");
            let kernel = self.binary_kernels()?.binary::<T>(op)?;
            let (n, info, l, r) = self.operands(lhs, rhs, l, r)?;
            let mut out = self.stream.alloc_zeros::<T>(n)?;
            let config = Config::for_elements(n as u32, 256);
            let dims = lhs.layout.shape.len();
            // SAFETY: the kernel reads n elements of each operand as `info` addresses them and
            // writes n elements of `out`.
            unsafe {
                kernel.launch(&self.stream, config, n, dims, &info, &l, &r, &mut out)?;
            }
            Ok(self.output(&lhs.layout.shape, out))
        })
    }

    /// `lhs op rhs` elementwise as a u8 tensor of 0 and 1: `"eq"`, `"ne"`, `"lt"`, `"le"`,
    /// `"gt"`, `"ge"`.
    pub fn cmp(&self, op: &str, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor> {
        self.same("cmp", lhs, rhs)?;
        dispatch!(&*lhs.storage, |l: T| {
            let r = T::slice(&rhs.storage).expect("same dtype");
            let kernel = self.binary_kernels()?.cmp::<T>(op)?;
            let (n, info, l, r) = self.operands(lhs, rhs, l, r)?;
            let mut out = self.stream.alloc_zeros::<u8>(n)?;
            let config = Config::for_elements(n as u32, 256);
            let dims = lhs.layout.shape.len();
            // SAFETY: as for `binary`.
            unsafe {
                kernel.launch(&self.stream, config, n, dims, &info, &l, &r, &mut out)?;
            }
            Ok(self.output(&lhs.layout.shape, out))
        })
    }

    #[allow(clippy::type_complexity)]
    fn operands<'a, T: WithDType>(
        &self,
        lhs: &Tensor,
        rhs: &Tensor,
        l: &'a CudaSlice<T>,
        r: &'a CudaSlice<T>,
    ) -> Result<(
        usize,
        Option<CudaSlice<usize>>,
        cuda_kernel::cudarc::driver::CudaView<'a, T>,
        cuda_kernel::cudarc::driver::CudaView<'a, T>,
    )> {
        let info = self.info(&[&lhs.layout, &rhs.layout])?;
        Ok((
            lhs.layout.elem_count(),
            info,
            l.slice(lhs.layout.offset..),
            r.slice(rhs.layout.offset..),
        ))
    }

    fn same(&self, op: &'static str, lhs: &Tensor, rhs: &Tensor) -> Result<()> {
        if lhs.dtype() != rhs.dtype() {
            return Err(Error::DTypeMismatch {
                op,
                lhs: lhs.dtype(),
                rhs: rhs.dtype(),
            });
        }
        if lhs.shape() != rhs.shape() {
            return Err(shape_mismatch(op, lhs.shape(), rhs.shape()));
        }
        Ok(())
    }

    /// `x` converted to `dtype`.
    pub fn cast(&self, x: &Tensor, dtype: DType) -> Result<Tensor> {
        dispatch!(&*x.storage, |s: T| match dtype {
            DType::U8 => self.cast_typed::<T, u8>(s, x),
            DType::U32 => self.cast_typed::<T, u32>(s, x),
            DType::I64 => self.cast_typed::<T, i64>(s, x),
            DType::F16 => self.cast_typed::<T, f16>(s, x),
            DType::BF16 => self.cast_typed::<T, bf16>(s, x),
            DType::F32 => self.cast_typed::<T, f32>(s, x),
            DType::F64 => self.cast_typed::<T, f64>(s, x),
        })
    }

    fn cast_typed<T: WithDType, U: WithDType>(
        &self,
        src: &CudaSlice<T>,
        x: &Tensor,
    ) -> Result<Tensor> {
        let kernel = self.cast_kernels()?.cast::<T, U>()?;
        let layout = &x.layout;
        let n = layout.elem_count();
        let info = self.info(&[layout])?;
        let src = src.slice(layout.offset..);
        let mut out = self.stream.alloc_zeros::<U>(n)?;
        let config = Config::for_elements(n as u32, 256);
        // SAFETY: as for `unary`.
        unsafe {
            kernel.launch(
                &self.stream,
                config,
                n,
                layout.shape.len(),
                &info,
                &src,
                &mut out,
            )?;
        }
        Ok(self.output(&layout.shape, out))
    }

    /// `op` over the last dimension: `"sum"`, `"max"`, `"min"`, for the float dtypes.
    pub fn reduce(&self, op: &str, x: &Tensor) -> Result<Tensor> {
        dispatch!(&*x.storage, |s: T| {
            let kernel = self.reduce_kernels()?.reduce::<T>(op)?;
            let layout = &x.layout;
            let (n, last) = (layout.elem_count(), *layout.shape.last().unwrap_or(&1));
            let outputs = n / last.max(1);
            let info = self.info(&[layout])?;
            let src = s.slice(layout.offset..);
            let mut out = self.stream.alloc_zeros::<T>(outputs)?;
            let config = Config::new((outputs as u32, 1, 1), (256, 1, 1));
            let dims = layout.shape.len();
            // SAFETY: each of `outputs` blocks of 256 threads (the kernel's shared array) reads
            // `last` elements of `src` and writes one of `out`.
            unsafe {
                kernel.launch(&self.stream, config, n, last, dims, &info, &src, &mut out)?;
            }
            Ok(self.output(&layout.shape[..dims.saturating_sub(1)], out))
        })
    }

    /// `ids ? t : f` elementwise; `ids` of u8, u32 or i64.
    pub fn where_cond(&self, ids: &Tensor, t: &Tensor, f: &Tensor) -> Result<Tensor> {
        self.same("where_cond", t, f)?;
        if ids.shape() != t.shape() {
            return Err(shape_mismatch(
                "where_cond",
                ids.shape().to_vec(),
                t.shape().to_vec(),
            ));
        }
        dispatch!(&*t.storage, |tv: T| dispatch_ids!(
            &*ids.storage,
            "where_cond ids",
            |i: I| self.where_typed::<I, T>(i, tv, ids, t, f)
        ))
    }

    fn where_typed<I: WithDType, T: WithDType>(
        &self,
        ids_slice: &CudaSlice<I>,
        t_slice: &CudaSlice<T>,
        ids: &Tensor,
        t: &Tensor,
        f: &Tensor,
    ) -> Result<Tensor> {
        let kernel = self.select_kernels()?.where_cond::<I, T>()?;
        let f_slice = T::slice(&f.storage).expect("same dtype");
        let n = t.layout.elem_count();
        let info = self.info(&[&ids.layout, &t.layout, &f.layout])?;
        let (i, tv, fv) = (
            ids_slice.slice(ids.layout.offset..),
            t_slice.slice(t.layout.offset..),
            f_slice.slice(f.layout.offset..),
        );
        let mut out = self.stream.alloc_zeros::<T>(n)?;
        let config = Config::for_elements(n as u32, 256);
        let dims = t.layout.shape.len();
        // SAFETY: the kernel reads n elements of each operand as `info` addresses them and
        // writes n of `out`.
        unsafe {
            kernel.launch(&self.stream, config, n, dims, &info, &i, &tv, &fv, &mut out)?;
        }
        Ok(self.output(t.shape(), out))
    }

    /// The slices of contiguous `x` along `dim` that the 1-D `ids` name, in their order.
    pub fn index_select(&self, ids: &Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
        if !x.layout.is_contiguous() || ids.shape().len() != 1 || dim >= x.shape().len() {
            return Err(shape_mismatch(
                "index_select",
                ids.shape().to_vec(),
                x.shape().to_vec(),
            ));
        }
        dispatch!(&*x.storage, |xs: T| dispatch_ids!(
            &*ids.storage,
            "index_select ids",
            |i: I| self.index_typed::<I, T>(i, xs, ids, x, dim)
        ))
    }

    fn index_typed<I: WithDType, T: WithDType>(
        &self,
        ids_slice: &CudaSlice<I>,
        x_slice: &CudaSlice<T>,
        ids: &Tensor,
        x: &Tensor,
        dim: usize,
    ) -> Result<Tensor> {
        let kernel = self.select_kernels()?.index_select::<I, T>()?;
        let shape = x.shape();
        let left: usize = shape[..dim].iter().product();
        let right: usize = shape[dim + 1..].iter().product();
        let ids_len = ids.shape()[0];
        let mut out_shape = shape.to_vec();
        out_shape[dim] = ids_len;
        let n = left * ids_len * right;
        let info = self.info(&[&ids.layout])?;
        let (i, xv) = (
            ids_slice.slice(ids.layout.offset..),
            x_slice.slice(x.layout.offset..),
        );
        let mut out = self.stream.alloc_zeros::<T>(n)?;
        let config = Config::for_elements(n as u32, 256);
        // SAFETY: every id must be below shape[dim] (the caller's promise, as in candle); the
        // kernel then reads inside `x` and writes n elements of `out`.
        unsafe {
            kernel.launch(
                &self.stream,
                config,
                n,
                1,
                &info,
                &i,
                &xv,
                &mut out,
                left,
                shape[dim],
                ids_len,
                right,
            )?;
        }
        Ok(self.output(&out_shape, out))
    }
}

#[cfg(test)]
mod tests {
    use cuda_kernel::Kernel;

    use crate::kernels::{Cast, Cmp, Powf, Unary, WhereCond};

    /// What the compile-time check found in the PTX: each declaration's members, with entries
    /// another declaration binds (`upowf_f32`, `badd_f32`) left to it.
    #[test]
    fn declarations_cover_the_ptx() {
        let members = |f: Option<&cuda_kernel::__private::Family>| f.unwrap().members;
        let unary = members(<Unary<f32> as Kernel>::__FAMILY);
        assert_eq!(unary.len(), 43);
        assert!(unary.contains(&"usqrt_bf16") && !unary.iter().any(|m| m.starts_with("upowf")));
        assert_eq!(members(<Powf<f32> as Kernel>::__FAMILY).len(), 4);
        let cmp = members(<Cmp<f32> as Kernel>::__FAMILY);
        assert_eq!(cmp.len(), 42);
        assert!(!cmp.iter().any(|m| m.starts_with('b')));
        assert_eq!(members(<Cast<u8, f32> as Kernel>::__FAMILY).len(), 49);
        assert_eq!(members(<WhereCond<u8, f32> as Kernel>::__FAMILY).len(), 21);
        assert_eq!(Unary::<half::bf16>::symbol_named("exp"), "uexp_bf16");
        assert_eq!(Cast::<half::f16, i64>::symbol(), "cast_f16_i64");
    }
}
