//! Keeping typed launchers: the first use of a kernel in a module loads and checks it, later
//! uses from any thread find it without a lock.

use std::any::{Any, TypeId};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaModule;

use crate::{Error, Kernel, Library};

/// The typed launchers of one module (or [`Library`]), each loaded and checked on its first
/// use and kept for every later one.
///
/// Generic code keeps launchers here without knowing them in advance: a backend generic over
/// its element type asks for `Affine<T>`, or for `Unary<T>` under an op name chosen at run time,
/// and the cache loads that kernel (one driver lookup and one signature check) the first time
/// and hands out the same launcher afterwards. Lookups after the first are lock-free (atomic
/// loads, a hash and a comparison), from any number of threads; nothing is allocated then.
///
/// A block's `module = Name` type holds one and reaches every generic kernel and family member
/// of the block through it (`kernels.affine::<f16>()`, `kernels.unary::<f32>("exp")`).
///
/// ```no_run
/// use cuda_kernel::{KernelCache, KernelParam, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     #[kernel(name = "affine_{T}")]
///     fn affine<T>(numel: usize, x: *const T, y: *mut T, mul: T, add: T);
///     #[kernel(name = "u{op}_{T}")]
///     fn unary<T>(numel: usize, x: *const T, y: *mut T);
/// }
///
/// # fn f(module: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaModule>) -> Result<(), cuda_kernel::Error> {
/// let cache = KernelCache::new(module);
/// let affine = cache.get::<Affine<f32>>()?; // loaded and checked now
/// let again = cache.get::<Affine<f32>>()?; // the same launcher
/// assert!(std::ptr::eq(affine, again));
/// let exp = cache.get_named::<Unary<half::f16>>("exp")?; // uexp_f16
/// # Ok(()) }
/// ```
pub struct KernelCache {
    source: Source,
    first: Segment,
}

enum Source {
    Module(Arc<CudaModule>),
    Library(Arc<Library>),
}

/// A table of slots, each set once; a full table chains to one twice its size.
struct Segment {
    slots: Box<[OnceLock<Slot>]>,
    next: OnceLock<Box<Segment>>,
}

struct Slot {
    kernel: TypeId,
    name: Box<str>,
    launcher: Box<dyn Any + Send + Sync>,
}

const FIRST_SEGMENT: usize = 32;

impl KernelCache {
    /// An empty cache of the launchers of `module`.
    pub fn new(module: &Arc<CudaModule>) -> KernelCache {
        KernelCache::with_source(Source::Module(Arc::clone(module)))
    }

    /// An empty cache of the launchers of `library` (launching on any device).
    pub fn for_library(library: &Arc<Library>) -> KernelCache {
        KernelCache::with_source(Source::Library(Arc::clone(library)))
    }

    fn with_source(source: Source) -> KernelCache {
        KernelCache {
            source,
            first: Segment::new(FIRST_SEGMENT),
        }
    }

    /// The module the launchers come from (`None` for a library's cache).
    pub fn module(&self) -> Option<&Arc<CudaModule>> {
        match &self.source {
            Source::Module(module) => Some(module),
            Source::Library(_) => None,
        }
    }

    /// The launcher `K`, loaded and checked on first use ([`Kernel::load`] or
    /// [`Kernel::load_library`]); its errors are returned and nothing is kept, so a later call
    /// tries again.
    #[inline]
    pub fn get<K: Kernel + Send + Sync + 'static>(&self) -> Result<&K, Error> {
        self.entry("", || match &self.source {
            Source::Module(module) => K::load(module),
            Source::Library(library) => K::load_library(library),
        })
    }

    /// The launcher `K` of a kernel named at run time, for the name `name` (`"exp"` for
    /// `u{op}_{T}`): loaded on first use of that name ([`Kernel::load_named`]), kept per name.
    #[inline]
    pub fn get_named<K: Kernel + Send + Sync + 'static>(&self, name: &str) -> Result<&K, Error> {
        self.entry(name, || match &self.source {
            Source::Module(module) => K::load_named(module, name),
            Source::Library(library) => K::load_library_named(library, name),
        })
    }

    /// The fast path, small enough to inline into the caller: a hash and a probe.
    #[inline]
    fn entry<K: Send + Sync + 'static>(
        &self,
        name: &str,
        load: impl FnOnce() -> Result<K, Error>,
    ) -> Result<&K, Error> {
        let kernel = TypeId::of::<K>();
        let hash = hash(kernel, name);
        match self.lookup(kernel, name, hash) {
            Some(slot) => Ok(downcast(slot)),
            None => self.load_and_keep(kernel, name, hash, load),
        }
    }

    /// Probes every segment for a slot holding (`kernel`, `name`): atomic loads, no lock.
    #[inline]
    fn lookup(&self, kernel: TypeId, name: &str, hash: u64) -> Option<&Slot> {
        let mut segment = &self.first;
        loop {
            match segment.find(kernel, name, hash) {
                Probe::Found(slot) => return Some(slot),
                // An empty slot ends the run: the entry would be in it, not in a later segment.
                Probe::Vacant => return None,
                Probe::Full => segment = segment.next.get()?,
            }
        }
    }

    /// First use: load outside any slot, then claim one. A thread that loses a race for a slot
    /// to the same kernel takes the winner's launcher and drops its own.
    #[cold]
    #[inline(never)]
    fn load_and_keep<K: Send + Sync + 'static>(
        &self,
        kernel: TypeId,
        name: &str,
        hash: u64,
        load: impl FnOnce() -> Result<K, Error>,
    ) -> Result<&K, Error> {
        let mut pending = Slot {
            kernel,
            name: name.into(),
            launcher: Box::new(load()?),
        };
        let mut segment = &self.first;
        loop {
            match segment.insert(pending, hash) {
                Ok(slot) => return Ok(downcast(slot)),
                Err(back) => pending = back,
            }
            segment = segment
                .next
                .get_or_init(|| Box::new(Segment::new(segment.slots.len() * 2)));
        }
    }
}

enum Probe<'a> {
    Found(&'a Slot),
    Vacant,
    Full,
}

impl Segment {
    /// `len` is a power of two, so that a hash finds its slot by a mask.
    fn new(len: usize) -> Segment {
        debug_assert!(len.is_power_of_two());
        Segment {
            slots: (0..len).map(|_| OnceLock::new()).collect(),
            next: OnceLock::new(),
        }
    }

    /// Linear probing from the hash's slot: the matching slot, or whether an empty one ends
    /// the run (nothing further can match) or the segment is full.
    #[inline]
    fn find(&self, kernel: TypeId, name: &str, hash: u64) -> Probe<'_> {
        let mask = self.slots.len() - 1;
        let start = hash as usize;
        for i in 0..=mask {
            match self.slots[(start + i) & mask].get() {
                Some(slot) if slot.kernel == kernel && *slot.name == *name => {
                    return Probe::Found(slot);
                }
                Some(_) => {}
                None => return Probe::Vacant,
            }
        }
        Probe::Full
    }

    /// Puts `pending` in the first empty slot of its run, or returns the slot another thread
    /// filled with the same kernel first; gives `pending` back when the segment is full.
    fn insert(&self, mut pending: Slot, hash: u64) -> Result<&Slot, Slot> {
        let mask = self.slots.len() - 1;
        let start = hash as usize;
        for i in 0..=mask {
            let cell = &self.slots[(start + i) & mask];
            if let Some(slot) = cell.get() {
                if slot.kernel == pending.kernel && slot.name == pending.name {
                    return Ok(slot);
                }
                continue;
            }
            match cell.set(pending) {
                Ok(()) => return Ok(cell.get().expect("set just now")),
                Err(back) => {
                    pending = back;
                    let slot = cell.get().expect("set by another thread");
                    if slot.kernel == pending.kernel && slot.name == pending.name {
                        return Ok(slot);
                    }
                }
            }
        }
        Err(pending)
    }
}

/// The slot's launcher as `K`, which the caller found the slot by.
#[inline]
fn downcast<K: 'static>(slot: &Slot) -> &K {
    debug_assert!(slot.kernel == TypeId::of::<K>());
    let launcher: *const (dyn Any + Send + Sync) = &*slot.launcher;
    // SAFETY: every slot is found by comparing its `kernel` with `TypeId::of::<K>()`, and a
    // slot's `kernel` is the TypeId of the launcher it holds (set together in `entry`), so the
    // box holds a `K` (what `downcast_ref` would check again through the vtable).
    unsafe { &*launcher.cast::<K>() }
}

/// FxHash of the kernel's type and the run-time name: a few multiplications, no allocation.
#[inline]
fn hash(kernel: TypeId, name: &str) -> u64 {
    let mut hasher = FxHasher(0);
    kernel.hash(&mut hasher);
    hasher.write(name.as_bytes());
    hasher.finish()
}

struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        self.add(bytes.len() as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A new, empty cache of the same module or library: launchers are loaded again on first use.
impl Clone for KernelCache {
    fn clone(&self) -> KernelCache {
        KernelCache::with_source(match &self.source {
            Source::Module(module) => Source::Module(Arc::clone(module)),
            Source::Library(library) => Source::Library(Arc::clone(library)),
        })
    }
}

impl std::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut count = 0;
        let mut segment = Some(&self.first);
        while let Some(s) = segment {
            count += s.slots.iter().filter(|slot| slot.get().is_some()).count();
            segment = s.next.get().map(|b| &**b);
        }
        f.debug_struct("KernelCache")
            .field("launchers", &count)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table alone, with stand-in launchers: no GPU needed.
    fn table() -> Segment {
        Segment::new(4)
    }

    fn slot<K: Send + Sync + 'static>(name: &str, value: K) -> Slot {
        Slot {
            kernel: TypeId::of::<K>(),
            name: name.into(),
            launcher: Box::new(value),
        }
    }

    #[test]
    fn finds_what_it_keeps_by_type_and_name() {
        let t = table();
        let a = slot("exp", 1u32);
        let h = hash(a.kernel, "exp");
        assert!(matches!(t.find(a.kernel, "exp", h), Probe::Vacant));
        t.insert(a, h).ok().unwrap();
        let Probe::Found(found) = t.find(TypeId::of::<u32>(), "exp", h) else {
            panic!("not found")
        };
        assert_eq!(*downcast::<u32>(found), 1);
        // Same name, another type; same type, another name: other slots.
        let b = slot("exp", 2u64);
        let hb = hash(b.kernel, "exp");
        assert!(!matches!(t.find(b.kernel, "exp", hb), Probe::Found(_)));
        t.insert(b, hb).ok().unwrap();
        let c = slot("sqrt", 3u32);
        let hc = hash(c.kernel, "sqrt");
        t.insert(c, hc).ok().unwrap();
        let Probe::Found(found) = t.find(TypeId::of::<u32>(), "sqrt", hc) else {
            panic!("not found")
        };
        assert_eq!(*downcast::<u32>(found), 3);
        // A second insert of the same key returns the first launcher.
        let again = t.insert(slot("exp", 9u32), h).ok().unwrap();
        assert_eq!(*downcast::<u32>(again), 1);
    }

    #[test]
    fn a_full_table_gives_the_slot_back() {
        let t = table();
        for i in 0..4u32 {
            let s = slot(&i.to_string(), i);
            let h = hash(s.kernel, &s.name);
            t.insert(s, h).ok().unwrap();
        }
        let s = slot("4", 4u32);
        let h = hash(s.kernel, "4");
        assert!(matches!(t.find(s.kernel, "4", h), Probe::Full));
        assert!(t.insert(s, h).is_err());
    }

    #[test]
    fn hashes_differ_by_name_and_type() {
        let (u, f) = (TypeId::of::<u32>(), TypeId::of::<f32>());
        assert_ne!(hash(u, "exp"), hash(u, "sqrt"));
        assert_ne!(hash(u, "exp"), hash(f, "exp"));
        assert_ne!(hash(u, ""), hash(u, "\0"));
    }
}
