//! Launch configuration: grid, block, shared memory and the extended launch attributes, checked
//! against the device's limits before the driver sees them.

use cudarc::driver::{CudaFunction, CudaStream, sys};

use crate::driver::attribute::{RawAttribute, id, names, since};
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
///
/// Every attribute of `cuLaunchKernelEx` is an option here, each checked before the driver sees
/// it ([`Error::LaunchAttribute`] names the attribute, the rule and, for a driver or GPU
/// without it, what it needs). Those that name memory or an event borrow it, and make an
/// [`Attributed`](crate::Attributed) configuration: [`l2_window`](Self::l2_window),
/// [`completion_event`](Self::completion_event),
/// [`programmatic_event`](Self::programmatic_event).
///
/// ```
/// use cuda_kernel::{Config, MemSyncDomain};
/// let c = Config::new((16, 1, 1), (128, 1, 1))
///     .cluster((2, 1, 1))
///     .preferred_cluster((4, 1, 1)) // where the GPU can, else clusters of 2
///     .shared_carveout(50) // half of the unified L1/shared memory as shared memory
///     .mem_sync_domain(MemSyncDomain::Remote)
///     .nvlink_centric();
/// assert!(c.is_extended());
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
    /// The attributes CUDA 12 and 13 drivers added (preferred cluster, carveout, memory
    /// synchronization domains, NVLink-centric scheduling, device-updatable nodes): `None` for
    /// none, so that a launch without them tests one field. Set through the methods of the same
    /// names.
    pub attributes: Option<Attributes>,
}

/// The launch attributes of [`Config::attributes`], each `None` (or `false`) where not set.
///
/// ```
/// use cuda_kernel::{Attributes, Config};
/// let c = Config::for_elements(1024, 256).shared_carveout(50).nvlink_centric();
/// let a = c.attributes.unwrap();
/// assert_eq!((a.shared_carveout, a.nvlink_centric), (Some(50), true));
/// assert_eq!(Config::for_elements(1024, 256).attributes_or_none(), Attributes::NONE);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attributes {
    /// A preferred cluster shape (CUDA 12.8+ drivers, compute capability 9.0+): the GPU
    /// forms clusters of this shape where it can, and of the required [`cluster`](Config::cluster)
    /// (or the kernel's compiled cluster) elsewhere. A multiple of the required cluster in x
    /// and y, the same in z, and a divisor of the grid.
    pub preferred_cluster: Option<(u32, u32, u32)>,
    /// The preferred shared-memory carveout, in percent of the unified L1/shared memory
    /// (0 to 100; CUDA 12.4+ drivers): a hint that takes precedence over the kernel's own.
    pub shared_carveout: Option<u32>,
    /// The memory synchronization domain of the launch (CUDA 12.0+ drivers): fences in a
    /// kernel of one domain need not wait for the memory traffic of another's.
    pub mem_sync_domain: Option<MemSyncDomain>,
    /// The physical domains the logical [`MemSyncDomain`]s map to for this launch.
    pub mem_sync_domain_map: Option<MemSyncDomainMap>,
    /// NVLink-utilization-centric scheduling (CUDA 13.0+ drivers): a hint that the kernel's
    /// blocks each carry an even share of NVLink traffic.
    pub nvlink_centric: bool,
    /// Record the launch as a device-updatable kernel node (CUDA 12.4+ drivers): for a
    /// [`Plan`](crate::Plan) (or a capturing stream) only, since a node is what is updatable.
    pub device_updatable: bool,
}

impl Attributes {
    /// No attribute set.
    pub const NONE: Attributes = Attributes {
        preferred_cluster: None,
        shared_carveout: None,
        mem_sync_domain: None,
        mem_sync_domain_map: None,
        nvlink_centric: false,
        device_updatable: false,
    };
}

/// A memory synchronization domain (`CUlaunchMemSyncDomain`): which of the two logical domains
/// a launch's fences belong to. A fence waits only for the memory traffic of its own domain,
/// so a kernel whose traffic is remote (communication kernels: NCCL, NVSHMEM) in the remote
/// domain does not slow the fences of compute kernels in the default one.
///
/// ```
/// use cuda_kernel::{Config, MemSyncDomain};
/// let all_reduce = Config::for_elements(1 << 20, 256).mem_sync_domain(MemSyncDomain::Remote);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSyncDomain {
    /// `CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT`.
    Default,
    /// `CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE`.
    Remote,
}

/// Where the logical memory synchronization domains go for a launch
/// (`CUlaunchMemSyncDomainMap`): the physical domain of each, below the device's
/// `CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT` (4 on Hopper).
///
/// ```
/// let c = cuda_kernel::Config::for_elements(1 << 20, 256).mem_sync_domain_map(0, 1);
/// let map = c.attributes.unwrap().mem_sync_domain_map.unwrap();
/// assert_eq!((map.default, map.remote), (0, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemSyncDomainMap {
    /// The physical domain of [`MemSyncDomain::Default`].
    pub default: u8,
    /// The physical domain of [`MemSyncDomain::Remote`].
    pub remote: u8,
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
            attributes: None,
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

    /// With a preferred cluster shape, the required one ([`cluster`](Self::cluster), or the
    /// kernel's compiled cluster) the fallback: see
    /// [`Attributes::preferred_cluster`].
    pub const fn preferred_cluster(mut self, dims: (u32, u32, u32)) -> Config {
        let mut a = self.attributes_or_none();
        a.preferred_cluster = Some(dims);
        self.attributes = Some(a);
        self
    }

    /// With a preferred shared-memory carveout of `percent` (0 to 100) of the unified
    /// L1/shared memory.
    pub const fn shared_carveout(mut self, percent: u32) -> Config {
        let mut a = self.attributes_or_none();
        a.shared_carveout = Some(percent);
        self.attributes = Some(a);
        self
    }

    /// In the memory synchronization domain `domain`.
    pub const fn mem_sync_domain(mut self, domain: MemSyncDomain) -> Config {
        let mut a = self.attributes_or_none();
        a.mem_sync_domain = Some(domain);
        self.attributes = Some(a);
        self
    }

    /// With the logical domains mapped to the physical domains `default` and `remote`.
    pub const fn mem_sync_domain_map(mut self, default: u8, remote: u8) -> Config {
        let mut a = self.attributes_or_none();
        a.mem_sync_domain_map = Some(MemSyncDomainMap { default, remote });
        self.attributes = Some(a);
        self
    }

    /// With NVLink-utilization-centric scheduling.
    pub const fn nvlink_centric(mut self) -> Config {
        let mut a = self.attributes_or_none();
        a.nvlink_centric = true;
        self.attributes = Some(a);
        self
    }

    /// As a device-updatable kernel node of a [`Plan`](crate::Plan).
    pub const fn device_updatable(mut self) -> Config {
        let mut a = self.attributes_or_none();
        a.device_updatable = true;
        self.attributes = Some(a);
        self
    }

    /// Whether the launch needs `cuLaunchKernelEx` (any option but grid, block and shared
    /// memory): what [`check`](Self::check)'s fast test leaves to the full check.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub const fn is_extended(&self) -> bool {
        self.cluster.is_some()
            | self.cooperative
            | self.priority.is_some()
            | self.programmatic
            | self.attributes.is_some()
    }

    /// [`attributes`](Self::attributes), or none set.
    pub const fn attributes_or_none(&self) -> Attributes {
        match self.attributes {
            Some(a) => a,
            None => Attributes::NONE,
        }
    }

    /// The attributes of an extended launch (`cuLaunchKernelEx`), one per option set, into
    /// `out`.
    pub(crate) fn push_attributes<const N: usize>(&self, out: &mut RawAttributes<N>) {
        if let Some(dims) = self.cluster {
            out.push(RawAttribute::dims(id::CLUSTER_DIMENSION, dims));
        }
        if self.cooperative {
            out.push(RawAttribute::int(id::COOPERATIVE, 1));
        }
        if let Some(p) = self.priority {
            out.push(RawAttribute::int(id::PRIORITY, p as u32));
        }
        if self.programmatic {
            out.push(RawAttribute::int(id::PROGRAMMATIC_STREAM_SERIALIZATION, 1));
        }
        let Some(a) = self.attributes else { return };
        if let Some(dims) = a.preferred_cluster {
            out.push(RawAttribute::dims(id::PREFERRED_CLUSTER_DIMENSION, dims));
        }
        if let Some(percent) = a.shared_carveout {
            out.push(RawAttribute::int(
                id::PREFERRED_SHARED_MEMORY_CARVEOUT,
                percent,
            ));
        }
        if let Some(domain) = a.mem_sync_domain {
            out.push(RawAttribute::int(id::MEM_SYNC_DOMAIN, domain as u32));
        }
        if let Some(map) = a.mem_sync_domain_map {
            out.push(RawAttribute::domain_map(map.default, map.remote));
        }
        if a.nvlink_centric {
            out.push(RawAttribute::int(id::NVLINK_UTIL_CENTRIC_SCHEDULING, 1));
        }
        if a.device_updatable {
            out.push(RawAttribute::device_updatable());
        }
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
        self.check_plain(limits).map(drop)
    }

    /// [`Self::check`], saying whether the configuration is a plain launch's (`cuLaunchKernel`:
    /// no attribute, not even a priority): what the launch path asks, so that a launch without
    /// attributes tests for them once.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn check_plain(&self, limits: &DeviceLimits) -> Result<bool, Error> {
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
            & !self.is_extended();
        if fits {
            return Ok(true);
        }
        self.refusal(limits).map(|()| false)
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

    /// Checks [`attributes`](Self::attributes) against what the device and driver take, as
    /// every launch with them does after [`check`](Self::check): the driver version each needs,
    /// the ranges of their values, a preferred cluster against the grid and the required
    /// cluster. A refused attribute is an [`Error::LaunchAttribute`] naming it and the rule.
    ///
    /// ```
    /// use cuda_kernel::{AttributeLimits, Config};
    /// let cuda_12_2 = AttributeLimits {
    ///     driver_version: 12_020,
    ///     cluster_launch: true,
    ///     mem_sync_domains: 4,
    ///     max_window_bytes: 128 << 20,
    ///     max_persisting_l2_bytes: 30 << 20,
    /// };
    /// let e = Config::for_elements(1024, 256).nvlink_centric().check_attributes(&cuda_12_2);
    /// assert_eq!(
    ///     e.unwrap_err().to_string(),
    ///     "launch attribute `nvlink_centric`: needs a CUDA 13.0 driver or newer; this one is CUDA 12.2"
    /// );
    /// ```
    pub fn check_attributes(&self, limits: &AttributeLimits) -> Result<(), Error> {
        let Some(a) = self.attributes else {
            return Ok(());
        };
        if let Some(preferred) = a.preferred_cluster {
            needs(limits, names::PREFERRED_CLUSTER, since::PREFERRED_CLUSTER)?;
            if !limits.cluster_launch {
                return Err(attribute_error(
                    names::PREFERRED_CLUSTER,
                    "clusters need a GPU of compute capability 9.0 or newer".into(),
                ));
            }
            let p = [preferred.0, preferred.1, preferred.2];
            let grid = [self.grid.0, self.grid.1, self.grid.2];
            for (axis, (p, g)) in "xyz".chars().zip(p.into_iter().zip(grid)) {
                if p == 0 || g % p != 0 {
                    return Err(attribute_error(
                        names::PREFERRED_CLUSTER,
                        format!(
                            "dimension {axis} is {p}, which does not divide grid dimension {g}: a preferred cluster must divide the grid"
                        ),
                    ));
                }
            }
            if let Some(required) = self.cluster {
                check_preferred_multiple(preferred, required, "the required cluster (`cluster`)")?;
            }
        }
        if let Some(percent) = a.shared_carveout {
            needs(
                limits,
                names::SHARED_CARVEOUT,
                since::UPDATABLE_AND_CARVEOUT,
            )?;
            if percent > 100 {
                return Err(attribute_error(
                    names::SHARED_CARVEOUT,
                    format!("is {percent}, but a carveout is a percentage from 0 to 100"),
                ));
            }
        }
        if a.mem_sync_domain.is_some() {
            needs(limits, names::MEM_SYNC_DOMAIN, since::LAUNCH_EX)?;
        }
        if let Some(map) = a.mem_sync_domain_map {
            needs(limits, names::MEM_SYNC_DOMAIN_MAP, since::LAUNCH_EX)?;
            for (which, domain) in [("default", map.default), ("remote", map.remote)] {
                if u32::from(domain) >= limits.mem_sync_domains {
                    return Err(attribute_error(
                        names::MEM_SYNC_DOMAIN_MAP,
                        format!(
                            "maps the {which} domain to {domain}, but this device has {} memory synchronization domain{} (0 to {})",
                            limits.mem_sync_domains,
                            if limits.mem_sync_domains == 1 {
                                ""
                            } else {
                                "s"
                            },
                            limits.mem_sync_domains.saturating_sub(1)
                        ),
                    ));
                }
            }
        }
        if a.nvlink_centric {
            needs(limits, names::NVLINK_CENTRIC, since::NVLINK_CENTRIC)?;
        }
        if a.device_updatable {
            needs(
                limits,
                names::DEVICE_UPDATABLE,
                since::UPDATABLE_AND_CARVEOUT,
            )?;
        }
        Ok(())
    }
}

/// A preferred cluster must be a multiple of the required one in x and y, and equal in z.
pub(crate) fn check_preferred_multiple(
    preferred: (u32, u32, u32),
    required: (u32, u32, u32),
    whose: &str,
) -> Result<(), Error> {
    let fits = required.0 != 0
        && required.1 != 0
        && preferred.0 % required.0 == 0
        && preferred.1 % required.1 == 0
        && preferred.2 == required.2;
    if fits {
        return Ok(());
    }
    Err(attribute_error(
        names::PREFERRED_CLUSTER,
        format!(
            "{preferred:?} is not a multiple of {whose}, {required:?}: the preferred cluster must be a multiple of it in x and y and equal to it in z"
        ),
    ))
}

/// An [`Error::LaunchAttribute`].
pub(crate) fn attribute_error(attribute: &'static str, rule: String) -> Error {
    Error::LaunchAttribute { attribute, rule }
}

/// Refuses `attribute` under a driver older than `version`.
pub(crate) fn needs(
    limits: &AttributeLimits,
    attribute: &'static str,
    version: i32,
) -> Result<(), Error> {
    if limits.driver_version >= version {
        return Ok(());
    }
    let shown = |v: i32| format!("{}.{}", v / 1000, v % 1000 / 10);
    Err(attribute_error(
        attribute,
        format!(
            "needs a CUDA {} driver or newer; this one is CUDA {}",
            shown(version),
            shown(limits.driver_version)
        ),
    ))
}

/// The attributes of the options set, on the stack: as many slots as there are options.
pub(crate) struct RawAttributes<const N: usize> {
    attrs: [RawAttribute; N],
    len: usize,
}

impl<const N: usize> RawAttributes<N> {
    pub(crate) fn new() -> Self {
        RawAttributes {
            attrs: [RawAttribute::empty(0); N],
            len: 0,
        }
    }

    /// Adds `attribute`. There is a slot for each option
    /// (`every_option_has_a_slot_and_its_attribute`), so none is dropped.
    pub(crate) fn push(&mut self, attribute: RawAttribute) {
        debug_assert!(self.len < N, "more launch attributes than slots");
        if let Some(slot) = self.attrs.get_mut(self.len) {
            *slot = attribute;
            self.len += 1;
        }
    }

    pub(crate) fn as_slice(&self) -> &[RawAttribute] {
        &self.attrs[..self.len]
    }

    pub(crate) fn as_mut(&mut self) -> &mut [RawAttribute] {
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

/// Each device's [`AttributeLimits`], read on first use.
static ATTRIBUTE_LIMITS: PerDevice<AttributeLimits> = PerDevice::new();

/// What a device and its driver take of the launch attributes of CUDA 12 and 13
/// ([`Config::attributes`], [`L2Window`](crate::L2Window)s), read once per device and cached:
/// what [`Config::check_attributes`] checks against. Apart from [`DeviceLimits`], which every
/// launch reads, so that a launch without attributes reads none of it.
///
/// ```no_run
/// # fn f(stream: &cuda_kernel::cudarc::driver::CudaStream) -> Result<(), cuda_kernel::Error> {
/// let limits = cuda_kernel::AttributeLimits::of(stream)?;
/// println!("persisting L2 at most {} bytes", limits.max_persisting_l2_bytes);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeLimits {
    /// The driver's CUDA version (`cuDriverGetVersion`: 13000 for 13.0), which decides the
    /// launch attributes it takes.
    pub driver_version: i32,
    /// Whether thread-block clusters can be launched (compute capability 9.0+), which preferred
    /// clusters and programmatic events need.
    pub cluster_launch: bool,
    /// Memory synchronization domains (`CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT`).
    pub mem_sync_domains: u32,
    /// The largest L2 access policy window, in bytes
    /// (`CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE`; 0 without persisting L2).
    pub max_window_bytes: u32,
    /// The largest L2 set-aside for persisting accesses, in bytes
    /// (`CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE`).
    pub max_persisting_l2_bytes: u32,
}

impl AttributeLimits {
    /// The limits of the device `stream` runs on (queried on first use, then cached).
    pub fn of(stream: &CudaStream) -> Result<AttributeLimits, Error> {
        let ctx = stream.context();
        ATTRIBUTE_LIMITS.get_or_try_init(ctx.ordinal(), || {
            use sys::CUdevice_attribute::*;
            let attr = |a| {
                ctx.attribute(a)
                    .map(|v| v.max(0) as u32)
                    .map_err(Error::driver("cuDeviceGetAttribute"))
            };
            Ok(AttributeLimits {
                driver_version: crate::driver::version()?,
                cluster_launch: attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)? != 0,
                mem_sync_domains: attr(CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT)?.max(1),
                max_window_bytes: attr(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)?,
                max_persisting_l2_bytes: attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)?,
            })
        })
    }
}

impl DeviceLimits {
    /// The limits of the device `stream` runs on (queried on first use, then cached).
    pub fn of(stream: &CudaStream) -> Result<DeviceLimits, Error> {
        let ctx = stream.context();
        LIMITS.get_or_try_init(ctx.ordinal(), || DeviceLimits::query(ctx))
    }

    /// [`Self::of`] where it is cached, without the copy: what every launch reads first.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
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

/// An H200's attribute limits under a CUDA 13.0 driver, as read on one (docs/gpu-results.md).
#[cfg(test)]
pub(crate) const H200_ATTRIBUTES: AttributeLimits = AttributeLimits {
    driver_version: 13_000,
    cluster_launch: true,
    mem_sync_domains: 4,
    max_window_bytes: 134_217_728,
    max_persisting_l2_bytes: 39_321_600,
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
        let ids = |c: Config| -> Vec<u32> {
            crate::Attributed::from(c)
                .launch_attributes()
                .as_slice()
                .iter()
                .map(|a| a.id)
                .collect()
        };
        assert!(ids(Config::for_elements(1, 1)).is_empty());
        assert_eq!(ids(Config::for_elements(1, 1).priority(-1)), [id::PRIORITY]);
        let mut all = Config::new((4, 1, 1), (1, 1, 1))
            .cluster((2, 1, 1))
            .cooperative()
            .priority(3)
            .programmatic_dependent()
            .preferred_cluster((4, 1, 1))
            .shared_carveout(25)
            .mem_sync_domain(MemSyncDomain::Remote)
            .mem_sync_domain_map(0, 1)
            .nvlink_centric()
            .device_updatable();
        assert_eq!(
            ids(all),
            [
                id::CLUSTER_DIMENSION,
                id::COOPERATIVE,
                id::PRIORITY,
                id::PROGRAMMATIC_STREAM_SERIALIZATION,
                id::PREFERRED_CLUSTER_DIMENSION,
                id::PREFERRED_SHARED_MEMORY_CARVEOUT,
                id::MEM_SYNC_DOMAIN,
                id::MEM_SYNC_DOMAIN_MAP,
                id::NVLINK_UTIL_CENTRIC_SCHEDULING,
                id::DEVICE_UPDATABLE_KERNEL_NODE,
            ]
        );
        let attrs = crate::Attributed::from(all).launch_attributes();
        assert_eq!(attrs.as_slice()[0].u32_at(0), 2);
        assert_eq!(attrs.as_slice()[4].u32_at(0), 4);
        assert_eq!(attrs.as_slice()[5].u32_at(0), 25);
        assert_eq!(attrs.as_slice()[6].u32_at(0), 1);
        all.priority = None;
        assert_eq!(ids(all).len(), 9);
    }

    fn attribute_refusal(c: Config, limits: &AttributeLimits) -> String {
        assert!(c.check(&H200).is_ok(), "{c:?}");
        match c.check_attributes(limits) {
            Err(e @ Error::LaunchAttribute { .. }) => e.to_string(),
            other => panic!("{c:?}: {other:?}"),
        }
    }

    #[test]
    fn each_attribute_is_checked_and_named() {
        let c = Config::new((8, 4, 1), (64, 1, 1));
        // Fine on an H200 with a CUDA 13.0 driver.
        for ok in [
            c.cluster((2, 2, 1)).preferred_cluster((4, 2, 1)),
            c.shared_carveout(0),
            c.shared_carveout(100),
            c.mem_sync_domain(MemSyncDomain::Remote)
                .mem_sync_domain_map(0, 3),
            c.nvlink_centric(),
            c.device_updatable(),
        ] {
            assert!(ok.check(&H200).is_ok(), "{ok:?}");
            assert!(ok.check_attributes(&H200_ATTRIBUTES).is_ok(), "{ok:?}");
        }
        assert_eq!(
            attribute_refusal(c.shared_carveout(101), &H200_ATTRIBUTES),
            "launch attribute `shared_carveout`: is 101, but a carveout is a percentage from 0 to 100"
        );
        assert_eq!(
            attribute_refusal(
                c.cluster((2, 1, 1)).preferred_cluster((3, 1, 1)),
                &H200_ATTRIBUTES
            ),
            "launch attribute `preferred_cluster`: dimension x is 3, which does not divide grid dimension 8: a preferred cluster must divide the grid"
        );
        assert_eq!(
            attribute_refusal(
                c.cluster((4, 1, 1)).preferred_cluster((2, 1, 1)),
                &H200_ATTRIBUTES
            ),
            "launch attribute `preferred_cluster`: (2, 1, 1) is not a multiple of the required cluster (`cluster`), (4, 1, 1): the preferred cluster must be a multiple of it in x and y and equal to it in z"
        );
        assert!(
            attribute_refusal(
                c.cluster((2, 2, 1)).preferred_cluster((4, 1, 1)),
                &H200_ATTRIBUTES
            )
            .contains("not a multiple")
        );
        assert_eq!(
            attribute_refusal(c.mem_sync_domain_map(0, 4), &H200_ATTRIBUTES),
            "launch attribute `mem_sync_domain_map`: maps the remote domain to 4, but this device has 4 memory synchronization domains (0 to 3)"
        );
        // A driver without the attribute: the version it needs and the one there is.
        let cuda_12_2 = AttributeLimits {
            driver_version: 12_020,
            ..H200_ATTRIBUTES
        };
        assert_eq!(
            attribute_refusal(c.nvlink_centric(), &cuda_12_2),
            "launch attribute `nvlink_centric`: needs a CUDA 13.0 driver or newer; this one is CUDA 12.2"
        );
        for (c, attribute, needs) in [
            (c.shared_carveout(50), "shared_carveout", "12.4"),
            (c.device_updatable(), "device_updatable", "12.4"),
            (
                c.cluster((2, 1, 1)).preferred_cluster((4, 1, 1)),
                "preferred_cluster",
                "12.8",
            ),
        ] {
            let e = attribute_refusal(c, &cuda_12_2);
            assert!(e.contains(attribute) && e.contains(needs), "{e}");
        }
        // A GPU without clusters.
        let ampere = AttributeLimits {
            cluster_launch: false,
            mem_sync_domains: 1,
            ..H200_ATTRIBUTES
        };
        assert!(attribute_refusal(c.preferred_cluster((2, 1, 1)), &ampere).contains("9.0"),);
        assert!(
            attribute_refusal(c.mem_sync_domain_map(0, 1), &ampere)
                .contains("has 1 memory synchronization domain (0 to 0)")
        );
    }

    #[test]
    fn no_attribute_value_panics_the_check() {
        // Every attribute at the edges of its range, alone and with a cluster, on a device with
        // and one without the features: refused or taken, never a panic.
        let values = [0, 1, 2, 3, 100, 101, u32::MAX];
        let old = AttributeLimits {
            driver_version: 11_080,
            cluster_launch: false,
            mem_sync_domains: 1,
            max_window_bytes: 0,
            max_persisting_l2_bytes: 0,
        };
        let mut checked = 0;
        for limits in [H200_ATTRIBUTES, old] {
            for &a in &values {
                for &b in &values {
                    let c = Config::new((a.max(1), 4, 1), (32, 1, 1));
                    for c in [
                        c.preferred_cluster((a, b, 1)),
                        c.cluster((b, 1, 1)).preferred_cluster((a, 4, 1)),
                        c.cluster((0, 0, 0)).preferred_cluster((a, b, 0)),
                        c.shared_carveout(a),
                        c.mem_sync_domain_map(a as u8, b as u8),
                    ] {
                        let _ = c.check(&H200);
                        let _ = c.check_attributes(&limits);
                        let _ = check_preferred_multiple((a, b, 1), (b, a, 1), "x");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 2 * 7 * 7 * 5);
    }

    #[test]
    fn the_fast_test_refers_every_attribute_to_the_full_check() {
        // Each attribute alone leaves the fast test, so that its rules are checked.
        let c = Config::for_elements(64, 64);
        for with in [
            c.preferred_cluster((1, 1, 1)),
            c.shared_carveout(200),
            c.mem_sync_domain(MemSyncDomain::Default),
            c.mem_sync_domain_map(9, 9),
            c.nvlink_centric(),
            c.device_updatable(),
        ] {
            assert!(with.attributes.is_some() && with.is_extended(), "{with:?}");
        }
        assert!(c.attributes.is_none() && c.priority(1).attributes.is_none());
    }
}
