//! Launch attributes as the driver reads them (`CUlaunchAttribute`, `cuda.h`): each attribute's
//! number, the driver version that has it, and where its value lies in the 64-byte union.
//!
//! Written here rather than through cudarc's bindings, whose `CUlaunchAttributeID` enum has the
//! variants of the CUDA version a crate picks (an attribute newer than it would not compile,
//! and a number outside a Rust enum is undefined behavior): the layout below is the driver's
//! ABI, the same in every CUDA 12 and 13 header.

use cudarc::driver::sys;

/// One launch attribute, laid out as `CUlaunchAttribute`: a 4-byte id, 4 bytes of padding and
/// the 64-byte value union.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawAttribute {
    pub(crate) id: u32,
    pad: u32,
    value: [u8; 64],
}

const _: () = assert!(size_of::<RawAttribute>() == size_of::<sys::CUlaunchAttribute>());
const _: () = assert!(align_of::<RawAttribute>() <= align_of::<sys::CUlaunchAttribute>());

/// The attributes' numbers (`CUlaunchAttributeID`) and the first driver with each.
pub(crate) mod id {
    /// `CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW` (CUDA 11.0; launches since 12.0).
    pub(crate) const ACCESS_POLICY_WINDOW: u32 = 1;
    /// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`.
    pub(crate) const COOPERATIVE: u32 = 2;
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
    pub(crate) const CLUSTER_DIMENSION: u32 = 4;
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`.
    pub(crate) const PROGRAMMATIC_STREAM_SERIALIZATION: u32 = 6;
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT`.
    pub(crate) const PROGRAMMATIC_EVENT: u32 = 7;
    /// `CU_LAUNCH_ATTRIBUTE_PRIORITY`.
    pub(crate) const PRIORITY: u32 = 8;
    /// `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP`.
    pub(crate) const MEM_SYNC_DOMAIN_MAP: u32 = 9;
    /// `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN`.
    pub(crate) const MEM_SYNC_DOMAIN: u32 = 10;
    /// `CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION`.
    pub(crate) const PREFERRED_CLUSTER_DIMENSION: u32 = 11;
    /// `CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT`.
    pub(crate) const LAUNCH_COMPLETION_EVENT: u32 = 12;
    /// `CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE`.
    pub(crate) const DEVICE_UPDATABLE_KERNEL_NODE: u32 = 13;
    /// `CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`.
    pub(crate) const PREFERRED_SHARED_MEMORY_CARVEOUT: u32 = 14;
    /// `CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING`.
    pub(crate) const NVLINK_UTIL_CENTRIC_SCHEDULING: u32 = 16;
}

/// The names `Config` (or `Attributed`) gives the attributes, as errors name them.
pub(crate) mod names {
    pub(crate) const L2_WINDOW: &str = "l2_window";
    pub(crate) const COOPERATIVE: &str = "cooperative";
    pub(crate) const CLUSTER: &str = "cluster";
    pub(crate) const PROGRAMMATIC: &str = "programmatic";
    pub(crate) const PROGRAMMATIC_EVENT: &str = "programmatic_event";
    pub(crate) const PRIORITY: &str = "priority";
    pub(crate) const MEM_SYNC_DOMAIN_MAP: &str = "mem_sync_domain_map";
    pub(crate) const MEM_SYNC_DOMAIN: &str = "mem_sync_domain";
    pub(crate) const PREFERRED_CLUSTER: &str = "preferred_cluster";
    pub(crate) const COMPLETION_EVENT: &str = "completion_event";
    pub(crate) const DEVICE_UPDATABLE: &str = "device_updatable";
    pub(crate) const SHARED_CARVEOUT: &str = "shared_carveout";
    pub(crate) const NVLINK_CENTRIC: &str = "nvlink_centric";
}

/// The name of the attribute numbered `id` ([`names`]), for messages.
pub(crate) fn name(id: u32) -> Option<&'static str> {
    Some(match id {
        id::ACCESS_POLICY_WINDOW => names::L2_WINDOW,
        id::COOPERATIVE => names::COOPERATIVE,
        id::CLUSTER_DIMENSION => names::CLUSTER,
        id::PROGRAMMATIC_STREAM_SERIALIZATION => names::PROGRAMMATIC,
        id::PROGRAMMATIC_EVENT => names::PROGRAMMATIC_EVENT,
        id::PRIORITY => names::PRIORITY,
        id::MEM_SYNC_DOMAIN_MAP => names::MEM_SYNC_DOMAIN_MAP,
        id::MEM_SYNC_DOMAIN => names::MEM_SYNC_DOMAIN,
        id::PREFERRED_CLUSTER_DIMENSION => names::PREFERRED_CLUSTER,
        id::LAUNCH_COMPLETION_EVENT => names::COMPLETION_EVENT,
        id::DEVICE_UPDATABLE_KERNEL_NODE => names::DEVICE_UPDATABLE,
        id::PREFERRED_SHARED_MEMORY_CARVEOUT => names::SHARED_CARVEOUT,
        id::NVLINK_UTIL_CENTRIC_SCHEDULING => names::NVLINK_CENTRIC,
        _ => return None,
    })
}

/// The first driver (`cuDriverGetVersion`) that takes each attribute in a launch.
pub(crate) mod since {
    /// `cuLaunchKernelEx` itself, clusters, programmatic launches, the access policy window,
    /// memory synchronization domains, the programmatic event.
    pub(crate) const LAUNCH_EX: i32 = 12_000;
    /// The launch completion event.
    pub(crate) const COMPLETION_EVENT: i32 = 12_030;
    /// Device-updatable kernel nodes and the preferred shared-memory carveout.
    pub(crate) const UPDATABLE_AND_CARVEOUT: i32 = 12_040;
    /// The preferred cluster dimension.
    pub(crate) const PREFERRED_CLUSTER: i32 = 12_080;
    /// NVLink-utilization-centric scheduling.
    pub(crate) const NVLINK_CENTRIC: i32 = 13_000;
}

impl RawAttribute {
    /// An attribute whose value is `bytes` at the start of the union, the rest zero.
    fn new(id: u32, bytes: &[u8]) -> RawAttribute {
        let mut value = [0; 64];
        value[..bytes.len()].copy_from_slice(bytes);
        RawAttribute { id, pad: 0, value }
    }

    /// An attribute whose value is one 32-bit integer (`cooperative`, `priority`,
    /// `memSyncDomain`, `sharedMemCarveout`, ...).
    pub(crate) fn int(id: u32, value: u32) -> RawAttribute {
        RawAttribute::new(id, &value.to_ne_bytes())
    }

    /// An attribute whose value is three 32-bit integers (`clusterDim`,
    /// `preferredClusterDim`).
    pub(crate) fn dims(id: u32, (x, y, z): (u32, u32, u32)) -> RawAttribute {
        let mut bytes = [0; 12];
        for (at, v) in [x, y, z].into_iter().enumerate() {
            bytes[at * 4..at * 4 + 4].copy_from_slice(&v.to_ne_bytes());
        }
        RawAttribute::new(id, &bytes)
    }

    /// `memSyncDomainMap`: two bytes, `default_` then `remote`.
    pub(crate) fn domain_map(default: u8, remote: u8) -> RawAttribute {
        RawAttribute::new(id::MEM_SYNC_DOMAIN_MAP, &[default, remote])
    }

    /// `accessPolicyWindow`: `base_ptr`, `num_bytes`, `hitRatio`, `hitProp`, `missProp`.
    pub(crate) fn window(base: u64, bytes: usize, hit_ratio: f32, hit: u32, miss: u32) -> Self {
        let mut value = [0; 28];
        value[0..8].copy_from_slice(&base.to_ne_bytes());
        value[8..16].copy_from_slice(&(bytes as u64).to_ne_bytes());
        value[16..20].copy_from_slice(&hit_ratio.to_ne_bytes());
        value[20..24].copy_from_slice(&hit.to_ne_bytes());
        value[24..28].copy_from_slice(&miss.to_ne_bytes());
        RawAttribute::new(id::ACCESS_POLICY_WINDOW, &value)
    }

    /// `launchCompletionEvent` (`event`, `flags`) or `programmaticEvent` (`event`, `flags`,
    /// `triggerAtBlockStart`): the event, no record flags, and the trigger.
    pub(crate) fn event(id: u32, event: sys::CUevent, trigger_at_block_start: bool) -> Self {
        let mut value = [0; 16];
        value[0..8].copy_from_slice(&(event as usize as u64).to_ne_bytes());
        value[12..16].copy_from_slice(&u32::from(trigger_at_block_start).to_ne_bytes());
        RawAttribute::new(id, &value)
    }

    /// `deviceUpdatableKernelNode` with `deviceUpdatable` set (the driver writes `devNode`).
    pub(crate) fn device_updatable() -> RawAttribute {
        RawAttribute::int(id::DEVICE_UPDATABLE_KERNEL_NODE, 1)
    }

    /// The 32-bit integer at byte `at` of the value.
    pub(crate) fn u32_at(&self, at: usize) -> u32 {
        let mut bytes = [0; 4];
        bytes.copy_from_slice(&self.value[at..at + 4]);
        u32::from_ne_bytes(bytes)
    }

    /// The 64-bit integer at byte `at` of the value.
    pub(crate) fn u64_at(&self, at: usize) -> u64 {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&self.value[at..at + 8]);
        u64::from_ne_bytes(bytes)
    }

    /// The byte at `at` of the value.
    pub(crate) fn u8_at(&self, at: usize) -> u8 {
        self.value[at]
    }

    /// An all-zero attribute of `id`, for the driver to fill.
    pub(crate) fn empty(id: u32) -> RawAttribute {
        RawAttribute::new(id, &[])
    }

    /// The value union, for the node attribute calls.
    pub(crate) fn value_ptr(&self) -> *const std::ffi::c_void {
        self.value.as_ptr().cast()
    }

    /// As [`value_ptr`](Self::value_ptr), for the driver to write.
    pub(crate) fn value_mut_ptr(&mut self) -> *mut std::ffi::c_void {
        self.value.as_mut_ptr().cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cudarc's bindings of the CUDA 13.0 header, which the tests build with, agree with the
    /// layout written here.
    #[test]
    fn the_layout_is_the_headers() {
        use sys::CUlaunchAttributeID::*;
        let ids = [
            (
                id::ACCESS_POLICY_WINDOW,
                CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
            ),
            (id::COOPERATIVE, CU_LAUNCH_ATTRIBUTE_COOPERATIVE),
            (id::CLUSTER_DIMENSION, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION),
            (
                id::PROGRAMMATIC_STREAM_SERIALIZATION,
                CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            ),
            (
                id::PROGRAMMATIC_EVENT,
                CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT,
            ),
            (id::PRIORITY, CU_LAUNCH_ATTRIBUTE_PRIORITY),
            (
                id::MEM_SYNC_DOMAIN_MAP,
                CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP,
            ),
            (id::MEM_SYNC_DOMAIN, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN),
            (
                id::PREFERRED_CLUSTER_DIMENSION,
                CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION,
            ),
            (
                id::LAUNCH_COMPLETION_EVENT,
                CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT,
            ),
            (
                id::DEVICE_UPDATABLE_KERNEL_NODE,
                CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE,
            ),
            (
                id::PREFERRED_SHARED_MEMORY_CARVEOUT,
                CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            ),
            (
                id::NVLINK_UTIL_CENTRIC_SCHEDULING,
                CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING,
            ),
        ];
        for (ours, theirs) in ids {
            assert_eq!(ours, theirs as u32, "{theirs:?}");
        }
        // Each value where the header's union has it.
        // SAFETY: a plain C struct and union; all-zero is valid, and the reads below are of
        // the members the attributes write.
        let header = |raw: RawAttribute| unsafe {
            std::mem::transmute::<RawAttribute, sys::CUlaunchAttribute>(raw)
        };
        let w = header(RawAttribute::window(0x1000, 4096, 0.5, 2, 1));
        let window = unsafe { w.value.accessPolicyWindow };
        assert_eq!(window.base_ptr as usize, 0x1000);
        assert_eq!(window.num_bytes, 4096);
        assert_eq!(window.hitRatio, 0.5);
        assert_eq!(window.hitProp as u32, 2);
        assert_eq!(window.missProp as u32, 1);
        let e = header(RawAttribute::event(
            id::PROGRAMMATIC_EVENT,
            0x2000 as sys::CUevent,
            true,
        ));
        let event = unsafe { e.value.programmaticEvent };
        assert_eq!(
            (event.event as usize, event.flags, event.triggerAtBlockStart),
            (0x2000, 0, 1)
        );
        let d = header(RawAttribute::dims(
            id::PREFERRED_CLUSTER_DIMENSION,
            (4, 2, 1),
        ));
        let dims = unsafe { d.value.preferredClusterDim };
        assert_eq!((dims.x, dims.y, dims.z), (4, 2, 1));
        let m = header(RawAttribute::domain_map(0, 1));
        let map = unsafe { m.value.memSyncDomainMap };
        assert_eq!((map.default_, map.remote), (0, 1));
        let c = header(RawAttribute::int(id::PREFERRED_SHARED_MEMORY_CARVEOUT, 75));
        assert_eq!(unsafe { c.value.sharedMemCarveout }, 75);
        let u = header(RawAttribute::device_updatable());
        assert_eq!(
            unsafe { u.value.deviceUpdatableKernelNode.deviceUpdatable },
            1
        );
    }
}
