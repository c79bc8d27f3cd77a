//! The launch log and the verify mode on a real GPU, and the call site in launch errors from
//! every way to launch. Ignored without a GPU.

mod support;

use std::sync::Mutex;

use cuda_kernel::{Config, Plan, diagnostics};
use kernels::*;
use support::setup;

/// The lines the launch log sent through `log`.
static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target() == "cuda_kernel::launch"
    }

    fn log(&self, record: &log::Record<'_>) {
        // Only the log test's own launches (the other test may run beside it).
        let ours = std::thread::current()
            .name()
            .is_some_and(|name| name.contains("the_launch_log"));
        if ours && self.enabled(record.metadata()) {
            LINES.lock().unwrap().push(record.args().to_string());
        }
    }

    fn flush(&self) {}
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_launch_log_of_a_three_kernel_program_and_its_verify_mode() {
    log::set_logger(&Capture).unwrap();
    log::set_max_level(log::LevelFilter::Info);
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let add = VectorAdd::load(&module).unwrap();
    let empty = Empty4::load(&module).unwrap();
    let plans = cuda_kernel::driver::load_ptx(&_ctx, PLANS_PTX).unwrap();
    let step = ChainStep::load(&plans).unwrap();
    let n = 1000u32;
    let a = stream.clone_htod(&vec![1.0f32; n as usize]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n as usize]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n as usize).unwrap();
    let mut d = stream.alloc_zeros::<f32>(n as usize).unwrap();
    let config = Config::for_elements(n, 256);

    diagnostics::set_log(true);
    diagnostics::set_verify(true);
    let first = line!() + 2;
    unsafe {
        add.launch(&stream, config, &a, &b, &mut c, n).unwrap();
        step.launch(&stream, config, &c, &mut d, n).unwrap();
    }
    empty
        .launch(
            &stream,
            Config::new((1, 1, 1), (32, 1, 1)),
            &a,
            &b,
            &mut c,
            0,
        )
        .unwrap();
    // A plan logs what it records and each replay.
    let mut plan = Plan::new(&stream).unwrap();
    let (cr, dw) = (plan.input(&c), plan.output(&mut d));
    unsafe { plan.record(&step, config, (cr, dw, n)) }.unwrap();
    plan.replay(&stream).unwrap();
    drop(plan);
    diagnostics::set_log(false);
    diagnostics::set_verify(false);
    // Verified launches ran to completion with the right results.
    assert!(stream.clone_dtoh(&d).unwrap().iter().all(|&v| v == 4.0));

    let lines = LINES.lock().unwrap().clone();
    for line in &lines {
        eprintln!("[cuda-kernel] {line}");
    }
    assert_eq!(lines.len(), 5, "{lines:#?}");
    let here = "tests/diagnostics.rs";
    assert!(
        lines[0].starts_with(&format!("launch `vector_add` at {here}:{first}:")),
        "{}",
        lines[0]
    );
    assert!(
        lines[0]
            .contains(": grid (4, 1, 1), block (256, 1, 1), 0 bytes of shared memory, stream 0x"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains("; a = 0x") && lines[0].ends_with("(1000 elements), n = 1000"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with(&format!("launch `chain_step` at {here}:{}:", first + 1)));
    assert!(lines[2].starts_with("launch `empty4`") && lines[2].ends_with("n = 0"));
    assert!(lines[3].starts_with("record `chain_step`"), "{}", lines[3]);
    assert!(
        lines[4].starts_with("replay plan of 1 launch (chain_step) at"),
        "{}",
        lines[4]
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn errors_of_every_way_to_launch_name_their_line() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let add = VectorAdd::load(&module).unwrap();
    let library = cuda_kernel::Library::load_ptx(VECTOR_ADD_PTX).unwrap();
    let add_lib = VectorAdd::load_library(&library).unwrap();
    let a = stream.alloc_zeros::<f32>(4).unwrap();
    let mut c = stream.alloc_zeros::<f32>(4).unwrap();
    let wide = Config::new((1, 1, 1), (4096, 1, 1));
    let at = |line: u32| format!("tests/diagnostics.rs:{line}:");

    let line = line!() + 1;
    let e = unsafe { add.launch(&stream, wide, &a, &a, &mut c, 4) }.unwrap_err();
    eprintln!("{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("launch of `vector_add` at {}", at(line))),
        "{e}"
    );
    let line = line!() + 1;
    let e = unsafe { add_lib.launch(&stream, wide, &a, &a, &mut c, 4) }.unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("launch of `vector_add` at {}", at(line))),
        "{e}"
    );
    assert!(e.to_string().contains("a = 0x"), "{e}");

    let plans = cuda_kernel::driver::load_ptx(&_ctx, PLANS_PTX).unwrap();
    let step = ChainStep::load(&plans).unwrap();
    let mut d = stream.alloc_zeros::<f32>(4).unwrap();
    let mut plan = Plan::new(&stream).unwrap();
    let (ar, dw) = (plan.input(&a), plan.output(&mut d));
    let line = line!() + 1;
    let e = unsafe { plan.record(&step, wide, (ar, dw, 4)) }.unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("launch of `chain_step` at {}", at(line))),
        "{e}"
    );
    assert!(
        matches!(e.root(), cuda_kernel::Error::InvalidConfig { .. }),
        "{e}"
    );
}
