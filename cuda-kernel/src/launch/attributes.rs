//! The launch attributes that borrow what they name: an L2 access policy window over device
//! memory, and the events a launch records. A [`Config`] with any of them is an
//! [`Attributed`] configuration, which every way to launch takes as it takes a `Config`.

use std::marker::PhantomData;

use cudarc::driver::{CudaEvent, CudaStream, sys};

use crate::config::{AttributeLimits, RawAttributes, attribute_error, needs};
use crate::driver::attribute::{RawAttribute, id, names, since};
use crate::driver::result;
use crate::{Config, DeviceArg, Error};

/// A [`Config`] with the launch attributes that borrow what they name for `'a`: an
/// [L2 access policy window](L2Window) over device memory, a
/// [launch completion event](Config::completion_event) and a
/// [programmatic event](Config::programmatic_event).
///
/// Made by those methods of [`Config`] (set its other options first), and taken by every
/// launcher, [`Plan::record`](crate::Plan::record) and [`Plan::set`](crate::Plan::set) wherever
/// they take a `Config`. In a plan the borrows last as long as the plan.
///
/// ```no_run
/// # fn f(stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, weights: &cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// use cuda_kernel::{Config, L2Window};
/// let started = stream.context().new_event(None)?; // timing disabled, as the driver needs
/// let config = Config::for_elements(1 << 20, 256)
///     .l2_window(L2Window::persisting(stream, weights))
///     .completion_event(&started);
/// // kernel.launch(stream, config, ...)?; then `started` completes once every block has begun
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Attributed<'a> {
    /// The configuration and the attributes that borrow nothing.
    pub config: Config,
    /// The L2 access policy window, if any.
    pub l2_window: Option<L2Window<'a>>,
    /// The event recorded once every block of the kernel has begun, if any.
    pub completion_event: Option<&'a CudaEvent>,
    /// The event triggered by the kernel's blocks (`cudaTriggerProgrammaticLaunchCompletion`),
    /// or as each block begins, if any.
    pub programmatic_event: Option<ProgrammaticEvent<'a>>,
}

/// A [programmatic event](Config::programmatic_event): the event and when it triggers.
///
/// ```no_run
/// # fn f(stream: &cuda_kernel::cudarc::driver::CudaStream, other: &cuda_kernel::cudarc::driver::CudaStream) -> Result<(), cuda_kernel::Error> {
/// let event = stream.context().new_event(None)?;
/// let config = cuda_kernel::Config::for_elements(1 << 20, 256).programmatic_event(&event, true);
/// assert!(config.programmatic_event.unwrap().trigger_at_block_start);
/// // producer.launch(stream, config, ...)?; other.wait(&event)?; consumer.launch(other, ...)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ProgrammaticEvent<'a> {
    /// The event.
    pub event: &'a CudaEvent,
    /// Whether each block triggers it as it begins (else where it calls
    /// `cudaTriggerProgrammaticLaunchCompletion()`, or as it exits).
    pub trigger_at_block_start: bool,
}

/// How the L2 cache treats accesses to a [window](L2Window) (`CUaccessProperty`).
///
/// ```no_run
/// # fn f(stream: &cuda_kernel::cudarc::driver::CudaStream, kv: &cuda_kernel::cudarc::driver::CudaSlice<half::f16>) {
/// use cuda_kernel::{AccessProperty, L2Window};
/// // Half of the accesses persist, the others stream through.
/// let window = L2Window::persisting(stream, kv).hit_ratio(0.5).miss(AccessProperty::Streaming);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessProperty {
    /// Cached as any access (`CU_ACCESS_PROPERTY_NORMAL`).
    Normal,
    /// Less likely to stay in L2 (`CU_ACCESS_PROPERTY_STREAMING`).
    Streaming,
    /// Kept in the L2 set-aside for persisting accesses (`CU_ACCESS_PROPERTY_PERSISTING`):
    /// see [`set_persisting_l2`].
    Persisting,
}

/// An L2 access policy window: a range of device memory whose lines a launch's accesses keep in
/// L2 (`CUaccessPolicyWindow`). Borrows the memory for `'a`, so it cannot be freed while a
/// launch or a plan may use the window.
///
/// A fraction ([`hit_ratio`](Self::hit_ratio)) of the window's accesses get the
/// [`hit`](Self::hit) property, the rest the [`miss`](Self::miss) property. Persisting lines
/// stay only in the set-aside [`set_persisting_l2`] reserves; the window itself may be at most
/// the device's `max_window_bytes` ([`AttributeLimits`](crate::AttributeLimits)).
///
/// ```no_run
/// # fn f(stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, lookup: &cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// use cuda_kernel::{AccessProperty, Config, L2Window};
/// let limits = cuda_kernel::AttributeLimits::of(stream)?;
/// cuda_kernel::set_persisting_l2(stream, limits.max_persisting_l2_bytes as usize)?;
/// let window = L2Window::persisting(stream, lookup).hit_ratio(0.6).miss(AccessProperty::Streaming);
/// let config = Config::for_elements(1 << 24, 256).l2_window(window);
/// // ... launches that reread `lookup` ...
/// cuda_kernel::reset_persisting_l2(stream)?; // lines back to normal for later work
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2Window<'a> {
    base: sys::CUdeviceptr,
    bytes: usize,
    hit_ratio: f32,
    hit: AccessProperty,
    miss: AccessProperty,
    _memory: PhantomData<&'a ()>,
}

impl<'a> L2Window<'a> {
    /// A window over all of `memory` whose accesses persist in L2 (hit ratio 1, misses
    /// normal). Memory of unknown length (a raw pointer) makes an empty window, which a launch
    /// refuses: give its size with [`bytes`](Self::bytes).
    pub fn persisting<T, D: DeviceArg<T> + ?Sized>(stream: &CudaStream, memory: &'a D) -> Self {
        let (base, guard) = memory.device_arg(stream);
        drop(guard);
        let bytes = memory
            .element_count()
            .map_or(0, |n| n.saturating_mul(size_of::<T>()));
        L2Window {
            base,
            bytes,
            hit_ratio: 1.0,
            hit: AccessProperty::Persisting,
            miss: AccessProperty::Normal,
            _memory: PhantomData,
        }
    }

    /// The window's first `bytes` bytes only (at most the memory's length, where known).
    pub fn bytes(mut self, bytes: usize) -> Self {
        self.bytes = if self.bytes == 0 {
            bytes
        } else {
            bytes.min(self.bytes)
        };
        self
    }

    /// The fraction of accesses, 0 to 1, that get the hit property.
    pub fn hit_ratio(mut self, ratio: f32) -> Self {
        self.hit_ratio = ratio;
        self
    }

    /// The property of the accesses within the hit ratio.
    pub fn hit(mut self, property: AccessProperty) -> Self {
        self.hit = property;
        self
    }

    /// The property of the other accesses (persisting is not allowed for them).
    pub fn miss(mut self, property: AccessProperty) -> Self {
        self.miss = property;
        self
    }

    /// Its device address and length in bytes.
    pub fn range(&self) -> (sys::CUdeviceptr, usize) {
        (self.base, self.bytes)
    }

    fn raw(&self) -> RawAttribute {
        RawAttribute::window(
            self.base,
            self.bytes,
            self.hit_ratio,
            property(self.hit),
            property(self.miss),
        )
    }

    fn check(&self, limits: &AttributeLimits) -> Result<(), Error> {
        let refuse = |rule: String| Err(attribute_error(names::L2_WINDOW, rule));
        needs(limits, names::L2_WINDOW, since::LAUNCH_EX)?;
        if limits.max_window_bytes == 0 {
            return refuse(
                "this GPU has no L2 access policy windows (compute capability 8.0 or newer has)"
                    .into(),
            );
        }
        if self.bytes == 0 {
            return refuse("the window is empty: give the length of memory of unknown length with `L2Window::bytes`".into());
        }
        if self.bytes > limits.max_window_bytes as usize {
            return refuse(format!(
                "the window is {} bytes, larger than this device's largest window of {} bytes (CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE): narrow it with `L2Window::bytes`",
                self.bytes, limits.max_window_bytes
            ));
        }
        if !(0.0..=1.0).contains(&self.hit_ratio) {
            return refuse(format!(
                "the hit ratio is {}, but it is a fraction from 0 to 1",
                self.hit_ratio
            ));
        }
        if self.miss == AccessProperty::Persisting {
            return refuse(
                "the miss property cannot be persisting: only the hit ratio's accesses persist"
                    .into(),
            );
        }
        Ok(())
    }
}

fn property(p: AccessProperty) -> u32 {
    match p {
        AccessProperty::Normal => 0,
        AccessProperty::Streaming => 1,
        AccessProperty::Persisting => 2,
    }
}

impl Config {
    /// With an L2 access policy window, which borrows its memory: see [`L2Window`].
    pub fn l2_window(self, window: L2Window<'_>) -> Attributed<'_> {
        Attributed::from(self).l2_window(window)
    }

    /// With a launch completion event (CUDA 12.3+ drivers), borrowed: the driver records it
    /// once every block of the kernel has begun, so that dependent work (a
    /// `stream.wait(&event)` on another stream) can overlap the kernel's tail. The event must
    /// be of the stream's context and have timing disabled (cudarc's `new_event(None)`). For
    /// launches on a stream only (not in a [`Plan`](crate::Plan)).
    pub fn completion_event(self, event: &CudaEvent) -> Attributed<'_> {
        Attributed::from(self).completion_event(event)
    }

    /// With a programmatic event (compute capability 9.0+), borrowed: triggered once every
    /// block has called `cudaTriggerProgrammaticLaunchCompletion()` or exited, or, with
    /// `trigger_at_block_start`, as each block begins. For launches on a stream only.
    pub fn programmatic_event(
        self,
        event: &CudaEvent,
        trigger_at_block_start: bool,
    ) -> Attributed<'_> {
        Attributed::from(self).programmatic_event(event, trigger_at_block_start)
    }
}

impl<'a> Attributed<'a> {
    /// See [`Config::l2_window`].
    pub fn l2_window(mut self, window: L2Window<'a>) -> Self {
        self.l2_window = Some(window);
        self
    }

    /// See [`Config::completion_event`].
    pub fn completion_event(mut self, event: &'a CudaEvent) -> Self {
        self.completion_event = Some(event);
        self
    }

    /// See [`Config::programmatic_event`].
    pub fn programmatic_event(
        mut self,
        event: &'a CudaEvent,
        trigger_at_block_start: bool,
    ) -> Self {
        self.programmatic_event = Some(ProgrammaticEvent {
            event,
            trigger_at_block_start,
        });
        self
    }

    /// Whether an attribute borrows something.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn borrows(&self) -> bool {
        self.l2_window.is_some()
            | self.completion_event.is_some()
            | self.programmatic_event.is_some()
    }

    /// Whether the launch needs `cuLaunchKernelEx`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn is_extended(&self) -> bool {
        self.config.is_extended() || self.borrows()
    }

    /// Checks the borrowed attributes for a launch on `stream` (the configuration's own are
    /// [`Config::check`]'s).
    #[cold]
    pub(crate) fn check_borrowed(
        &self,
        limits: &AttributeLimits,
        stream: &CudaStream,
        in_graph: bool,
    ) -> Result<(), Error> {
        if let Some(window) = &self.l2_window {
            window.check(limits)?;
        }
        let events = [
            (
                names::COMPLETION_EVENT,
                self.completion_event,
                since::COMPLETION_EVENT,
            ),
            (
                names::PROGRAMMATIC_EVENT,
                self.programmatic_event.map(|p| p.event),
                since::LAUNCH_EX,
            ),
        ];
        for (attribute, event, version) in events {
            let Some(event) = event else { continue };
            needs(limits, attribute, version)?;
            if in_graph {
                return Err(attribute_error(
                    attribute,
                    "is for launches on a stream: a graph's launches depend on one another through its edges, not events".into(),
                ));
            }
            if attribute == names::PROGRAMMATIC_EVENT && !limits.cluster_launch {
                return Err(attribute_error(
                    attribute,
                    "needs a GPU of compute capability 9.0 or newer".into(),
                ));
            }
            if event.context().cu_ctx() != stream.context().cu_ctx() {
                return Err(attribute_error(
                    attribute,
                    "the event belongs to another context than the launch's stream".into(),
                ));
            }
        }
        Ok(())
    }

    /// Whether `other` sets the same attributes (the grid, block and shared memory aside): a
    /// plan's update that changes them sets its node's attributes again.
    pub(crate) fn same_attributes(&self, other: &Attributed<'_>) -> bool {
        let attributes_only = |c: &Config| Config {
            grid: (0, 0, 0),
            block: (0, 0, 0),
            shared_mem_bytes: 0,
            ..*c
        };
        let same_event = |a: Option<&CudaEvent>, b: Option<&CudaEvent>| {
            a.map(CudaEvent::cu_event) == b.map(CudaEvent::cu_event)
        };
        attributes_only(&self.config) == attributes_only(&other.config)
            && self.l2_window == other.l2_window
            && same_event(self.completion_event, other.completion_event)
            && same_event(
                self.programmatic_event.map(|p| p.event),
                other.programmatic_event.map(|p| p.event),
            )
            && self.programmatic_event.map(|p| p.trigger_at_block_start)
                == other.programmatic_event.map(|p| p.trigger_at_block_start)
    }

    /// The attributes of an extended launch, one per option set.
    pub(crate) fn launch_attributes(&self) -> RawAttributes<13> {
        let mut out = RawAttributes::new();
        self.config.push_attributes(&mut out);
        if let Some(window) = &self.l2_window {
            out.push(window.raw());
        }
        if let Some(event) = self.completion_event {
            out.push(RawAttribute::event(
                id::LAUNCH_COMPLETION_EVENT,
                event.cu_event(),
                false,
            ));
        }
        if let Some(p) = self.programmatic_event {
            out.push(RawAttribute::event(
                id::PROGRAMMATIC_EVENT,
                p.event.cu_event(),
                p.trigger_at_block_start,
            ));
        }
        out
    }
}

/// A launch's configuration as `launch` and [`Plan::record`](crate::Plan::record) take it: a
/// [`Config`], cudarc's `LaunchConfig`, or an [`Attributed`] configuration (anything that
/// converts into one). A launch given something else, its stream forgotten or its arguments
/// shifted, is an error saying what goes there.
///
/// ```
/// use cuda_kernel::{Attributed, Config, IntoConfig};
///
/// fn grid_of<'a>(config: impl IntoConfig<'a>) -> (u32, u32, u32) {
///     config.into_config().config.grid
/// }
/// assert_eq!(grid_of(Config::for_elements(1000, 256)), (4, 1, 1));
/// assert_eq!(grid_of(cuda_kernel::cudarc::driver::LaunchConfig::for_num_elems(1000)).0, 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a launch configuration",
    label = "the launch configuration goes here: a `Config`, cudarc's `LaunchConfig` or an \
             `Attributed`",
    note = "`launch` takes the stream, then the configuration \
            (`Config::for_elements(n, 256)`), then the kernel's arguments"
)]
pub trait IntoConfig<'a> {
    /// The configuration, with the attributes it carries.
    fn into_config(self) -> Attributed<'a>;
}

#[diagnostic::do_not_recommend]
impl<'a, T: Into<Attributed<'a>>> IntoConfig<'a> for T {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn into_config(self) -> Attributed<'a> {
        self.into()
    }
}

impl From<Config> for Attributed<'_> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn from(config: Config) -> Self {
        Attributed {
            config,
            l2_window: None,
            completion_event: None,
            programmatic_event: None,
        }
    }
}

impl From<cudarc::driver::LaunchConfig> for Attributed<'_> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn from(config: cudarc::driver::LaunchConfig) -> Self {
        Attributed::from(Config::from(config))
    }
}

/// Reserves `bytes` of the L2 cache of `stream`'s device for persisting accesses
/// (`cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)`), up to the device's
/// `max_persisting_l2_bytes`; returns what the driver set aside. [`L2Window`]s with
/// [`AccessProperty::Persisting`] keep their lines there.
///
/// ```no_run
/// # fn f(stream: &cuda_kernel::cudarc::driver::CudaStream) -> Result<(), cuda_kernel::Error> {
/// let reserved = cuda_kernel::set_persisting_l2(stream, 16 << 20)?;
/// # Ok(()) }
/// ```
pub fn set_persisting_l2(stream: &CudaStream, bytes: usize) -> Result<usize, Error> {
    let limits = AttributeLimits::of(stream)?;
    if bytes > limits.max_persisting_l2_bytes as usize {
        return Err(attribute_error(
            names::L2_WINDOW,
            format!(
                "a set-aside of {bytes} bytes is larger than this device's persisting L2 maximum of {} bytes (CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)",
                limits.max_persisting_l2_bytes
            ),
        ));
    }
    let _entered = result::enter(stream.context())?;
    result::set_persisting_l2_limit(bytes)?;
    result::persisting_l2_limit()
}

/// Returns every persisting line of `stream`'s device's L2 to normal
/// (`cuCtxResetPersistingL2Cache`), so that later work has the whole cache; the set-aside
/// stays reserved.
///
/// ```no_run
/// # fn f(stream: &cuda_kernel::cudarc::driver::CudaStream) -> Result<(), cuda_kernel::Error> {
/// // ... launches with persisting windows ...
/// cuda_kernel::reset_persisting_l2(stream)?;
/// # Ok(()) }
/// ```
pub fn reset_persisting_l2(stream: &CudaStream) -> Result<(), Error> {
    let _entered = result::enter(stream.context())?;
    result::reset_persisting_l2()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemSyncDomain;

    fn window(base: u64) -> L2Window<'static> {
        L2Window {
            base,
            bytes: 4096,
            hit_ratio: 1.0,
            hit: AccessProperty::Persisting,
            miss: AccessProperty::Normal,
            _memory: PhantomData,
        }
    }

    /// Every option of `Config` and the window at once (events need a GPU to make): each one
    /// attribute, in the slots `launch_attributes` has.
    #[test]
    fn every_option_has_a_slot_and_its_attribute() {
        let all = Config::new((4, 1, 1), (32, 1, 1))
            .cluster((2, 1, 1))
            .cooperative()
            .priority(1)
            .programmatic_dependent()
            .preferred_cluster((4, 1, 1))
            .shared_carveout(10)
            .mem_sync_domain(MemSyncDomain::Remote)
            .mem_sync_domain_map(0, 1)
            .nvlink_centric()
            .device_updatable()
            .l2_window(window(0x1000));
        let attributes = all.launch_attributes();
        let ids: Vec<u32> = attributes.as_slice().iter().map(|a| a.id).collect();
        assert_eq!(ids.len(), 11);
        assert_eq!(ids.last(), Some(&id::ACCESS_POLICY_WINDOW));
        // Two slots left, one per event.
        assert_eq!(13 - ids.len(), 2);
    }

    #[test]
    fn an_update_changes_attributes_only_where_an_attribute_differs() {
        let c = Config::for_elements(1024, 256).priority(1);
        let a = Attributed::from(c);
        let resized = Attributed::from(Config::for_elements(4096, 128).shared_mem(64).priority(1));
        assert!(a.same_attributes(&resized));
        assert!(!a.same_attributes(&Attributed::from(c.priority(2))));
        assert!(!a.same_attributes(&Attributed::from(c.shared_carveout(5))));
        assert!(!a.same_attributes(&c.l2_window(window(0x1000))));
        assert!(
            c.l2_window(window(0x1000))
                .same_attributes(&c.l2_window(window(0x1000)))
        );
        assert!(
            !c.l2_window(window(0x1000))
                .same_attributes(&c.l2_window(window(0x2000)))
        );
    }
}
