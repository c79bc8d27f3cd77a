//! The error type of every fallible operation in cuda-kernel.

use crate::ParamLayout;
use cudarc::driver::{DriverError, sys};

/// What can go wrong when loading or launching a kernel.
///
/// Every message names what failed and, where there is one, what to do about it.
///
/// ```
/// let e = cuda_kernel::Error::KernelNotFound { kernel: "vector_add".into() };
/// assert!(e.to_string().contains("`vector_add`"));
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so` / `nvcuda.dll`) could not be loaded.
    #[error(
        "no CUDA driver on this machine: libcuda could not be loaded (install the NVIDIA driver, or run on a machine with a CUDA GPU)"
    )]
    NoDriver,

    /// The module has no kernel of this name.
    #[error(
        "kernel `{kernel}` not found in the module: check the .entry names in its PTX (a kernel not declared extern \"C\" appears under its C++-mangled name)"
    )]
    KernelNotFound {
        /// The entry symbol that was looked up.
        kernel: String,
    },

    /// The module lacks a member of a family (or a run-time name of a kernel named at run time)
    /// that the launcher asked for.
    #[error(
        "kernel `{kernel}` not found in the module: `{pattern}` in {file} has no such member; {scope} are {} (add the kernel to the .cu file, or give its type the name the file uses with #[kernel(names(Type = \"name\"))])",
        .members.join(", ")
    )]
    MemberNotFound {
        /// The entry symbol that was looked up.
        kernel: String,
        /// The family's symbol pattern (`affine_{T}`).
        pattern: &'static str,
        /// The PTX file the declaration was checked against.
        file: &'static str,
        /// The members it has: those for the same type arguments where there are some.
        members: Vec<String>,
        /// What `members` lists.
        scope: &'static str,
    },

    /// The module lacks the instance of a C++ template that the launcher asked for (a struct or
    /// value argument, which the compile-time check cannot name, or a module built from other
    /// sources than the PTX the declaration was checked against).
    #[error(
        "kernel `{kernel}` not found in the module: the template `{template}` in {file} has no such instance (nvcc compiles a template only for the instances the .cu file names: add an explicit instantiation); its instances are {}",
        .instances.join(", ")
    )]
    InstanceNotFound {
        /// The instance looked up, as C++ writes it.
        kernel: String,
        /// The template's name.
        template: &'static str,
        /// The PTX file the declaration was checked against.
        file: &'static str,
        /// Every instance that PTX has, as the Rust that loads it, with the C++ it is.
        instances: Vec<String>,
    },

    /// Device memory of another context given to a launch ([`DeviceMemory`](crate::DeviceMemory)
    /// records the context its memory belongs to).
    #[error(
        "device memory at {ptr:#x} belongs to another context than the launch's stream (a stream of device {device}'s context): launch it on a stream of the context it was allocated in"
    )]
    WrongContext {
        /// The memory's address.
        ptr: u64,
        /// The device of the stream's context.
        device: usize,
    },

    /// The module has no `__constant__` or `__device__` variable of this name.
    #[error(
        "device global `{name}` not found in the module: check the .const and .global variables of its PTX (a variable in a C++ namespace appears under its mangled name)"
    )]
    GlobalNotFound {
        /// The symbol that was looked up.
        name: String,
    },

    /// A device global whose size in the module differs from its declaration.
    #[error(
        "device global `{name}` is declared with {declared} bytes but the module's variable has {loaded}"
    )]
    GlobalMismatch {
        /// The variable's symbol.
        name: String,
        /// Bytes of the declared type.
        declared: usize,
        /// Bytes of the module's variable.
        loaded: usize,
    },

    /// The loaded function's parameters differ from the `#[kernel]` declaration.
    #[error(transparent)]
    SignatureMismatch(Box<SignatureMismatch>),

    /// A declared parameter is aligned above 16 bytes (a TMA descriptor, a
    /// `#[repr(C, align(64))]` struct), so its offset is the GPU's to choose, and this driver
    /// cannot report it (`cuFuncGetParamInfo` came with CUDA 12.4): loading refuses it rather
    /// than launch at a guessed offset.
    #[error(
        "parameter `{param}` of kernel `{kernel}` is aligned to {align} bytes, so its offset in the parameter buffer depends on the GPU and only the driver can say it, but this driver cannot (cuFuncGetParamInfo needs a CUDA 12.4 or newer driver): update the driver, or pass the value through device memory as *const T"
    )]
    UnplacedParam {
        /// The kernel's entry symbol.
        kernel: String,
        /// The parameter's name in the declaration.
        param: &'static str,
        /// Its alignment in bytes.
        align: usize,
    },

    /// A library's kernel with a parameter aligned above 16 bytes launched on a device whose
    /// function places it elsewhere than the function the load checked (GPUs of different
    /// architectures place such parameters differently).
    #[error(
        "parameter `{param}` sits at offset {offset} on device {ordinal} but at {loaded} where the library was loaded (GPUs of different architectures place parameters aligned above 16 bytes differently): load the kernel from a module on each device instead"
    )]
    PlacedElsewhere {
        /// The parameter's name in the declaration.
        param: &'static str,
        /// The device's ordinal.
        ordinal: usize,
        /// Its offset in that device's function.
        offset: usize,
        /// Its offset in the function the load checked.
        loaded: usize,
    },

    /// A TMA descriptor's shape breaks a rule of the driver's (`cuTensorMapEncodeTiled`), or
    /// reaches past the memory it describes: which field, and the rule.
    #[error("invalid TMA descriptor: {field}: {rule}")]
    TensorMap {
        /// The field at fault: `global address`, `dims`, `strides`, `box dims`, `swizzle`, ...
        field: &'static str,
        /// The rule it breaks, with its value.
        rule: String,
    },

    /// The launch's parameters exceed what this GPU and driver accept: 4,096 bytes before Volta
    /// or under a driver older than CUDA 12.1, 32,764 bytes otherwise.
    #[error(
        "the kernel's parameters take {size} bytes but this GPU and driver accept {limit}: more than 4096 bytes needs a Volta or newer GPU and a CUDA 12.1+ driver; pass large data through device memory instead"
    )]
    ParamsTooLarge {
        /// Bytes the parameters take.
        size: usize,
        /// Bytes the device accepts.
        limit: usize,
    },

    /// A launch configuration outside the device's limits.
    #[error("{}", config_text(what, *value, *limit))]
    InvalidConfig {
        /// What is out of range (`block dimension x`, `threads per block`, ...).
        what: &'static str,
        /// The configured value.
        value: u64,
        /// The device's limit; `None` when the value must not be 0.
        limit: Option<u64>,
    },

    /// Cluster dimensions that do not divide the grid.
    #[error(
        "{what} is {cluster}, which does not divide grid dimension {grid}: make the grid a multiple of the cluster"
    )]
    ClusterMismatch {
        /// Which dimension.
        what: &'static str,
        /// The cluster's size in it.
        cluster: u32,
        /// The grid's size in it.
        grid: u32,
    },

    /// A launch that disagrees with the thread-block cluster shape its kernel was compiled with
    /// (`__cluster_dims__`, PTX `.reqnctapercluster`): a grid that is not a multiple of it, or a
    /// launch configuration asking for another cluster shape, which a launch cannot change.
    #[error("{}", compiled_cluster_text(*compiled, *grid, *launch))]
    CompiledCluster {
        /// The cluster shape the kernel was compiled with.
        compiled: (u32, u32, u32),
        /// The launch's grid.
        grid: (u32, u32, u32),
        /// The cluster shape the launch configuration asks for, if any.
        launch: Option<(u32, u32, u32)>,
    },

    /// Dynamic shared memory above what the kernel can have: the device's opt-in maximum per
    /// block less the kernel's static shared memory. (Below that a launch raises the kernel's
    /// limit itself.)
    #[error(
        "the launch asks for {bytes} bytes of dynamic shared memory per block, but this kernel can have at most {kernel_limit}: this device's opt-in maximum of {device_max} bytes per block, less the kernel's static shared memory"
    )]
    SharedMemoryLimit {
        /// Bytes the configuration asks for.
        bytes: u32,
        /// The most the kernel can have: `device_max` less its static shared memory.
        kernel_limit: u32,
        /// The device's opt-in maximum per block.
        device_max: u32,
    },

    /// A condition of the kernel's contract (`#[requires(...)]`) that the launch's arguments
    /// break: the launch was refused before the driver was called.
    #[error("the contract `{condition}` does not hold: {values}")]
    ContractViolated {
        /// The condition, as the declaration writes it.
        condition: &'static str,
        /// The values of the terms it names.
        values: String,
    },

    /// A launch attribute (an option of [`Config`](crate::Config) or
    /// [`Attributed`](crate::Attributed)) that this launch, GPU or driver cannot take, refused
    /// before the driver saw it: the attribute and the rule it breaks.
    #[error("launch attribute `{attribute}`: {rule}")]
    LaunchAttribute {
        /// The attribute, as `Config` names it (`preferred_cluster`, `l2_window`, ...).
        attribute: &'static str,
        /// The rule, with the values that break it.
        rule: String,
    },

    /// A launch feature this GPU or driver does not have, or a call the launcher, plan or
    /// graph does not allow as made (a kernel named at run time loaded without its name, a
    /// launch recorded in another plan): the sentence says which and what to do.
    #[error("{0}")]
    Unsupported(&'static str),

    /// NVRTC's library (`libnvrtc`) could not be loaded.
    #[error(
        "NVRTC is not on this machine: libnvrtc could not be loaded (install the CUDA toolkit's NVRTC, or put its lib folder on LD_LIBRARY_PATH)"
    )]
    NoNvrtc,

    /// PTX text that cannot be handed to the driver.
    #[error("invalid PTX: {0}")]
    InvalidPtx(&'static str),

    /// CUDA C source that NVRTC could not compile ([`nvrtc::compile`](crate::nvrtc::compile)).
    #[error("NVRTC could not compile {name} ({code:?}; options: {}):\n{log}", .options.join(" "))]
    Compile {
        /// The program's name as given to NVRTC (it starts each line of the log).
        name: String,
        /// NVRTC's result code (`NVRTC_ERROR_COMPILATION`, ...).
        code: cudarc::nvrtc::sys::nvrtcResult,
        /// The options the compilation ran with.
        options: Vec<String>,
        /// NVRTC's compile log: the compiler's messages, with lines.
        log: String,
    },

    /// The driver's JIT refused a module's PTX (or an image it could not use): with what the JIT
    /// said, line and reason (`CU_JIT_ERROR_LOG_BUFFER`).
    #[error("{call} failed{}: {}{}", .file.map(|f| format!(" for {f}")).unwrap_or_default(), driver_error_text(.source), jit_text(.log))]
    Jit {
        /// The load that failed (`cuModuleLoadData`, `cuLibraryLoadData`).
        call: &'static str,
        /// The PTX file the module came from, where known (a block's `ptx = "..."`).
        file: Option<&'static str>,
        /// The driver's error code.
        source: DriverError,
        /// The JIT's error log (or its info log where the error log is empty), trimmed.
        log: String,
    },

    /// A launch (or a plan's recording, update or replay) that failed: the kernel, the
    /// caller's file and line and the launch as it was asked for, around what went wrong
    /// ([`Error::root`]).
    #[error(transparent)]
    Launch(Box<LaunchError>),

    /// A CUDA driver call failed.
    #[error("{call} failed: {}", driver_error_text(.source))]
    Driver {
        /// The driver entry point that failed (`cuLaunchKernel`, ...).
        call: &'static str,
        /// The driver's error code.
        source: DriverError,
    },
}

/// The message, as for `Display`: what `fn main() -> Result<(), cuda_kernel::Error>` prints on
/// failure, one clear line rather than the variant's fields.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Error {
    /// Wraps a driver error with the name of the call that returned it.
    pub(crate) fn driver(call: &'static str) -> impl FnOnce(DriverError) -> Error {
        move |source| Error::Driver { call, source }
    }

    /// The driver's result code, for [`Error::Driver`] (also inside an [`Error::Launch`]).
    pub fn driver_code(&self) -> Option<sys::CUresult> {
        match self.root() {
            Error::Driver { source, .. } | Error::Jit { source, .. } => Some(source.0),
            _ => None,
        }
    }

    /// What went wrong, without the launch around it: for an [`Error::Launch`] the error it
    /// carries, for any other the error itself. Match on this to tell kinds of failure apart.
    ///
    /// ```
    /// # fn f(e: cuda_kernel::Error) {
    /// if let cuda_kernel::Error::InvalidConfig { what, .. } = e.root() {
    ///     eprintln!("fix the launch configuration: {what}");
    /// }
    /// # }
    /// ```
    pub fn root(&self) -> &Error {
        match self {
            Error::Launch(launch) => launch.error.root(),
            other => other,
        }
    }

    /// The launch around this error, for an [`Error::Launch`]: the kernel, the call site and
    /// the launch's arguments.
    pub fn launch(&self) -> Option<&LaunchError> {
        match self {
            Error::Launch(launch) => Some(launch),
            _ => None,
        }
    }
}

/// A failed launch, as [`Error::Launch`] carries it: which kernel, launched from which line,
/// with what, and what went wrong.
///
/// ```text
/// launch of `vector_add` at tests/diagnostics.rs:125:26 failed: block dimension x is 4096 but this device allows at most 1024
///   grid (1, 1, 1), block (4096, 1, 1), 0 bytes of shared memory, stream 0x7f08e8c2fae0
///   a = 0x302000000 (4 elements), b = 0x302000000 (4 elements), c = 0x302000200 (4 elements), n = 4
/// ```
pub struct LaunchError {
    pub(crate) kernel: String,
    pub(crate) location: &'static std::panic::Location<'static>,
    pub(crate) launch: Option<String>,
    pub(crate) on_device: bool,
    /// A plan's replay, whose `kernel` describes the plan.
    pub(crate) replay: bool,
    pub(crate) error: Error,
}

impl LaunchError {
    /// The kernel's symbol (for a plan's replay, the plan: `plan of 2 launches (scale, add)`).
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The caller's file, line and column: where `launch` (or the plan's call) was written.
    pub fn location(&self) -> &'static std::panic::Location<'static> {
        self.location
    }

    /// The launch as it was asked for, where it got as far as packing its arguments: the
    /// configuration and stream on one line, every argument on the next (scalars by value,
    /// device memory by address, with its length in elements where known).
    pub fn description(&self) -> Option<&str> {
        self.launch.as_deref()
    }

    /// Whether the kernel was queued and failed on the device, as the verify mode found by
    /// synchronizing its stream after it (rather than being refused before or at the launch).
    pub fn failed_on_device(&self) -> bool {
        self.on_device
    }

    /// What went wrong.
    pub fn error(&self) -> &Error {
        &self.error
    }
}

/// A kernel's symbol as messages show it: a C++ kernel demangled
/// (`reduce0<float>(float*, float*, unsigned int)`), an `extern "C"` one as it is.
fn shown(symbol: &str) -> std::borrow::Cow<'_, str> {
    if symbol.starts_with("_Z") {
        std::borrow::Cow::Owned(cuda_kernel_syntax::demangle::shown(symbol))
    } else {
        std::borrow::Cow::Borrowed(symbol)
    }
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = self.location;
        if self.replay {
            let how = if self.on_device {
                " on the device (found when its stream was synchronized after it)"
            } else {
                ""
            };
            write!(
                f,
                "replay of a {} at {at} failed{how}: {}",
                self.kernel, self.error
            )?;
        } else if self.on_device {
            write!(
                f,
                "`{}`, launched at {at}, failed on the device (found when its stream was synchronized after it): {}",
                shown(&self.kernel),
                self.error
            )?;
        } else {
            write!(
                f,
                "launch of `{}` at {at} failed: {}",
                shown(&self.kernel),
                self.error
            )?;
        }
        if let Some(launch) = &self.launch {
            for line in launch.lines() {
                write!(f, "\n  {line}")?;
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// `?` on a cudarc driver call inside a function returning [`Error`]: the call is not named
/// (cudarc's error does not say which it was), the driver's code and description are kept.
///
/// ```
/// use cuda_kernel::cudarc::driver::{DriverError, sys::CUresult};
/// fn copy() -> Result<(), cuda_kernel::Error> {
///     Err(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY))?
/// }
/// assert!(copy().unwrap_err().to_string().contains("CUDA_ERROR_OUT_OF_MEMORY"));
/// ```
impl From<DriverError> for Error {
    fn from(source: DriverError) -> Error {
        Error::Driver {
            call: "a CUDA driver call",
            source,
        }
    }
}

fn jit_text(log: &str) -> String {
    if log.is_empty() {
        String::from(" (the JIT wrote no log)")
    } else {
        format!("; the JIT says:\n{log}")
    }
}

fn compiled_cluster_text(
    compiled: (u32, u32, u32),
    grid: (u32, u32, u32),
    launch: Option<(u32, u32, u32)>,
) -> String {
    match launch {
        Some(asked) if asked != compiled => format!(
            "the launch asks for clusters of {asked:?} blocks but the kernel was compiled with clusters of {compiled:?} (`__cluster_dims__`), which a launch cannot change: launch without `Config::cluster`, or with {compiled:?}"
        ),
        _ => format!(
            "the grid {grid:?} is not a multiple of the cluster {compiled:?} the kernel was compiled with (`__cluster_dims__`): make each grid dimension a multiple of the cluster's"
        ),
    }
}

fn config_text(what: &str, value: u64, limit: Option<u64>) -> String {
    match limit {
        Some(limit) => format!("{what} is {value} but this device allows at most {limit}"),
        None => {
            format!("{what} is {value}: every grid, block and cluster dimension must be at least 1")
        }
    }
}

/// `CUDA_ERROR_INVALID_VALUE (invalid argument)`: the code's name and the driver's description.
fn driver_error_text(e: &DriverError) -> String {
    // The code's Debug form is its name. The description needs the driver library: cudarc
    // panics without it, and an `Error::Driver` can be built by hand on any machine.
    match crate::presence::is_present().then(|| e.error_string()) {
        Some(Ok(text)) => format!("{:?} ({})", e.0, text.to_string_lossy()),
        _ => format!("{:?}", e.0),
    }
}

/// A kernel whose loaded function takes different parameters than its declaration says.
///
/// Returned by a generated `load` when the driver reports the function's parameter offsets and
/// sizes (`cuFuncGetParamInfo`, CUDA 12.4+) and they differ from the declared
/// [`ParamLayout`]. Launching such a kernel would hand it misplaced bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureMismatch {
    /// The kernel's entry symbol.
    pub kernel: String,
    /// The layout the declaration computes.
    pub declared: ParamLayout,
    /// `(offset, size)` of each parameter of the loaded function, as the driver reports them.
    pub loaded: Vec<(usize, usize)>,
}

impl std::fmt::Display for SignatureMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kernel `{}` does not match its declaration: ",
            self.kernel
        )?;
        let declared = self.declared.params;
        match self.declared.misfit(&self.loaded) {
            Some(i) if i < declared.len().min(self.loaded.len()) => {
                let (d, (lo, ls)) = (&declared[i], self.loaded[i]);
                if i < self.declared.fixed {
                    write!(
                        f,
                        "parameter {} `{}` is declared at offset {} with {}, but the loaded function has it at offset {lo} with {}",
                        i + 1,
                        d.name,
                        d.offset,
                        bytes(d.size),
                        bytes(ls)
                    )?;
                } else {
                    // Placed by the GPU (after a parameter aligned above 16 bytes): its
                    // offset is the driver's to say, its size and order are the declaration's.
                    write!(
                        f,
                        "parameter {} `{}` is declared with {} after the parameters before it, but the loaded function has {} at offset {lo}",
                        i + 1,
                        d.name,
                        bytes(d.size),
                        bytes(ls)
                    )?;
                }
            }
            _ => write!(
                f,
                "the declaration has {} parameters, the loaded function {}",
                declared.len(),
                self.loaded.len()
            )?,
        }
        write!(f, "; declared {}, loaded (", self.declared)?;
        for (i, (o, s)) in self.loaded.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{o}:{s}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for SignatureMismatch {}

/// `1 byte`, `4 bytes`.
fn bytes(n: usize) -> String {
    format!("{n} byte{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParamLayout, ParamSlot};

    static SLOTS: [ParamSlot; 2] =
        ParamLayout::place([ParamSlot::of::<*const f32>("a"), ParamSlot::of::<u32>("n")]);

    #[test]
    fn a_cpp_kernel_is_named_demangled_in_launch_errors() {
        let error = |kernel: &str| LaunchError {
            kernel: kernel.to_string(),
            location: std::panic::Location::caller(),
            launch: None,
            on_device: false,
            replay: false,
            error: Error::Unsupported("refused"),
        };
        let text = error("_Z7reduce0IfEvPT_S1_j").to_string();
        assert!(
            text.starts_with("launch of `reduce0<float>(float*, float*, unsigned int)` at "),
            "{text}"
        );
        assert!(
            error("vector_add")
                .to_string()
                .starts_with("launch of `vector_add` at ")
        );
        // Not a symbol the demangler reads: shown as it is.
        assert!(
            error("_Zjunk")
                .to_string()
                .starts_with("launch of `_Zjunk` at ")
        );
    }

    #[test]
    fn mismatch_names_kernel_parameter_and_both_layouts() {
        let e = Error::SignatureMismatch(Box::new(SignatureMismatch {
            kernel: "k".into(),
            declared: ParamLayout::from_slots(&SLOTS),
            loaded: vec![(0, 8), (8, 8)],
        }));
        assert_eq!(
            e.to_string(),
            "kernel `k` does not match its declaration: parameter 2 `n` is declared at offset 8 \
             with 4 bytes, but the loaded function has it at offset 8 with 8 bytes; declared \
             (a@0:8, n@8:4) = 12 bytes, loaded (0:8, 8:8)"
        );
    }

    #[test]
    fn a_parameter_the_gpu_places_is_compared_by_size_and_order() {
        static PLACED: [ParamSlot; 2] = ParamLayout::place([
            ParamSlot::of::<u32>("a"),
            ParamSlot::of::<crate::RawTensorMap>("m"),
        ]);
        let e = SignatureMismatch {
            kernel: "probe".into(),
            declared: ParamLayout::from_slots(&PLACED),
            loaded: vec![(0, 4), (112, 64)],
        };
        assert_eq!(
            e.to_string(),
            "kernel `probe` does not match its declaration: parameter 2 `m` is declared with 128 \
             bytes after the parameters before it, but the loaded function has 64 bytes at \
             offset 112; declared (a@0:4, m@128:128) = 256 bytes, loaded (0:4, 112:64)"
        );
        let e = Error::UnplacedParam {
            kernel: "probe".into(),
            param: "m",
            align: 128,
        };
        assert!(
            e.to_string()
                .starts_with("parameter `m` of kernel `probe` is aligned to 128 bytes")
        );
    }

    #[test]
    fn mismatch_in_count_says_both_counts() {
        let e = SignatureMismatch {
            kernel: "k".into(),
            declared: ParamLayout::from_slots(&SLOTS),
            loaded: vec![(0, 8), (8, 4), (12, 4)],
        };
        assert!(
            e.to_string()
                .contains("the declaration has 2 parameters, the loaded function 3"),
            "{e}"
        );
    }
}
