//! The one path of a launch: every way to launch a declared kernel (a launcher's `launch`, a
//! library launcher on any device, a cooperative or clustered launch, a plan's recorded launch
//! and its update, a graph node update) enters the stream's context ([`enter`], the caller's
//! given back after), finds the function for the stream's device and checks the launch here,
//! with [`prepare`], before its driver call.

use cudarc::driver::{CudaStream, sys};

use std::panic::Location;

use crate::declare::args::{LaunchArgs, Lengths, Pack};
use crate::declare::buffer::{ParamBytes, ParamPointers, buffer_extra, extra_or_null};
use crate::driver::attribute::names;
use crate::driver::result::{self, Entered};
use crate::{Attributed, Config, Error, Kernel, Loaded};

pub(crate) mod attributes;
pub(crate) mod completion;
pub mod contract;
pub(crate) mod observe;

use crate::config::{DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, KernelSharedMemory};
use observe::Shown;
pub use observe::Site;

/// Readies the calling thread for a launch on `stream`, giving the caller's context back when
/// the guard drops: what a generated `launch` does first, before borrowing its arguments.
///
/// A launch names its context through its stream where the stream is one of its own (not the
/// null stream, whose meaning is the current context's) and the driver is CUDA 13.0 or newer,
/// which takes a launch's context from its stream rather than from the thread. There the
/// launch needs nothing current, and entering asks nothing of the driver, unless cudarc manages
/// the context's stream synchronization (event tracking on, and a stream made with
/// `new_stream`: `is_managing_stream_synchronization`): its borrow guards then call the driver
/// with the context bound (`bind_to_thread`), so the stream's context is entered (made current,
/// or pushed over the caller's and popped after) as on the null stream and older drivers.
#[inline]
pub fn enter(stream: &CudaStream) -> Result<Entered, Error> {
    if !stream.cu_stream().is_null()
        && launches_follow_their_stream()
        && !stream.context().is_managing_stream_synchronization()
    {
        return Ok(Entered::NOTHING);
    }
    result::enter(stream.context())
}

/// Whether the driver takes a launch's context from its stream (CUDA 13.0 and newer): the
/// driver's version, which [`driver::version`](crate::driver::version) asks once.
#[inline]
fn launches_follow_their_stream() -> bool {
    crate::driver::version().is_ok_and(|v| v >= 13_000)
}

/// Readies a launch of `loaded` on `stream` (or, `in_graph`, a graph node of it), whose context
/// `_entered` made current: returns the function for the stream's device, and refuses what the
/// device would ([`check`]).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn prepare(
    entered: &Entered,
    loaded: &Loaded,
    stream: &CudaStream,
    attributed: &Attributed<'_>,
    params_len: usize,
    in_graph: bool,
) -> Result<sys::CUfunction, Error> {
    let config = &attributed.config;
    prepare_plain(
        entered,
        loaded,
        stream,
        config,
        Some(attributed),
        params_len,
        in_graph,
    )
    .map(|(f, _)| f)
}

/// [`prepare`], saying whether the launch is a plain one (`cuLaunchKernel`: no attribute, no
/// priority), which the launch path then need not ask again.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn prepare_plain(
    _entered: &Entered,
    loaded: &Loaded,
    stream: &CudaStream,
    config: &Config,
    borrowed: Option<&Attributed<'_>>,
    params_len: usize,
    in_graph: bool,
) -> Result<(sys::CUfunction, bool), Error> {
    let queried;
    let limits = match DeviceLimits::cached(stream) {
        Some(limits) => limits,
        None => {
            queried = DeviceLimits::of(stream)?;
            &queried
        }
    };
    let function = loaded.cu_function(stream)?;
    let plain = check(config, limits, params_len, &function)?;
    if let Some(compiled) = loaded.compiled_cluster() {
        check_compiled_cluster(config, compiled)?;
    }
    // A plain launch has no attribute, and `borrowed` is `None` unless something is borrowed.
    let plain = plain & borrowed.is_none();
    if !plain {
        check_attributes(config, borrowed, loaded, stream, in_graph)?;
    }
    Ok((function, plain))
}

/// The rules of a launch with attributes: those of the configuration's own
/// ([`Config::check_attributes`]) and of the borrowed ones against what the device and driver
/// take ([`AttributeLimits`](crate::config::AttributeLimits), read here, never for a plain launch), then
/// those that need the kernel or the stream.
#[cold]
fn check_attributes(
    config: &Config,
    borrowed: Option<&Attributed<'_>>,
    loaded: &Loaded,
    stream: &CudaStream,
    in_graph: bool,
) -> Result<(), Error> {
    let borrowed = borrowed.filter(|a| a.borrows());
    if config.attributes.is_none() && borrowed.is_none() {
        return Ok(());
    }
    let limits = crate::config::AttributeLimits::of(stream)?;
    config.check_attributes(&limits)?;
    if let Some(attributed) = borrowed {
        attributed.check_borrowed(&limits, stream, in_graph)?;
    }
    if config
        .attributes
        .is_some_and(|a| a.preferred_cluster.is_some() || a.device_updatable)
    {
        check_node_and_cluster_attributes(config, loaded, stream, in_graph)?;
    }
    Ok(())
}

/// The attribute rules that depend on the kernel or the stream: a preferred cluster needs a
/// required one (the configuration's or the kernel's compiled cluster) and is a multiple of
/// it; a device-updatable launch makes a graph node, so only a plan or a capturing stream
/// takes it.
#[cold]
fn check_node_and_cluster_attributes(
    config: &Config,
    loaded: &Loaded,
    stream: &CudaStream,
    in_graph: bool,
) -> Result<(), Error> {
    use crate::config::{attribute_error, check_preferred_multiple};
    let attributes = config.attributes_or_none();
    if let Some(preferred) = attributes.preferred_cluster {
        match (config.cluster, loaded.compiled_cluster()) {
            (None, Some(compiled)) => check_preferred_multiple(
                preferred,
                compiled,
                "the kernel's compiled cluster (`__cluster_dims__`)",
            )?,
            (None, None) => {
                return Err(attribute_error(
                    names::PREFERRED_CLUSTER,
                    "needs a required cluster too, the fallback where the preferred one does not fit: set `Config::cluster` (or compile the kernel with `__cluster_dims__`)".into(),
                ));
            }
            (Some(_), _) => {}
        }
    }
    if attributes.device_updatable && !in_graph && !result::stream_is_capturing(stream.cu_stream())?
    {
        return Err(attribute_error(
            names::DEVICE_UPDATABLE,
            "makes a graph's kernel node updatable, so a launch on a stream cannot take it: record the launch in a `Plan` (or launch on a capturing stream)".into(),
        ));
    }
    Ok(())
}

/// A kernel compiled with a cluster shape (`__cluster_dims__`) launches only on a grid that is
/// a multiple of it, and with no other cluster shape in its configuration
/// ([`Error::CompiledCluster`]); without this check the driver answers
/// `CUDA_ERROR_INVALID_CLUSTER_SIZE`, naming neither.
#[cold]
fn check_compiled_cluster(config: &Config, compiled: (u32, u32, u32)) -> Result<(), Error> {
    let (x, y, z) = compiled;
    let conflicting = config.cluster.is_some_and(|asked| asked != compiled);
    let (gx, gy, gz) = config.grid;
    if conflicting || gx % x != 0 || gy % y != 0 || gz % z != 0 {
        return Err(Error::CompiledCluster {
            compiled,
            grid: config.grid,
            launch: config.cluster,
        });
    }
    Ok(())
}

/// The launch check, one for every path: the configuration against the device's limits
/// ([`Error::InvalidConfig`], [`Error::Unsupported`], [`Error::ClusterMismatch`]), the parameter
/// bytes ([`Error::ParamsTooLarge`]) and, above the default 48 KiB, the dynamic shared memory
/// against what `kernel` may have, raising its limit where it can ([`Error::SharedMemoryLimit`]
/// where it cannot). Whether the configuration is a plain launch's ([`Config::check_plain`]).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn check(
    config: &Config,
    limits: &DeviceLimits,
    params_len: usize,
    kernel: &impl KernelSharedMemory,
) -> Result<bool, Error> {
    let plain = config.check_plain(limits)?;
    if params_len > limits.max_param_bytes {
        return Err(Error::ParamsTooLarge {
            size: params_len,
            limit: limits.max_param_bytes,
        });
    }
    if config.shared_mem_bytes > DEFAULT_SHARED_MEMORY_LIMIT {
        fit_shared_memory(config.shared_mem_bytes, limits, kernel)?;
    }
    Ok(plain)
}

/// Above the default 48 KiB, dynamic shared memory needs the kernel's own limit raised: a
/// launch raises it, to all the device allows beside the kernel's static shared memory (so
/// that launches asking for different sizes on other threads never lower it under one
/// another), or refuses what is beyond that.
#[cold]
fn fit_shared_memory(
    bytes: u32,
    limits: &DeviceLimits,
    kernel: &impl KernelSharedMemory,
) -> Result<(), Error> {
    // Once raised, one query per launch, as before the raise; the static size only to raise.
    if bytes <= kernel.shared_memory_limit()? {
        return Ok(());
    }
    let most = limits
        .max_shared_memory_optin
        .saturating_sub(kernel.static_shared_memory()?);
    if bytes > most {
        return Err(Error::SharedMemoryLimit {
            bytes,
            kernel_limit: most,
            device_max: limits.max_shared_memory_optin,
        });
    }
    kernel.raise_shared_memory(most)
}

/// Launches `loaded` on `stream` with `args`, one per parameter: what a generated `launch`
/// calls, so that checking, borrowing, packing and launching are written once, for every
/// signature, and compiled once per parameter count (each argument brings the functions of its
/// type, made once per type whatever the kernel: [`LaunchArg`](crate::__private::LaunchArg)).
///
/// Each argument is checked first (memory of another context is refused), then the stream's
/// context entered, each argument borrowed on the stream (ordering the launch after earlier
/// work on its memory, as cudarc's own launches do) and written at its slot of the layout in
/// one buffer on the stack ([`ParamBytes`]), and the buffer launched through [`launch_packed`],
/// which makes the one launch check; the borrows' guards record the launch before the caller's
/// context is given back. A failure is an [`Error::Launch`] naming the kernel and the caller's
/// line.
///
/// # Safety
/// The kernel runs with these arguments unchecked: as for the generated `launch` (the caller's,
/// or the declaration's author's for a safe one); `declared` is the layout of the kernel
/// `loaded` was loaded and checked as, `args` its arguments in order.
// Compiled once per parameter count; in an optimized build always inlined into the launcher,
// where the arguments' functions are known and inline too (called through their pointers, a
// launch costs a tenth of a microsecond more: docs/BENCHMARKS.md).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
#[track_caller]
pub unsafe fn launch<'a, A: LaunchArgs<'a>>(
    loaded: &Loaded,
    declared: &'static crate::ParamLayout,
    stream: &'a CudaStream,
    config: Attributed<'_>,
    args: A,
) -> Result<(), Error> {
    let at = Location::caller();
    let refused = |e| observe::refused(loaded, at, e);
    // With the launch log or the verify mode on, the memory's lengths too, read before the
    // borrows (which hold `*mut` arguments).
    let mut lengths = Lengths::new(observe::observing());
    args.check(stream, &mut lengths).map_err(refused)?;
    let lengths = lengths.into_vec();
    // The stream's context, current until the end (the caller's is given back after the
    // borrows' guards have recorded the launch).
    let entered = enter(stream).map_err(refused)?;
    let layout = layout_in(loaded, declared).map_err(refused)?;
    with_params(layout.size, |buf| {
        // The guards are held until the launch is queued.
        let _held = args.put(stream, layout.params, buf);
        // SAFETY: the buffer holds every parameter at the offset the declaration gives it;
        // the declaration's soundness is the caller's.
        // A configuration without borrowed attributes (a `Config`, the usual case) is passed
        // alone, so that nothing more than before is built for it.
        unsafe {
            launch_parts(
                loaded,
                &entered,
                stream,
                &config.config,
                config.borrows().then_some(&config),
                layout,
                buf,
                Site::new(at, &lengths),
            )
        }
    })
}

/// The layout `kernel`'s launches pack by: its declaration's where that holds on every GPU (a
/// constant, once inlined), else the one its loaded function places the parameters in, as the
/// driver reported it at load ([`Loaded::layout`]).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn layout_of<K: Kernel>(loaded: &Loaded) -> Result<&crate::ParamLayout, Error> {
    layout_in(loaded, const { &K::LAYOUT })
}

/// [`layout_of`] with the declared layout as a value (a constant's address, which inlining
/// folds).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn layout_in<'a>(
    loaded: &'a Loaded,
    declared: &'static crate::ParamLayout,
) -> Result<&'a crate::ParamLayout, Error> {
    if declared.is_fixed() {
        return Ok(declared);
    }
    placed_layout(loaded, declared)
}

/// The loaded function's layout, for a declaration whose layout the GPU places.
#[inline(never)]
fn placed_layout<'a>(
    loaded: &'a Loaded,
    declared: &crate::ParamLayout,
) -> Result<&'a crate::ParamLayout, Error> {
    loaded.layout().ok_or_else(|| {
        let param = &declared.params[declared.fixed];
        Error::UnplacedParam {
            kernel: loaded.name().into(),
            param: param.name,
            align: param.align,
        }
    })
}

/// Moves each parameter of `bytes`, packed at `from`'s offsets, to `to`'s: a buffer packed by
/// a declaration's layout, for a function that places its parameters elsewhere.
pub(crate) fn repack(
    from: &crate::ParamLayout,
    to: &crate::ParamLayout,
    bytes: &[u8],
) -> ParamBytes {
    let mut placed = ParamBytes::new(to.size);
    let out = placed.bytes_mut();
    for (a, b) in from.params.iter().zip(to.params) {
        if let (Some(src), Some(dst)) =
            (bytes.get(a.offset..a.end()), out.get_mut(b.offset..b.end()))
        {
            dst.copy_from_slice(src);
        }
    }
    placed
}

/// Runs `f` on `len` zeroed bytes: on the stack up to [`ParamBytes::INLINE`] (the 4 KiB every
/// driver takes), on the heap above. With `len` a constant (a declaration's layout, once the
/// launch is inlined into its launcher) only one way is compiled in, and its stack array is the
/// smallest of 128, 512 and 4096 bytes that holds the parameters (a frame above a page probes
/// the stack on every call).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn with_params<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if len <= 128 {
        on_stack::<128, R>(len, f)
    } else if len <= 512 {
        on_stack::<512, R>(len, f)
    } else if len <= ParamBytes::INLINE {
        on_stack::<{ ParamBytes::INLINE }, R>(len, f)
    } else {
        f(&mut vec![0; len])
    }
}

/// [`with_params`] in an array of `N` bytes, `len` of them zeroed and handed to `f`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn on_stack<const N: usize, R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    #[repr(C, align(16))]
    struct Stack<const N: usize>([core::mem::MaybeUninit<u8>; N]);
    let mut stack = Stack::<N>([core::mem::MaybeUninit::uninit(); N]);
    debug_assert!(len <= N);
    // SAFETY: `len <= N` bytes lie inside the array; zeroing them initializes them.
    let bytes = unsafe {
        core::ptr::write_bytes(stack.0.as_mut_ptr(), 0, len);
        core::slice::from_raw_parts_mut(stack.0.as_mut_ptr().cast::<u8>(), len)
    };
    f(bytes)
}

/// Packs `args` (device addresses as `CUdeviceptr`, values) into `K`'s parameter buffer: what
/// a generated `pack` calls. The buffer follows the declaration's layout, `K::LAYOUT` (for a
/// parameter aligned above 16 bytes, the C rule's offsets; a graph node update places them
/// where the loaded function takes them).
#[inline]
pub fn pack<K: Kernel, A: Pack<K::__Params>>(args: A) -> ParamBytes {
    let mut buf = ParamBytes::new(K::LAYOUT.size);
    args.pack(K::LAYOUT.params, buf.bytes_mut());
    buf
}

/// A contract's verdict on a launch, named as the launch's own errors are: what a generated
/// `launch` of a kernel with a contract calls before [`launch`].
#[inline]
#[track_caller]
pub fn contract_holds<K: Kernel>(kernel: &K, verdict: Result<(), Error>) -> Result<(), Error> {
    let at = Location::caller();
    verdict.map_err(|e| observe::refused(kernel.__loaded(), at, e))
}

/// [`launch`] for a signature known as a value (not monomorphized per kernel, so that
/// generated code stays small; also what tests of run-time signatures call).
///
/// # Safety
/// As for [`launch`], with `params` packed as `layout`, the layout of `loaded`.
pub unsafe fn launch_packed(
    loaded: &Loaded,
    entered: &Entered,
    stream: &CudaStream,
    config: &Attributed<'_>,
    layout: &crate::ParamLayout,
    params: &mut [u8],
    site: Site<'_>,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    unsafe {
        launch_parts(
            loaded,
            entered,
            stream,
            &config.config,
            config.borrows().then_some(config),
            layout,
            params,
            site,
        )
    }
}

/// [`launch_packed`] with the configuration's borrowed attributes apart (`None` for none).
#[allow(clippy::too_many_arguments)]
unsafe fn launch_parts(
    loaded: &Loaded,
    entered: &Entered,
    stream: &CudaStream,
    config: &Config,
    borrowed: Option<&Attributed<'_>>,
    layout: &crate::ParamLayout,
    params: &mut [u8],
    site: Site<'_>,
) -> Result<(), Error> {
    let launch = Launch {
        loaded,
        entered,
        stream,
        config,
        borrowed,
        layout,
    };
    if observe::observing() {
        // SAFETY: the caller's.
        return unsafe { launch.observed(params, site) };
    }
    // SAFETY: the caller's.
    unsafe { launch.named(params, &site) }
}

/// A launch about to be made, but for its packed parameters.
struct Launch<'a> {
    loaded: &'a Loaded,
    entered: &'a Entered,
    stream: &'a CudaStream,
    config: &'a Config,
    borrowed: Option<&'a Attributed<'a>>,
    layout: &'a crate::ParamLayout,
}

impl Launch<'_> {
    /// The configuration whole, for messages.
    #[cold]
    fn attributed(&self) -> Attributed<'_> {
        self.borrowed
            .copied()
            .unwrap_or_else(|| Attributed::from(*self.config))
    }

    /// The launch inside its NVTX range (the `nvtx` feature), a failure named after the kernel,
    /// `site` and the launch.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn named(&self, params: &mut [u8], site: &Site<'_>) -> Result<(), Error> {
        let Launch {
            loaded,
            stream,
            layout,
            ..
        } = *self;
        #[cfg(feature = "nvtx")]
        let _range = observe::Range::push(loaded.c_name());
        // SAFETY: the caller's.
        unsafe { launch_checked(self, params) }.map_err(|e| {
            let config = self.attributed();
            Shown::new(loaded, layout, params, &config, stream).failed(site, false, e)
        })
    }

    /// With the log or the verify mode on: logged before, synchronized after.
    #[cold]
    #[inline(never)]
    unsafe fn observed(&self, params: &mut [u8], site: Site<'_>) -> Result<(), Error> {
        let config = self.attributed();
        if observe::log_on() {
            let shown = Shown::new(self.loaded, self.layout, params, &config, self.stream);
            shown.log("launch", "", &site);
        }
        // SAFETY: the caller's.
        unsafe { self.named(params, &site) }?;
        if observe::verify_on() {
            let shown = Shown::new(self.loaded, self.layout, params, &config, self.stream);
            observe::verify(self.stream, &shown, &site)?;
        }
        Ok(())
    }
}

/// The launch itself: checked, then the driver call.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn launch_checked(launch: &Launch<'_>, params: &mut [u8]) -> Result<(), Error> {
    let Launch {
        loaded,
        entered,
        stream,
        config,
        borrowed,
        layout,
    } = *launch;
    let (function, plain) = prepare_plain(
        entered,
        loaded,
        stream,
        config,
        borrowed,
        params.len(),
        false,
    )?;
    let mut size = params.len();
    let mut extra = buffer_extra(params, &mut size);
    let extra_ptr = extra_or_null(&mut extra, params);
    if plain {
        // SAFETY: `extra` describes the packed buffer and its size, both alive for the call;
        // the caller vouches for the contents.
        return unsafe {
            result::launch_kernel(
                function,
                config.grid,
                config.block,
                config.shared_mem_bytes,
                stream.cu_stream(),
                extra_ptr,
            )
        };
    }
    let attributed = launch.attributed();
    // SAFETY: as above.
    unsafe { launch_extended(function, stream, &attributed, layout, params, extra_ptr) }
}

/// `cuLaunchKernelEx` with the attributes of `attributed`.
#[cold]
unsafe fn launch_extended(
    function: sys::CUfunction,
    stream: &CudaStream,
    attributed: &Attributed<'_>,
    layout: &crate::ParamLayout,
    params: &mut [u8],
    extra: *mut *mut std::ffi::c_void,
) -> Result<(), Error> {
    let config = &attributed.config;
    let mut attrs = attributed.launch_attributes();
    let attrs = attrs.as_mut();
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid.0,
        gridDimY: config.grid.1,
        gridDimZ: config.grid.2,
        blockDimX: config.block.0,
        blockDimY: config.block.1,
        blockDimZ: config.block.2,
        sharedMemBytes: config.shared_mem_bytes,
        hStream: stream.cu_stream(),
        // The driver's `CUlaunchAttribute` layout (`RawAttribute`), read only by the driver.
        attrs: attrs.as_mut_ptr().cast(),
        numAttrs: attrs.len() as u32,
    };
    if config.cooperative {
        // Cooperative launches refuse `extra`: one pointer per parameter, into the buffer.
        let mut pointers = ParamPointers::new(layout, params);
        // SAFETY: the pointers point into `params`, alive for the call.
        unsafe {
            result::launch_kernel_ex(
                &launch,
                function,
                pointers.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
    } else {
        // SAFETY: `extra` describes `params`, alive for the call.
        unsafe { result::launch_kernel_ex(&launch, function, std::ptr::null_mut(), extra) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_PARAM_BYTES_LEGACY;
    use crate::config::H200;

    /// A kernel's shared memory as the check sees it: its limit (raised by the check), its
    /// static shared memory.
    struct Shared(std::cell::Cell<u32>, u32);

    impl KernelSharedMemory for Shared {
        fn shared_memory_limit(&self) -> Result<u32, Error> {
            Ok(self.0.get())
        }

        fn static_shared_memory(&self) -> Result<u32, Error> {
            Ok(self.1)
        }

        fn raise_shared_memory(&self, bytes: u32) -> Result<(), Error> {
            self.0.set(bytes);
            Ok(())
        }
    }

    /// A kernel the check must not ask about.
    struct Unasked;

    impl KernelSharedMemory for Unasked {
        fn shared_memory_limit(&self) -> Result<u32, Error> {
            unreachable!()
        }

        fn static_shared_memory(&self) -> Result<u32, Error> {
            unreachable!()
        }

        fn raise_shared_memory(&self, _: u32) -> Result<(), Error> {
            unreachable!()
        }
    }

    fn refused(config: Config, limits: &DeviceLimits, params: usize, fixed: u32) -> String {
        let kernel = Shared(std::cell::Cell::new(48 * 1024), fixed);
        check(&config, limits, params, &kernel)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_compiled_cluster_refuses_other_grids_and_other_clusters() {
        let refused = |config: Config| {
            check_compiled_cluster(&config, (2, 1, 1))
                .unwrap_err()
                .to_string()
        };
        assert!(check_compiled_cluster(&Config::new((8, 2, 1), (64, 1, 1)), (2, 1, 1)).is_ok());
        let same = Config::new((8, 1, 1), (64, 1, 1)).cluster((2, 1, 1));
        assert!(check_compiled_cluster(&same, (2, 1, 1)).is_ok());
        assert_eq!(
            refused(Config::new((7, 1, 1), (64, 1, 1))),
            "the grid (7, 1, 1) is not a multiple of the cluster (2, 1, 1) the kernel was compiled with (`__cluster_dims__`): make each grid dimension a multiple of the cluster's"
        );
        assert_eq!(
            refused(Config::new((8, 1, 1), (64, 1, 1)).cluster((4, 1, 1))),
            "the launch asks for clusters of (4, 1, 1) blocks but the kernel was compiled with clusters of (2, 1, 1) (`__cluster_dims__`), which a launch cannot change: launch without `Config::cluster`, or with (2, 1, 1)"
        );
        assert!(check_compiled_cluster(&Config::new((4, 3, 1), (1, 1, 1)), (1, 2, 1)).is_err());
    }

    #[test]
    fn one_check_refuses_blocks_shared_memory_and_parameter_bytes() {
        let plain = Config::for_elements(1024, 256);
        assert!(check(&plain, &H200, 28, &Unasked).is_ok());
        assert_eq!(
            refused(Config::new((1, 1, 1), (2048, 1, 1)), &H200, 28, 0),
            "block dimension x is 2048 but this device allows at most 1024"
        );
        assert!(
            refused(plain.shared_mem(300_000), &H200, 28, 0)
                .starts_with("dynamic shared memory per block (bytes, opt-in maximum) is 300000")
        );
        // Above 48 KiB the check raises the kernel's limit, to all the device allows beside
        // its static shared memory, once.
        let kernel = Shared(std::cell::Cell::new(48 * 1024), 1024);
        assert!(check(&plain.shared_mem(64 * 1024), &H200, 28, &kernel).is_ok());
        assert_eq!(kernel.0.get(), 232_448 - 1024);
        assert!(check(&plain.shared_mem(100 * 1024), &H200, 28, &kernel).is_ok());
        assert_eq!(kernel.0.get(), 232_448 - 1024);
        // What the static shared memory leaves is the most a launch may ask.
        assert_eq!(
            refused(plain.shared_mem(232_000), &H200, 28, 16 * 1024),
            "the launch asks for 232000 bytes of dynamic shared memory per block, but this kernel can have at most 216064: this device's opt-in maximum of 232448 bytes per block, less the kernel's static shared memory"
        );
        let legacy = DeviceLimits {
            max_param_bytes: MAX_PARAM_BYTES_LEGACY,
            ..H200
        };
        assert!(refused(plain, &legacy, 5000, 0).contains("5000"));
        assert!(check(&plain, &legacy, 4096, &Unasked).is_ok());
    }
}
