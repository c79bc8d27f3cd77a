//! What the crate remembers per device (its limits, a library kernel's function there): read
//! without a lock once set.

use std::sync::OnceLock;

/// Devices whose values are cached; values of higher ordinals are computed on every use.
const CACHED_DEVICES: usize = 64;

/// One value per device ordinal, computed on first use there and read lock-free after.
#[derive(Debug)]
pub(crate) struct PerDevice<T> {
    slots: [OnceLock<T>; CACHED_DEVICES],
}

impl<T: Copy> PerDevice<T> {
    /// Nothing computed yet.
    pub(crate) const fn new() -> Self {
        PerDevice {
            slots: [const { OnceLock::new() }; CACHED_DEVICES],
        }
    }

    /// The value for device `ordinal` where it has been computed: a reference into the cache,
    /// for a launch that reads a few fields of it.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn get(&self, ordinal: usize) -> Option<&T> {
        self.slots.get(ordinal).and_then(OnceLock::get)
    }

    /// The value for device `ordinal`, computed by `compute` the first time (two threads may
    /// both compute it; one value is kept).
    #[inline]
    pub(crate) fn get_or_try_init<E>(
        &self,
        ordinal: usize,
        compute: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        match self.get(ordinal) {
            Some(value) => Ok(*value),
            None => self.init(ordinal, compute),
        }
    }

    /// The first use on device `ordinal` (or any use beyond the cached devices).
    #[cold]
    #[inline(never)]
    fn init<E>(&self, ordinal: usize, compute: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let value = compute()?;
        Ok(match self.slots.get(ordinal) {
            Some(slot) => *slot.get_or_init(|| value),
            None => value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_once_per_device_and_always_beyond_the_cache() {
        let cache = PerDevice::<usize>::new();
        let mut calls = 0;
        for _ in 0..3 {
            let v = cache.get_or_try_init::<()>(5, || {
                calls += 1;
                Ok(42)
            });
            assert_eq!(v, Ok(42));
        }
        assert_eq!(calls, 1);
        for _ in 0..2 {
            let _ = cache.get_or_try_init::<()>(CACHED_DEVICES, || {
                calls += 1;
                Ok(7)
            });
        }
        assert_eq!(calls, 3);
        assert_eq!(cache.get_or_try_init(6, || Err("no")), Err("no"));
        assert_eq!(cache.get(5), Some(&42));
        assert_eq!((cache.get(6), cache.get(CACHED_DEVICES)), (None, None));
    }
}
