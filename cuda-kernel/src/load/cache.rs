//! Keeping typed launchers: the first use of a kernel in a module loads and checks it, later
//! uses from any thread find it without a lock.

use std::any::TypeId;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaModule;

use crate::load::kernel::{KernelInfo, Source as From};
use crate::{Error, Kernel, Library, Loaded};

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
/// (Generic over the launcher only so that its tests need no GPU.)
struct Segment<L = Loaded> {
    slots: Box<[OnceLock<Slot<L>>]>,
    next: OnceLock<Box<Segment<L>>>,
}

struct Slot<L = Loaded> {
    kernel: TypeId,
    name: Box<str>,
    /// The launcher, which is its `Loaded` function by another name (`#[repr(transparent)]`).
    launcher: L,
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
        // (A match rather than `?` or `map`: nothing more compiled per kernel.)
        match self.__entry(TypeId::of::<K>(), None, K::__INFO) {
            // SAFETY: a launcher is `#[repr(transparent)]` over the `Loaded` function it
            // launches (the `Kernel` contract), and this one was loaded and checked as `K`'s.
            Ok(loaded) => Ok(unsafe { &*(loaded as *const Loaded as *const K) }),
            Err(e) => Err(e),
        }
    }

    /// The launcher `K` of a kernel named at run time, for the name `name` (`"exp"` for
    /// `u{op}_{T}`): loaded on first use of that name ([`Kernel::load_named`]), kept per name.
    #[inline]
    pub fn get_named<K: Kernel + Send + Sync + 'static>(&self, name: &str) -> Result<&K, Error> {
        match self.__entry(TypeId::of::<K>(), Some(name), K::__INFO) {
            // SAFETY: as in `get`.
            Ok(loaded) => Ok(unsafe { &*(loaded as *const Loaded as *const K) }),
            Err(e) => Err(e),
        }
    }

    /// The launcher of the kernel `kernel` describes (named `name` at run time): a hash and a
    /// probe, or the first load. Not generic, so compiled once for every kernel; what
    /// [`get`](Self::get), [`get_named`](Self::get_named) and a module type's methods call.
    #[doc(hidden)]
    pub fn __entry(
        &self,
        kernel: TypeId,
        name: Option<&str>,
        info: &'static KernelInfo,
    ) -> Result<&Loaded, Error> {
        let key = name.unwrap_or("");
        let hash = hash(kernel, key);
        match self.lookup(kernel, key, hash) {
            Some(slot) => Ok(&slot.launcher),
            None => self.load_and_keep(kernel, name, hash, info),
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
    fn load_and_keep(
        &self,
        kernel: TypeId,
        name: Option<&str>,
        hash: u64,
        info: &'static KernelInfo,
    ) -> Result<&Loaded, Error> {
        let source = match &self.source {
            Source::Module(module) => From::Module(module),
            Source::Library(library) => From::Library(library),
        };
        let mut pending = Slot {
            kernel,
            name: name.unwrap_or("").into(),
            launcher: info.load(&source, name)?,
        };
        let mut segment = &self.first;
        loop {
            match segment.insert(pending, hash) {
                Ok(slot) => return Ok(&slot.launcher),
                Err(back) => pending = back,
            }
            segment = segment
                .next
                .get_or_init(|| Box::new(Segment::new(segment.slots.len() * 2)));
        }
    }
}

enum Probe<'a, L> {
    Found(&'a Slot<L>),
    Vacant,
    Full,
}

impl<L> Segment<L> {
    /// `len` is a power of two, so that a hash finds its slot by a mask.
    fn new(len: usize) -> Segment<L> {
        debug_assert!(len.is_power_of_two());
        Segment {
            slots: (0..len).map(|_| OnceLock::new()).collect(),
            next: OnceLock::new(),
        }
    }

    /// Linear probing from the hash's slot: the matching slot, or whether an empty one ends
    /// the run (nothing further can match) or the segment is full.
    #[inline]
    fn find(&self, kernel: TypeId, name: &str, hash: u64) -> Probe<'_, L> {
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
    fn insert(&self, mut pending: Slot<L>, hash: u64) -> Result<&Slot<L>, Slot<L>> {
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
    fn table() -> Segment<u64> {
        Segment::new(4)
    }

    /// A slot of the kernel type `K`, holding `value` for its launcher.
    fn slot<K: 'static>(name: &str, value: u64) -> Slot<u64> {
        Slot {
            kernel: TypeId::of::<K>(),
            name: name.into(),
            launcher: value,
        }
    }

    #[test]
    fn finds_what_it_keeps_by_type_and_name() {
        let t = table();
        let a = slot::<u32>("exp", 1);
        let h = hash(a.kernel, "exp");
        assert!(matches!(t.find(a.kernel, "exp", h), Probe::Vacant));
        t.insert(a, h).ok().unwrap();
        let Probe::Found(found) = t.find(TypeId::of::<u32>(), "exp", h) else {
            panic!("not found")
        };
        assert_eq!(found.launcher, 1);
        // Same name, another type; same type, another name: other slots.
        let b = slot::<u64>("exp", 2);
        let hb = hash(b.kernel, "exp");
        assert!(!matches!(t.find(b.kernel, "exp", hb), Probe::Found(_)));
        t.insert(b, hb).ok().unwrap();
        let c = slot::<u32>("sqrt", 3);
        let hc = hash(c.kernel, "sqrt");
        t.insert(c, hc).ok().unwrap();
        let Probe::Found(found) = t.find(TypeId::of::<u32>(), "sqrt", hc) else {
            panic!("not found")
        };
        assert_eq!(found.launcher, 3);
        // A second insert of the same key returns the first launcher.
        let again = t.insert(slot::<u32>("exp", 9), h).ok().unwrap();
        assert_eq!(again.launcher, 1);
    }

    #[test]
    fn a_full_table_gives_the_slot_back() {
        let t = table();
        for i in 0..4u32 {
            let s = slot::<u32>(&i.to_string(), u64::from(i));
            let h = hash(s.kernel, &s.name);
            t.insert(s, h).ok().unwrap();
        }
        let s = slot::<u32>("4", 4);
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
