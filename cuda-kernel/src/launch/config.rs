//! Launch configuration: grid, block, shared memory and the extended launch attributes, checked
//! against the device's limits before the driver sees them.

use cudarc::driver::{CudaFunction, CudaStream, sys};

use crate::driver::cache::PerDevice;
use crate::driver::result;

use crate::{Error, MAX_PARAM_BYTES, MAX_PARAM_BYTES_LEGACY};

/// Dynamic shared memory a block may use without raising the kernel's limit (which a launch
/// asking for more raises itself).
pub const DEFAULT_SHARED_MEMORY_LIMIT: u32 = 48 * 1024;

/// How to launch a kernel: grid and block dimensions, dynamic shared memory, and the
/// attributes of an extended launch (`cuLaunchKernelEx`).
///
/// Converts from cudarc's `LaunchConfig`, so either can be passed to a generated `launch`.
/// Every launch checks it against the device's limits first and returns
/// [`Error::InvalidConfig`] naming the limit and the value, instead of a driver code.
///
/// ```
/// use cuda_kernel::Config;
/// let plain = Config::for_elements(1_000_000, 256);
/// assert_eq!(plain.grid, (3907, 1, 1));
/// let clustered = Config::new((8, 1, 1), (128, 1, 1)).cluster((2, 1, 1)).priority(-1);
/// assert_eq!(clustered.cluster, Some((2, 1, 1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Blocks in the grid, per dimension.
    pub grid: (u32, u32, u32),
    /// Threads in a block, per dimension.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// Thread-block cluster dimensions (compute capability 9.0 and newer). The grid must be a
    /// multiple of them.
    pub cluster: Option<(u32, u32, u32)>,
    /// A cooperative launch: all blocks resident at once, so the kernel may synchronize the
    /// whole grid.
    pub cooperative: bool,
    /// Scheduling priority of the launch, as for stream priorities (lower is higher priority).
    pub priority: Option<i32>,
    /// Programmatic dependent launch (compute capability 9.0+): the kernel may start before the
    /// previous kernel on its stream has finished, and waits for it where it executes
    /// `griddepcontrol.wait` (`cudaGridDependencySynchronize()`).
    pub programmatic: bool,
}

impl Config {
    /// A launch of `grid` blocks of `block` threads, with no shared memory or attributes.
    pub const fn new(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Config {
        Config {
            grid,
            block,
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
            priority: None,
            programmatic: false,
        }
    }

    /// A 1-D launch covering `n` elements with blocks of `block_size` threads (at least one
    /// block, so `n = 0` still launches).
    pub const fn for_elements(n: u32, block_size: u32) -> Config {
        let block_size = if block_size == 0 { 1 } else { block_size };
        let blocks = n.div_ceil(block_size);
        Config::new(
            (if blocks == 0 { 1 } else { blocks }, 1, 1),
            (block_size, 1, 1),
        )
    }

    /// With `bytes` of dynamic shared memory per block.
    pub const fn shared_mem(mut self, bytes: u32) -> Config {
        self.shared_mem_bytes = bytes;
        self
    }

    /// With dynamic shared memory for `count` values of `T` per block (`extern __shared__ T
    /// s[]`), checked as bytes are: a count whose bytes overflow is refused at launch as above
    /// the device's maximum.
    ///
    /// ```
    /// let c = cuda_kernel::Config::for_elements(1 << 20, 256).shared::<f32>(256);
    /// assert_eq!(c.shared_mem_bytes, 1024);
    /// ```
    pub const fn shared<T>(self, count: u32) -> Config {
        let bytes = (count as u64) * (core::mem::size_of::<T>() as u64);
        self.shared_mem(if bytes > u32::MAX as u64 {
            u32::MAX
        } else {
            bytes as u32
        })
    }

    /// As a programmatic dependent launch (Hopper and newer): see
    /// [`programmatic`](Self::programmatic).
    pub const fn programmatic_dependent(mut self) -> Config {
        self.programmatic = true;
        self
    }

    /// In thread-block clusters of `dims` blocks.
    pub const fn cluster(mut self, dims: (u32, u32, u32)) -> Config {
        self.cluster = Some(dims);
        self
    }

    /// As a cooperative launch.
    pub const fn cooperative(mut self) -> Config {
        self.cooperative = true;
        self
    }

    /// With a scheduling priority.
    pub const fn priority(mut self, priority: i32) -> Config {
        self.priority = Some(priority);
        self
    }

    /// Whether the launch needs `cuLaunchKernelEx`.
    pub const fn is_extended(&self) -> bool {
        self.cluster.is_some() || self.cooperative || self.priority.is_some() || self.programmatic
    }

    /// The attributes of an extended launch (`cuLaunchKernelEx`), one per option set.
    pub(crate) fn launch_attributes(&self) -> impl AsMut<[sys::CUlaunchAttribute]> {
        use sys::CUlaunchAttributeID::*;
        LaunchAttributes::from([
            self.cluster.map(|(x, y, z)| {
                attribute(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, |v| {
                    v.clusterDim.x = x;
                    v.clusterDim.y = y;
                    v.clusterDim.z = z;
                })
            }),
            self.cooperative
                .then(|| attribute(CU_LAUNCH_ATTRIBUTE_COOPERATIVE, |v| v.cooperative = 1)),
            self.priority
                .map(|p| attribute(CU_LAUNCH_ATTRIBUTE_PRIORITY, |v| v.priority = p)),
            self.programmatic.then(|| {
                attribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, |v| {
                    v.programmaticStreamSerializationAllowed = 1
                })
            }),
        ])
    }

    /// Checks the configuration against `limits`, as every launch does before the driver sees
    /// it: a refused configuration is an error naming the limit and the value.
    ///
    /// The configurations a device takes are told apart in one pass of comparisons; a refused
    /// one (or one with the attributes of an extended launch) is then checked condition by
    /// condition, the first failing named.
    ///
    /// ```
    /// use cuda_kernel::{Config, DeviceLimits, MAX_PARAM_BYTES};
    /// let h100 = DeviceLimits {
    ///     max_threads_per_block: 1024,
    ///     max_block: [1024, 1024, 64],
    ///     max_grid: [i32::MAX as u32, 65535, 65535],
    ///     max_shared_memory_optin: 232_448,
    ///     cluster_launch: true,
    ///     cooperative_launch: true,
    ///     max_param_bytes: MAX_PARAM_BYTES,
    /// };
    /// assert!(Config::for_elements(1 << 20, 256).check(&h100).is_ok());
    /// let refused = Config::new((1, 1, 1), (32, 64, 1)).check(&h100).unwrap_err();
    /// assert_eq!(refused.to_string(), "threads per block is 2048 but this device allows at most 1024");
    /// ```
    #[inline]
    pub fn check(&self, limits: &DeviceLimits) -> Result<(), Error> {
        // `v - 1 < limit` (wrapping) holds for 1..=limit: zero and too large in one comparison.
        let within = |v: u32, limit: u32| v.wrapping_sub(1) < limit;
        let threads = u64::from(self.block.0) * u64::from(self.block.1) * u64::from(self.block.2);
        let fits = within(self.grid.0, limits.max_grid[0])
            & within(self.grid.1, limits.max_grid[1])
            & within(self.grid.2, limits.max_grid[2])
            & within(self.block.0, limits.max_block[0])
            & within(self.block.1, limits.max_block[1])
            & within(self.block.2, limits.max_block[2])
            & (threads <= u64::from(limits.max_threads_per_block))
            & (self.shared_mem_bytes <= limits.max_shared_memory_optin)
            & self.cluster.is_none()
            & !self.programmatic
            & !self.cooperative;
        if fits {
            return Ok(());
        }
        self.refusal(limits)
    }

    /// [`Self::check`] for a configuration its fast test did not take (refused, or with the
    /// attributes of an extended launch): each condition in turn, the first one failing named.
    #[cold]
    #[inline(never)]
    fn refusal(&self, limits: &DeviceLimits) -> Result<(), Error> {
        let dims = [
            ("grid dimension x", self.grid.0, limits.max_grid[0]),
            ("grid dimension y", self.grid.1, limits.max_grid[1]),
            ("grid dimension z", self.grid.2, limits.max_grid[2]),
            ("block dimension x", self.block.0, limits.max_block[0]),
            ("block dimension y", self.block.1, limits.max_block[1]),
            ("block dimension z", self.block.2, limits.max_block[2]),
        ];
        for (what, value, limit) in dims {
            if value == 0 {
                return Err(Error::InvalidConfig {
                    what,
                    value: 0,
                    limit: None,
                });
            }
            if value > limit {
                return Err(invalid(what, value, limit));
            }
        }
        let threads = u64::from(self.block.0) * u64::from(self.block.1) * u64::from(self.block.2);
        if threads > u64::from(limits.max_threads_per_block) {
            return Err(invalid(
                "threads per block",
                threads,
                limits.max_threads_per_block,
            ));
        }
        if self.shared_mem_bytes > limits.max_shared_memory_optin {
            return Err(invalid(
                "dynamic shared memory per block (bytes, opt-in maximum)",
                self.shared_mem_bytes,
                limits.max_shared_memory_optin,
            ));
        }
        if let Some((x, y, z)) = self.cluster {
            if !limits.cluster_launch {
                return Err(Error::Unsupported(
                    "thread-block clusters need a GPU of compute capability 9.0 or newer",
                ));
            }
            for (what, c, g) in [
                ("cluster dimension x", x, self.grid.0),
                ("cluster dimension y", y, self.grid.1),
                ("cluster dimension z", z, self.grid.2),
            ] {
                if c == 0 {
                    return Err(Error::InvalidConfig {
                        what,
                        value: 0,
                        limit: None,
                    });
                }
                if g % c != 0 {
                    return Err(Error::ClusterMismatch {
                        what,
                        cluster: c,
                        grid: g,
                    });
                }
            }
        }
        if self.programmatic && !limits.cluster_launch {
            return Err(Error::Unsupported(
                "programmatic dependent launches need a GPU of compute capability 9.0 or newer",
            ));
        }
        if self.cooperative && !limits.cooperative_launch {
            return Err(Error::Unsupported(
                "this GPU does not support cooperative launches",
            ));
        }
        Ok(())
    }
}

/// A launch attribute with the value `set` gives it.
fn attribute(
    id: sys::CUlaunchAttributeID,
    set: impl FnOnce(&mut sys::CUlaunchAttributeValue),
) -> sys::CUlaunchAttribute {
    // SAFETY: an all-zero attribute is a valid value of this plain C struct and union.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = id;
    set(&mut attribute.value);
    attribute
}

/// The attributes of the options set, on the stack: as many slots as [`Config`] has options.
struct LaunchAttributes<const N: usize> {
    attrs: [sys::CUlaunchAttribute; N],
    len: usize,
}

impl<const N: usize> From<[Option<sys::CUlaunchAttribute>; N]> for LaunchAttributes<N> {
    fn from(options: [Option<sys::CUlaunchAttribute>; N]) -> Self {
        // SAFETY: as in `attribute`; slots past `len` are never read.
        let mut attrs: [sys::CUlaunchAttribute; N] = unsafe { std::mem::zeroed() };
        let mut len = 0;
        for attribute in options.into_iter().flatten() {
            attrs[len] = attribute;
            len += 1;
        }
        LaunchAttributes { attrs, len }
    }
}

impl<const N: usize> AsMut<[sys::CUlaunchAttribute]> for LaunchAttributes<N> {
    fn as_mut(&mut self) -> &mut [sys::CUlaunchAttribute] {
        &mut self.attrs[..self.len]
    }
}

fn invalid(what: &'static str, value: impl Into<u64>, limit: u32) -> Error {
    Error::InvalidConfig {
        what,
        value: value.into(),
        limit: Some(u64::from(limit)),
    }
}

impl From<cudarc::driver::LaunchConfig> for Config {
    fn from(c: cudarc::driver::LaunchConfig) -> Config {
        Config::new(c.grid_dim, c.block_dim).shared_mem(c.shared_mem_bytes)
    }
}

/// Each device's [`DeviceLimits`], read on first use.
static LIMITS: PerDevice<DeviceLimits> = PerDevice::new();

/// What a device allows a launch, read once per device and cached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK`.
    pub max_threads_per_block: u32,
    /// Largest block dimensions.
    pub max_block: [u32; 3],
    /// Largest grid dimensions.
    pub max_grid: [u32; 3],
    /// Largest dynamic shared memory a kernel can opt in to, per block.
    pub max_shared_memory_optin: u32,
    /// Whether thread-block clusters can be launched (compute capability 9.0+).
    pub cluster_launch: bool,
    /// Whether cooperative launches are supported.
    pub cooperative_launch: bool,
    /// Largest parameter buffer a launch can pass: [`MAX_PARAM_BYTES`] on Volta or newer under
    /// a CUDA 12.1+ driver, [`MAX_PARAM_BYTES_LEGACY`] otherwise.
    pub max_param_bytes: usize,
}

impl DeviceLimits {
    /// The limits of the device `stream` runs on (queried on first use, then cached).
    pub fn of(stream: &CudaStream) -> Result<DeviceLimits, Error> {
        let ctx = stream.context();
        LIMITS.get_or_try_init(ctx.ordinal(), || DeviceLimits::query(ctx))
    }

    /// [`Self::of`] where it is cached, without the copy: what every launch reads first.
    #[inline(always)]
    pub(crate) fn cached(stream: &CudaStream) -> Option<&'static DeviceLimits> {
        LIMITS.get(stream.context().ordinal())
    }

    fn query(ctx: &cudarc::driver::CudaContext) -> Result<DeviceLimits, Error> {
        use sys::CUdevice_attribute::*;
        let attr = |a| {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(Error::driver("cuDeviceGetAttribute"))
        };
        Ok(DeviceLimits {
            max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_memory_optin: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            cluster_launch: attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)? != 0,
            cooperative_launch: attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
            max_param_bytes: if attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? >= 7
                && crate::driver::version()? >= 12_010
            {
                MAX_PARAM_BYTES
            } else {
                MAX_PARAM_BYTES_LEGACY
            },
        })
    }
}

/// Lets `function` use up to `bytes` of dynamic shared memory per block, above the default
/// 48 KiB (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
///
/// A launcher needs no call: a launch asking for more than the kernel's limit raises it
/// itself, up to what the device allows beside the kernel's static shared memory. This is for
/// a function launched otherwise (cudarc's `launch_builder`), or to set a lower limit.
///
/// Returns [`Error::InvalidConfig`] when `bytes` exceeds the device's opt-in maximum.
///
/// ```no_run
/// # use cuda_kernel::cudarc::driver::{CudaFunction, CudaStream};
/// # fn f(function: &CudaFunction, stream: &CudaStream) -> Result<(), cuda_kernel::Error> {
/// cuda_kernel::raise_shared_memory_limit(function, stream, 100 * 1024)?;
/// # Ok(()) }
/// ```
pub fn raise_shared_memory_limit(
    function: &CudaFunction,
    stream: &CudaStream,
    bytes: u32,
) -> Result<(), Error> {
    let limits = DeviceLimits::of(stream)?;
    if bytes > limits.max_shared_memory_optin {
        return Err(invalid(
            "dynamic shared memory per block (bytes, opt-in maximum)",
            bytes,
            limits.max_shared_memory_optin,
        ));
    }
    function
        .set_attribute(
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .map_err(Error::driver("cuFuncSetAttribute"))
}

/// A loaded kernel's shared memory, as the launch check asks about it above the default
/// 48 KiB of dynamic shared memory per block.
pub(crate) trait KernelSharedMemory {
    /// The dynamic shared memory it may use per block now
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, 48 KiB unless raised).
    fn shared_memory_limit(&self) -> Result<u32, Error>;

    /// Its static shared memory (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    fn static_shared_memory(&self) -> Result<u32, Error>;

    /// Lets it use `bytes` of dynamic shared memory per block.
    fn raise_shared_memory(&self, bytes: u32) -> Result<(), Error>;
}

impl KernelSharedMemory for sys::CUfunction {
    fn shared_memory_limit(&self) -> Result<u32, Error> {
        let attribute = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        Ok(result::func_attribute(*self, attribute)?.max(0) as u32)
    }

    fn static_shared_memory(&self) -> Result<u32, Error> {
        let attribute = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
        Ok(result::func_attribute(*self, attribute)?.max(0) as u32)
    }

    fn raise_shared_memory(&self, bytes: u32) -> Result<(), Error> {
        result::set_func_attribute(
            *self,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
}

/// The block size that maximizes occupancy of `function` with `shared_mem_bytes` of dynamic
/// shared memory per block, and the smallest grid that reaches it
/// (`cuOccupancyMaxPotentialBlockSize`): `(min_grid, block_size)`.
///
/// ```no_run
/// # fn f(function: &cuda_kernel::cudarc::driver::CudaFunction) -> Result<(), cuda_kernel::Error> {
/// let (_, block) = cuda_kernel::occupancy_block_size(function, 0)?;
/// let config = cuda_kernel::Config::for_elements(1 << 20, block);
/// # Ok(()) }
/// ```
pub fn occupancy_block_size(
    function: &CudaFunction,
    shared_mem_bytes: usize,
) -> Result<(u32, u32), Error> {
    extern "C" fn no_per_block_shared_memory(_block_size: std::ffi::c_int) -> usize {
        0
    }
    function
        .occupancy_max_potential_block_size(no_per_block_shared_memory, shared_mem_bytes, 0, None)
        .map_err(Error::driver("cuOccupancyMaxPotentialBlockSize"))
}

/// An H200's limits, for tests of the checks without a GPU.
#[cfg(test)]
pub(crate) const H200: DeviceLimits = DeviceLimits {
    max_threads_per_block: 1024,
    max_block: [1024, 1024, 64],
    max_grid: [i32::MAX as u32, 65535, 65535],
    max_shared_memory_optin: 232_448,
    cluster_launch: true,
    cooperative_launch: true,
    max_param_bytes: MAX_PARAM_BYTES,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn error(c: Config) -> String {
        c.check(&H200).unwrap_err().to_string()
    }

    #[test]
    fn valid_configurations_pass() {
        assert!(Config::for_elements(1 << 30, 256).check(&H200).is_ok());
        assert!(
            Config::new((8, 2, 1), (32, 32, 1))
                .cluster((2, 2, 1))
                .check(&H200)
                .is_ok()
        );
        assert!(
            Config::new((1, 1, 1), (1, 1, 1))
                .shared_mem(200_000)
                .check(&H200)
                .is_ok()
        );
    }

    #[test]
    fn each_limit_is_named_with_its_value() {
        assert_eq!(
            error(Config::new((0, 1, 1), (1, 1, 1))),
            "grid dimension x is 0: every grid, block and cluster dimension must be at least 1"
        );
        assert_eq!(
            error(Config::new((1, 1, 1), (32, 33, 1))),
            "threads per block is 1056 but this device allows at most 1024"
        );
        assert_eq!(
            error(Config::new((1, 1, 1), (1, 1, 65))),
            "block dimension z is 65 but this device allows at most 64"
        );
        assert_eq!(
            error(Config::new((1, 65536, 1), (1, 1, 1))),
            "grid dimension y is 65536 but this device allows at most 65535"
        );
        assert!(
            error(Config::new((1, 1, 1), (1, 1, 1)).shared_mem(300_000))
                .starts_with("dynamic shared memory per block (bytes, opt-in maximum) is 300000")
        );
        assert_eq!(
            error(Config::new((6, 1, 1), (1, 1, 1)).cluster((4, 1, 1))),
            "cluster dimension x is 4, which does not divide grid dimension 6: make the grid a multiple of the cluster"
        );
    }

    #[test]
    fn the_fast_test_takes_exactly_what_the_full_check_takes() {
        // Around every limit: 0, 1, the limit and one past it, in each dimension.
        let near = |limit: u32| [0, 1, limit, limit.wrapping_add(1), u32::MAX];
        let legacy = DeviceLimits {
            max_grid: [u32::MAX, 65535, 65535],
            ..H200
        };
        let mut checked = 0;
        for limits in [H200, legacy] {
            for axis in 0..6 {
                let limit = match axis {
                    0..3 => limits.max_grid[axis],
                    _ => limits.max_block[axis - 3],
                };
                for value in near(limit) {
                    for shared in [0, limits.max_shared_memory_optin, u32::MAX] {
                        let mut dims = [1, 1, 1, 32, 32, 1];
                        dims[axis] = value;
                        let c =
                            Config::new((dims[0], dims[1], dims[2]), (dims[3], dims[4], dims[5]))
                                .shared_mem(shared);
                        for c in [
                            c,
                            c.cooperative(),
                            c.cluster((1, 1, 1)),
                            c.programmatic_dependent(),
                        ] {
                            let shown = |r: Result<(), Error>| r.map_err(|e| e.to_string());
                            assert_eq!(shown(c.check(&limits)), shown(c.refusal(&limits)), "{c:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 2 * 6 * 5 * 3 * 4);
    }

    #[test]
    fn unsupported_features_say_so() {
        let old = DeviceLimits {
            cluster_launch: false,
            cooperative_launch: false,
            ..H200
        };
        let e = Config::new((2, 1, 1), (1, 1, 1))
            .cluster((2, 1, 1))
            .check(&old);
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("compute capability 9.0")
        );
        let e = Config::new((2, 1, 1), (1, 1, 1)).cooperative().check(&old);
        assert!(e.unwrap_err().to_string().contains("cooperative"));
    }

    #[test]
    fn cudarc_configs_convert_and_one_d_configs_cover_n() {
        let c: Config = cudarc::driver::LaunchConfig::for_num_elems(5000).into();
        assert_eq!(
            (c.grid, c.block, c.is_extended()),
            ((5, 1, 1), (1024, 1, 1), false)
        );
        assert_eq!(Config::for_elements(0, 128).grid, (1, 1, 1));
        assert_eq!(Config::for_elements(257, 128).grid, (3, 1, 1));
        assert!(Config::for_elements(1, 1).cooperative().is_extended());
    }

    #[test]
    fn each_option_set_becomes_one_launch_attribute() {
        use sys::CUlaunchAttributeID::*;
        let ids = |c: Config| -> Vec<_> {
            c.launch_attributes()
                .as_mut()
                .iter()
                .map(|a| a.id)
                .collect()
        };
        assert!(ids(Config::for_elements(1, 1)).is_empty());
        assert_eq!(
            ids(Config::for_elements(1, 1).priority(-1)),
            [CU_LAUNCH_ATTRIBUTE_PRIORITY]
        );
        let mut all = Config::new((2, 1, 1), (1, 1, 1))
            .cluster((2, 1, 1))
            .cooperative()
            .priority(3)
            .programmatic_dependent();
        assert_eq!(
            ids(all),
            [
                CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                CU_LAUNCH_ATTRIBUTE_PRIORITY,
                CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            ]
        );
        let mut attrs = all.launch_attributes();
        // SAFETY: the first attribute is the cluster's, whose union member is clusterDim.
        assert_eq!(unsafe { attrs.as_mut()[0].value.clusterDim.x }, 2);
        drop(attrs);
        all.priority = None;
        assert_eq!(ids(all).len(), 3);
    }
}
