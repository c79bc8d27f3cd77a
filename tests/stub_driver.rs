//! The whole launch path without a GPU: this test builds `examples/c/stub_driver.c` (a
//! `libcuda.so` whose launch only keeps what it was given) with the C compiler and runs itself
//! again with the stub first on `LD_LIBRARY_PATH`. There a typed launch must hand the driver the
//! buffer `pack` builds and the configuration it was given, ask nothing of the thread on a
//! stream of its own, enter the current context once on the null stream, and refuse a bad
//! configuration before the driver sees it; and completions must reuse the events of finished
//! ones rather than create one each. Linux only (`LD_LIBRARY_PATH`, `dlopen`); reported
//! ignored where the build script found no C compiler (`cfg(has_cc)`).
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel::Config;
use cuda_kernel::cudarc::driver::DevicePtr;
use kernels::{Empty4, VECTOR_ADD_PTX};

const CHILD: &str = "CUDA_KERNEL_STUB_DRIVER_CHILD";

#[test]
#[cfg_attr(not(has_cc), ignore = "needs a C compiler (cc, gcc or clang)")]
fn a_typed_launch_hands_the_driver_its_buffer_and_asks_nothing_of_the_thread() {
    run_against_the_stub(
        "a_typed_launch_hands_the_driver_its_buffer_and_asks_nothing_of_the_thread",
        &[None],
        against_the_stub,
    );
}

/// In the child, runs `body`; in the test harness, runs the test `name` again as the child
/// against the stub, once for each driver `versions` gives (`None`: the stub's default).
fn run_against_the_stub(name: &str, versions: &[Option<&str>], body: fn()) {
    if std::env::var_os(CHILD).is_some() {
        return body();
    }
    for &version in versions {
        in_child_against_the_stub(name, version);
    }
}

/// Runs the test `name` of this binary again with the stub first on `LD_LIBRARY_PATH` (and
/// reporting the driver `version`, where given); it must pass.
fn in_child_against_the_stub(name: &str, version: Option<&str>) {
    let dir = build_stub();
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args([name, "--exact", "--nocapture"])
        .env(CHILD, "1")
        .env("LD_LIBRARY_PATH", &dir);
    if let Some(version) = version {
        child.env("STUB_DRIVER_VERSION", version);
    }
    let output = child.output().unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("1 passed"),
        "the run against the stub (driver {version:?}) failed:\n{text}"
    );
}

/// A kernel with parameters aligned above 16 bytes (`aligned_echo`, which the stub places as an
/// H100 does): the launch packs them at the driver's offsets, not the C rule's; and a driver
/// that cannot report offsets (12.0, set through the stub) refuses the load naming the first.
#[test]
#[cfg_attr(not(has_cc), ignore = "needs a C compiler (cc, gcc or clang)")]
fn parameters_the_gpu_places_are_packed_where_the_driver_says() {
    run_against_the_stub(
        "parameters_the_gpu_places_are_packed_where_the_driver_says",
        &[Some("13000"), Some("12000")],
        placed_by_the_stub,
    );
}

fn placed_by_the_stub() {
    use cuda_kernel::Kernel;
    use kernels::AlignedEcho;
    use kernels::params::Block64;
    let ctx = cuda_kernel::driver::context(0).unwrap();
    let module = cuda_kernel::driver::load_ptx(&ctx, kernels::TMA_PTX).unwrap();
    if std::env::var("STUB_DRIVER_VERSION").as_deref() == Ok("12000") {
        let refused = AlignedEcho::load(&module).unwrap_err().to_string();
        assert!(
            refused.starts_with(
                "parameter `b` of kernel `aligned_echo` is aligned to 64 bytes, so its offset"
            ),
            "{refused}"
        );
        return;
    }
    let echo = AlignedEcho::load(&module).unwrap();
    let placed = echo.__loaded().layout().copied().unwrap();
    assert_eq!(
        placed.to_string(),
        "(a@0:1, b@48:256, d@304:32, t@336:2, out@344:8) = 352 bytes"
    );
    // SAFETY: nothing is in flight.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    let block = Block64 {
        words: core::array::from_fn(|i| 0x0101_0101_0101_0101 * (i as u64 + 1)),
    };
    let d = cuda_kernel::Double4_32a::new(1.0, 2.0, 3.0, 4.0);
    let config = Config::new((1, 1, 1), (1, 1, 1));
    unsafe { echo.launch(&stream, config, 0x7f, block, d, 0xbeef, &mut out) }.unwrap();
    let stub = Stub::open();
    let params = stub.last_params();
    assert_eq!(
        params.len(),
        352,
        "the buffer is as long as the driver's layout"
    );
    assert_eq!(params[0], 0x7f);
    assert_eq!(params[48..304], *bytemuck::bytes_of(&block.words));
    assert_eq!(params[304..336], *bytemuck::bytes_of(&d));
    assert_eq!(params[336..338], 0xbeefu16.to_le_bytes());
    assert_eq!(
        params[344..352],
        out.device_ptr(&stream).0.to_le_bytes(),
        "out sits at the driver's 344, not the C rule's 360"
    );
}

/// Completions woken by the notifier thread: the event of a finished completion serves the next
/// completion of its context, so 100 completions awaited one after another create one event,
/// and two batches of 64 in flight create no more than the larger batch needs (129 without
/// the pool). The stub's events are done as soon as they are recorded.
#[test]
#[cfg_attr(not(has_cc), ignore = "needs a C compiler (cc, gcc or clang)")]
fn finished_completions_lend_their_events_to_the_next() {
    run_against_the_stub(
        "finished_completions_lend_their_events_to_the_next",
        &[None],
        completions_against_the_stub,
    );
}

fn completions_against_the_stub() {
    use cuda_kernel::Completion;
    let ctx = cuda_kernel::driver::context(0).unwrap();
    // SAFETY: nothing is in flight.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let stub = Stub::open();
    let created = || stub.read::<u64>(b"stub_events_created");
    let before = created();
    for _ in 0..100 {
        Completion::of_stream(&stream).unwrap().wait().unwrap();
    }
    assert_eq!(
        created() - before,
        1,
        "100 completions one after another created more than one event"
    );
    for _ in 0..2 {
        let pending: Vec<Completion> = (0..64)
            .map(|_| Completion::of_stream(&stream).unwrap())
            .collect();
        for completion in pending {
            completion.wait().unwrap();
        }
    }
    let total = created() - before;
    assert!(
        total <= 65,
        "two batches of 64 completions created {total} events"
    );
}

/// Builds the stub as `libcuda.so.1` and `libcuda.so` in a folder of the target dir, with the C
/// compiler the build script found: once per process, since the tests of this binary run on
/// threads of one process and a child of one must never find the library half written by
/// another; and written under a name of this process, then renamed into place, since another
/// run of this binary may be loading it.
fn build_stub() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_stub_once).clone()
}

fn build_stub_once() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c/stub_driver.c");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stub-driver");
    std::fs::create_dir_all(&dir).unwrap();
    let pid = std::process::id();
    let built = dir.join(format!("libcuda.so.1.{pid}"));
    // Set with cfg(has_cc); run with --ignored without one, `cc` fails to start, saying so.
    let cc = option_env!("CUDA_KERNEL_TEST_CC").unwrap_or("cc");
    let status = Command::new(cc)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&built)
        .arg(&source)
        .arg("-ldl")
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(status.success(), "{cc} did not build {}", source.display());
    std::fs::rename(&built, dir.join("libcuda.so.1")).unwrap();
    let link = dir.join(format!("libcuda.so.{pid}"));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("libcuda.so.1", &link).unwrap();
    std::fs::rename(&link, dir.join("libcuda.so")).unwrap();
    dir
}

/// What the stub kept, read from the loaded library.
struct Stub(libloading::Library);

impl Stub {
    fn open() -> Stub {
        // SAFETY: the stub, already loaded by the driver calls before; no initialisers run.
        Stub(unsafe { libloading::Library::new("libcuda.so") }.unwrap())
    }

    fn read<T: Copy>(&self, name: &[u8]) -> T {
        // SAFETY: a global of the stub of type T, written only by the launches of this thread.
        unsafe { **self.0.get::<*const T>(name).unwrap() }
    }

    fn launches(&self) -> u64 {
        self.read(b"stub_launches")
    }

    fn context_calls(&self) -> u64 {
        self.read(b"stub_context_calls")
    }

    fn last_params(&self) -> Vec<u8> {
        let len: usize = self.read(b"stub_last_params_len");
        let bytes: [u8; 4096] = self.read(b"stub_last_params");
        bytes[..len].to_vec()
    }
}

fn against_the_stub() {
    let ctx = cuda_kernel::driver::context(0).unwrap();
    assert_eq!(ctx.name().unwrap(), "stub", "the stub is the driver loaded");
    // SAFETY: nothing is in flight.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX).unwrap();
    let empty = Empty4::load(&module).unwrap();
    let a = stream.alloc_zeros::<f32>(4).unwrap();
    let b = stream.alloc_zeros::<f32>(4).unwrap();
    let mut c = stream.alloc_zeros::<f32>(4).unwrap();
    let [pa, pb, pc] = [&a, &b, &c].map(|s| s.device_ptr(&stream).0);
    let stub = Stub::open();

    // A stream of its own: the buffer `pack` builds, the configuration given, no context call.
    let config = Config::new((3, 2, 1), (64, 2, 1)).shared_mem(1024);
    let (launches, calls) = (stub.launches(), stub.context_calls());
    empty.launch(&stream, config, &a, &b, &mut c, 7).unwrap();
    assert_eq!(stub.launches(), launches + 1);
    assert_eq!(stub.last_params(), Empty4::pack(pa, pb, pc, 7).bytes());
    let dims: [u32; 7] = stub.read(b"stub_last_dims");
    assert_eq!(dims, [3, 2, 1, 64, 2, 1, 1024]);
    assert_eq!(
        stub.context_calls(),
        calls,
        "a launch on a stream of its own asked the thread"
    );

    // The null stream: the current context asked once, nothing pushed (it is the stream's).
    let null = ctx.default_stream();
    let calls = stub.context_calls();
    empty.launch(&null, config, &a, &b, &mut c, 8).unwrap();
    assert_eq!(stub.context_calls(), calls + 1);
    assert_eq!(stub.last_params(), Empty4::pack(pa, pb, pc, 8).bytes());

    // A configuration the device refuses never reaches the driver.
    let launches = stub.launches();
    let refused = empty.launch(
        &stream,
        Config::new((1, 1, 1), (2048, 1, 1)),
        &a,
        &b,
        &mut c,
        9,
    );
    let text = refused.unwrap_err().to_string();
    assert!(text.contains("block dimension x is 2048"), "{text}");
    assert_eq!(stub.launches(), launches);
}
