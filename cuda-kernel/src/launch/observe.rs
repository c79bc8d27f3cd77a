//! Seeing launches: the call site every launch error names, the launch log and the verify mode
//! (switched on at run time, see [`crate::diagnostics`]), and NVTX ranges (the `nvtx`
//! feature). Every way to launch passes through here, so each of them is seen the same way.

use std::fmt::Write as _;
use std::panic::Location;
use std::sync::atomic::{AtomicU8, Ordering};

use cudarc::driver::{CudaStream, sys};

use crate::error::LaunchError;
use crate::{Attributed, Error, Loaded, ParamLayout};

/// Where a launch was written, and the lengths of its device memory arguments where the
/// launch log or the verify mode is on: what a generated `launch` hands the runtime.
#[derive(Clone, Copy, Debug)]
pub struct Site<'a> {
    pub(crate) location: &'static Location<'static>,
    /// One entry per parameter, `Some(len)` for device memory whose length is known; empty
    /// when nothing is observing (the generated code reads lengths only then).
    pub(crate) lengths: &'a [Option<usize>],
}

impl<'a> Site<'a> {
    /// The caller's location (`#[track_caller]`), with no lengths.
    #[track_caller]
    #[inline]
    pub fn here() -> Site<'static> {
        Site {
            location: Location::caller(),
            lengths: &[],
        }
    }

    /// `location`, with the lengths of the launch's device memory arguments.
    #[inline]
    pub fn new(location: &'static Location<'static>, lengths: &'a [Option<usize>]) -> Site<'a> {
        Site { location, lengths }
    }

    /// The call site.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }
}

const LOG: u8 = 1;
const VERIFY: u8 = 2;
/// The environment has not been read yet.
const UNREAD: u8 = 0x80;

static STATE: AtomicU8 = AtomicU8::new(UNREAD);

/// The environment variable that switches the launch log on (`1`, `true`, `on`, `yes`).
pub(crate) const LOG_VAR: &str = "CUDA_KERNEL_LOG";
/// The environment variable that switches the verify mode on.
pub(crate) const VERIFY_VAR: &str = "CUDA_KERNEL_VERIFY";

/// What is switched on; 0 in the common case. One relaxed load: all a launch pays for the log
/// and the verify mode while they are off (nothing without the `diagnostics` feature).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn observing() -> bool {
    cfg!(feature = "diagnostics") && STATE.load(Ordering::Relaxed) != 0
}

/// The switches, the environment read on first use.
#[cold]
fn switches() -> u8 {
    let state = STATE.load(Ordering::Relaxed);
    if state & UNREAD == 0 {
        return state;
    }
    let from_env = (env_flag(LOG_VAR) * LOG) | (env_flag(VERIFY_VAR) * VERIFY);
    // A switch set through the API since wins over the environment.
    match STATE.compare_exchange(state, from_env, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => from_env,
        Err(now) => now,
    }
}

fn env_flag(var: &str) -> u8 {
    match std::env::var(var) {
        Ok(value) => matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "on" | "yes"
        ) as u8,
        Err(_) => 0,
    }
}

pub(crate) fn set(flag: u8, on: bool) {
    let mut state = switches();
    loop {
        let new = if on { state | flag } else { state & !flag };
        match STATE.compare_exchange(state, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => state = now & !UNREAD,
        }
    }
}

pub(crate) fn is_on(flag: u8) -> bool {
    cfg!(feature = "diagnostics") && switches() & flag != 0
}

pub(crate) fn set_log(on: bool) {
    set(LOG, on)
}

pub(crate) fn set_verify(on: bool) {
    set(VERIFY, on)
}

pub(crate) fn log_on() -> bool {
    is_on(LOG)
}

pub(crate) fn verify_on() -> bool {
    is_on(VERIFY)
}

/// A launch as the log and errors show it.
pub(crate) struct Shown<'a> {
    pub(crate) loaded: &'a Loaded,
    pub(crate) layout: &'a ParamLayout,
    pub(crate) params: &'a [u8],
    pub(crate) config: &'a Attributed<'a>,
    pub(crate) stream: sys::CUstream,
}

impl<'a> Shown<'a> {
    pub(crate) fn new(
        loaded: &'a Loaded,
        layout: &'a ParamLayout,
        params: &'a [u8],
        config: &'a Attributed<'a>,
        stream: &CudaStream,
    ) -> Shown<'a> {
        Shown {
            loaded,
            layout,
            params,
            config,
            stream: stream.cu_stream(),
        }
    }

    /// The configuration and stream on one line, the arguments on the next.
    pub(crate) fn describe(&self, lengths: &[Option<usize>]) -> String {
        let mut text = describe_config(self.config, self.stream);
        text.push('\n');
        text.push_str(&describe_args(self.layout, self.params, lengths));
        text
    }

    /// The launch log's line: `what` the launch is (`launch`, `record`, `update`) and where
    /// (`""`, `" in a plan"`).
    #[cold]
    pub(crate) fn log(&self, what: &str, context: &str, site: &Site<'_>) {
        let config = describe_config(self.config, self.stream);
        let args = describe_args(self.layout, self.params, site.lengths);
        log_line(format_args!(
            "{what} `{}` at {}{context}: {config}; {args}",
            self.loaded.name(),
            site.location
        ));
    }

    /// `error` as this launch's failure, with its kernel, call site and description;
    /// `on_device` for a fault the verify mode found.
    #[cold]
    #[inline(never)]
    pub(crate) fn failed(&self, site: &Site<'_>, on_device: bool, error: Error) -> Error {
        let description = self.describe(site.lengths);
        failed(
            self.loaded.name(),
            site,
            Some(description),
            on_device,
            error,
        )
    }
}

pub(crate) fn describe_config(attributed: &Attributed<'_>, stream: sys::CUstream) -> String {
    let config = &attributed.config;
    let mut text = format!(
        "grid {:?}, block {:?}, {} bytes of shared memory, stream {:p}",
        config.grid, config.block, config.shared_mem_bytes, stream
    );
    if let Some(cluster) = config.cluster {
        let _ = write!(text, ", cluster {cluster:?}");
    }
    if config.cooperative {
        text.push_str(", cooperative");
    }
    if let Some(priority) = config.priority {
        let _ = write!(text, ", priority {priority}");
    }
    if config.programmatic {
        text.push_str(", programmatic dependency");
    }
    let a = config.attributes_or_none();
    if let Some(preferred) = a.preferred_cluster {
        let _ = write!(text, ", preferred cluster {preferred:?}");
    }
    if let Some(percent) = a.shared_carveout {
        let _ = write!(text, ", shared memory carveout {percent}%");
    }
    if let Some(domain) = a.mem_sync_domain {
        let _ = write!(text, ", memory sync domain {domain:?}");
    }
    if let Some(map) = a.mem_sync_domain_map {
        let _ = write!(text, ", domain map {}/{}", map.default, map.remote);
    }
    if a.nvlink_centric {
        text.push_str(", NVLink-centric");
    }
    if a.device_updatable {
        text.push_str(", device-updatable");
    }
    if let Some(window) = &attributed.l2_window {
        let (base, bytes) = window.range();
        let _ = write!(text, ", L2 window {bytes} bytes at {base:#x}");
    }
    if let Some(event) = attributed.completion_event {
        let _ = write!(text, ", completion event {:p}", event.cu_event());
    }
    if let Some(p) = attributed.programmatic_event {
        let _ = write!(text, ", programmatic event {:p}", p.event.cu_event());
    }
    text
}

/// Every argument of a packed buffer: scalars by value, pointers by address (with the length
/// in elements of the memory behind them, where `lengths` has it), anything else as bytes.
pub(crate) fn describe_args(
    layout: &ParamLayout,
    params: &[u8],
    lengths: &[Option<usize>],
) -> String {
    let mut text = String::new();
    for (i, slot) in layout.params.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "{} = ", slot.name);
        let Some(bytes) = params.get(slot.offset..slot.offset + slot.size) else {
            text.push('?');
            continue;
        };
        if slot.ty.pointers > 0 && bytes.len() == 8 {
            let address = u64::from_le_bytes(bytes.try_into().unwrap_or_default());
            if address == 0 {
                text.push_str("NULL");
            } else {
                let _ = write!(text, "{address:#x}");
            }
            if let Some(Some(len)) = lengths.get(i) {
                let _ = write!(text, " ({len} element{})", if *len == 1 { "" } else { "s" });
            }
        } else {
            write_value(&mut text, slot.ty.name, bytes);
        }
    }
    text
}

/// A scalar by the built-in type table's reading of its C type; other values as bytes.
fn write_value(text: &mut String, c_type: &str, bytes: &[u8]) {
    use cuda_kernel_syntax::types::{self, Class};
    let builtin = types::by_cuda_name(c_type).filter(|t| t.size == bytes.len());
    let rust = builtin.map(|t| t.alias_of.unwrap_or(t.name()));
    let int = |signed: bool| {
        let mut wide = [0u8; 8];
        wide[..bytes.len()].copy_from_slice(bytes);
        let raw = u64::from_le_bytes(wide);
        if signed {
            let shift = 64 - 8 * bytes.len() as u32;
            (((raw << shift) as i64) >> shift).to_string()
        } else {
            raw.to_string()
        }
    };
    let value = match (builtin.map(|t| t.class), rust) {
        (Some(Class::Integer), Some("bool")) => (bytes[0] != 0).to_string(),
        (Some(Class::Integer), Some(rust)) => int(rust.starts_with('i')),
        (Some(Class::Float), Some("f32")) => {
            f32::from_le_bytes(bytes.try_into().unwrap_or_default()).to_string()
        }
        (Some(Class::Float), Some("f64")) => {
            f64::from_le_bytes(bytes.try_into().unwrap_or_default()).to_string()
        }
        (Some(Class::Float), Some("f16")) => {
            half::f16::from_le_bytes(bytes.try_into().unwrap_or_default()).to_string()
        }
        (Some(Class::Float), Some("bf16")) => {
            half::bf16::from_le_bytes(bytes.try_into().unwrap_or_default()).to_string()
        }
        _ => {
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("{c_type} {{{}}}", hex.join(" "))
        }
    };
    text.push_str(&value);
}

/// A launch error with its kernel, call site and (where given) the launch.
#[cold]
#[inline(never)]
pub(crate) fn failed(
    kernel: &str,
    site: &Site<'_>,
    launch: Option<String>,
    on_device: bool,
    error: Error,
) -> Error {
    wrap(kernel, site, launch, on_device, false, error)
}

/// A plan's replay that failed; `plan` describes it.
#[cold]
#[inline(never)]
pub(crate) fn replay_failed(
    plan: &str,
    site: &Site<'_>,
    launches: Option<String>,
    on_device: bool,
    error: Error,
) -> Error {
    wrap(plan, site, launches, on_device, true, error)
}

fn wrap(
    kernel: &str,
    site: &Site<'_>,
    launch: Option<String>,
    on_device: bool,
    replay: bool,
    error: Error,
) -> Error {
    if let Error::Launch(_) = error {
        return error;
    }
    Error::Launch(Box::new(LaunchError {
        kernel: kernel.to_owned(),
        location: site.location,
        launch,
        on_device,
        replay,
        error,
    }))
}

/// A launch refused before anything was packed (memory of another context, a context that
/// could not be entered): what a generated `launch` maps its early errors through.
#[cold]
#[inline(never)]
pub fn refused(loaded: &Loaded, location: &'static Location<'static>, error: Error) -> Error {
    failed(loaded.name(), &Site::new(location, &[]), None, false, error)
}

/// One line of the launch log, through `log` where the application's logger takes it (target
/// `cuda_kernel::launch`, level info), on standard error otherwise: the log was asked for.
#[cold]
pub(crate) fn log_line(what: std::fmt::Arguments<'_>) {
    #[cfg(feature = "diagnostics")]
    if log::log_enabled!(target: "cuda_kernel::launch", log::Level::Info) {
        log::info!(target: "cuda_kernel::launch", "{what}");
        return;
    }
    eprintln!("[cuda-kernel] {what}");
}

/// The verify mode's check after a launch was queued: the stream synchronized, and a fault
/// named after the kernel that caused it.
#[cold]
pub(crate) fn verify(stream: &CudaStream, shown: &Shown<'_>, site: &Site<'_>) -> Result<(), Error> {
    crate::driver::result::stream_synchronize(stream.cu_stream())
        .map_err(|error| shown.failed(site, true, error))
}

/// An NVTX range around a launch or a replay, named after the kernel (the `nvtx` feature).
#[cfg(feature = "nvtx")]
pub(crate) struct Range(Option<&'static nvtx::Nvtx>);

#[cfg(feature = "nvtx")]
impl Range {
    /// Pushes a range named `name`, where an NVTX library can be loaded.
    #[inline]
    pub(crate) fn push(name: &std::ffi::CStr) -> Range {
        let nvtx = nvtx::get();
        if let Some(nvtx) = nvtx {
            // SAFETY: a NUL-terminated name alive for the call.
            unsafe { (nvtx.push)(name.as_ptr()) };
        }
        Range(nvtx)
    }
}

#[cfg(feature = "nvtx")]
impl Drop for Range {
    #[inline]
    fn drop(&mut self) {
        if let Some(nvtx) = self.0 {
            // SAFETY: pops the range `push` pushed on this thread.
            unsafe { (nvtx.pop)() };
        }
    }
}

/// NVTX's two entry points, from the library a profiler hooks: `libnvToolsExt` (NVTX 2, in
/// CUDA toolkits up to 12.8, which cudarc's `nvtx` module loads) or `libnvtx3interop` (NVTX 3's
/// shared build, in CUDA 12.9 and newer and the `nvidia-nvtx` wheels), whichever loads first.
#[cfg(feature = "nvtx")]
mod nvtx {
    use std::ffi::{c_char, c_int};
    use std::sync::OnceLock;

    pub(crate) struct Nvtx {
        pub(crate) push: unsafe extern "C" fn(*const c_char) -> c_int,
        pub(crate) pop: unsafe extern "C" fn() -> c_int,
        _library: libloading::Library,
    }

    const LIBRARIES: [&str; 4] = [
        "libnvToolsExt.so.1",
        "libnvToolsExt.so",
        "libnvtx3interop.so.1",
        "libnvtx3interop.so",
    ];

    /// The library, loaded on first use; `None` where there is none (no ranges, no error).
    pub(crate) fn get() -> Option<&'static Nvtx> {
        static NVTX: OnceLock<Option<Nvtx>> = OnceLock::new();
        NVTX.get_or_init(|| LIBRARIES.iter().find_map(|name| load(name)))
            .as_ref()
    }

    fn load(name: &str) -> Option<Nvtx> {
        // SAFETY: loading runs the library's initialisers, as any NVTX user does; the two
        // symbols have the C signatures of nvToolsExt.h.
        unsafe {
            let library = libloading::Library::new(name).ok()?;
            let push = *library
                .get::<unsafe extern "C" fn(*const c_char) -> c_int>(b"nvtxRangePushA\0")
                .ok()?;
            let pop = *library
                .get::<unsafe extern "C" fn() -> c_int>(b"nvtxRangePop\0")
                .ok()?;
            Some(Nvtx {
                push,
                pop,
                _library: library,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, ParamSlot, ffi};

    const LAYOUT: ParamLayout = ParamLayout::from_slots(&ParamLayout::place([
        ParamSlot::of::<*const f32>("x"),
        ParamSlot::of::<*mut f32>("y"),
        ParamSlot::of::<f32>("a"),
        ParamSlot::of::<i16>("s"),
        ParamSlot::of::<ffi::size_t>("n"),
        ParamSlot::of::<bool>("flag"),
        ParamSlot::of::<crate::Float2>("v"),
    ]));

    fn packed() -> Vec<u8> {
        let mut buf = vec![0u8; LAYOUT.size];
        let mut put = |i: usize, bytes: &[u8]| {
            let at = LAYOUT.params[i].offset;
            buf[at..at + bytes.len()].copy_from_slice(bytes);
        };
        put(0, &0x7f00_1000u64.to_le_bytes());
        put(1, &0u64.to_le_bytes());
        put(2, &2.5f32.to_le_bytes());
        put(3, &(-3i16).to_le_bytes());
        put(4, &1024usize.to_le_bytes());
        put(5, &[1]);
        put(6, &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]);
        buf
    }

    #[test]
    fn arguments_by_value_address_and_length() {
        let text = describe_args(&LAYOUT, &packed(), &[Some(1024), None]);
        assert_eq!(
            text,
            "x = 0x7f001000 (1024 elements), y = NULL, a = 2.5, s = -3, n = 1024, flag = true, \
             v = float2 {00 00 80 3f 00 00 00 40}"
        );
        // Without lengths (nothing observing), addresses alone.
        assert!(describe_args(&LAYOUT, &packed(), &[]).starts_with("x = 0x7f001000, y = NULL"));
        // A buffer shorter than the layout (never made by a launcher) is not read past.
        assert!(describe_args(&LAYOUT, &packed()[..10], &[]).ends_with("flag = ?, v = ?"));
    }

    #[test]
    fn configuration_with_its_attributes() {
        let config = Config::new((4, 1, 1), (256, 1, 1)).shared_mem(1024);
        let text = describe_config(&config.into(), std::ptr::null_mut());
        assert_eq!(
            text,
            "grid (4, 1, 1), block (256, 1, 1), 1024 bytes of shared memory, stream 0x0"
        );
    }

    #[test]
    fn an_error_names_kernel_line_and_launch_and_keeps_its_root() {
        let site = Site::here();
        let inner = Error::InvalidConfig {
            what: "block dimension x",
            value: 2048,
            limit: Some(1024),
        };
        let launch = Some(format!(
            "{}\n{}",
            describe_config(
                &Config::new((1, 1, 1), (2048, 1, 1)).into(),
                std::ptr::null_mut()
            ),
            describe_args(&LAYOUT, &packed(), &[])
        ));
        let e = failed("scale", &site, launch, false, inner);
        let text = e.to_string();
        let line = format!("{}:{}", file!(), site.location().line());
        assert!(
            text.starts_with(&format!("launch of `scale` at {line}")),
            "{text}"
        );
        assert!(text.contains("failed: block dimension x is 2048"), "{text}");
        assert!(
            text.contains("\n  grid (1, 1, 1), block (2048, 1, 1)"),
            "{text}"
        );
        assert!(text.contains("\n  x = 0x7f001000"), "{text}");
        assert!(matches!(e.root(), Error::InvalidConfig { value: 2048, .. }));
        let launch = e.launch().unwrap();
        assert_eq!(
            (launch.kernel(), launch.failed_on_device()),
            ("scale", false)
        );
        // Wrapping twice keeps the first (innermost) call site.
        let again = failed("other", &Site::here(), None, false, e);
        assert_eq!(again.launch().unwrap().kernel(), "scale");
        // A fault found by the verify mode says so.
        let fault = failed(
            "scale",
            &site,
            None,
            true,
            Error::Driver {
                call: "cuStreamSynchronize",
                source: cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
            },
        );
        let text = fault.to_string();
        assert!(
            text.starts_with(&format!("`scale`, launched at {line}")),
            "{text}"
        );
        assert!(text.contains("failed on the device"), "{text}");
        assert_eq!(
            fault.driver_code(),
            Some(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)
        );
    }

    #[test]
    fn switches_from_the_api() {
        // The environment is read first; the API overrides it either way.
        set_log(true);
        assert!(log_on() && observing());
        set_log(false);
        set_verify(true);
        assert!(verify_on() && !log_on());
        set_verify(false);
        assert!(!verify_on());
        assert!(!observing());
    }
}
