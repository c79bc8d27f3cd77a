//! Launch plans, programmatic dependent launches, many threads and faults on a real GPU.
//! Ignored without one: `cargo test --release --test plans -- --ignored` (scripts/device-run.sh).

use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaContext, CudaStream};
use cuda_kernel::{Config, Error, Plan};
use kernels::*;

mod support;

fn setup() -> (Arc<CudaContext>, Arc<CudaStream>, PlanKernels) {
    let (ctx, stream) = support::gpu();
    let kernels = PlanKernels::load(&ctx).expect("plans.ptx loads");
    (ctx, stream, kernels)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn plans_replay_in_order_and_typed_updates_take_effect() {
    let (_ctx, stream, k) = setup();
    let n = 4096usize;
    let config = Config::for_elements(n as u32, 256);
    let mut a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let mut b = stream.alloc_zeros::<f32>(n).unwrap();
    {
        let mut plan = Plan::new(&stream).unwrap();
        let (a, b) = (plan.output(&mut a), plan.output(&mut b));
        let mut nodes = Vec::new();
        for step in 0..10 {
            let (x, y) = if step % 2 == 0 { (a, b) } else { (b, a) };
            nodes.push(
                unsafe { plan.record(&k.chain_step, config, (x.read(), y, n as u32)) }.unwrap(),
            );
        }
        assert_eq!(plan.len(), 10);
        plan.replay(&stream).unwrap(); // a: 1 -> 11 (ten steps, the last writes a)
        plan.replay(&stream).unwrap(); // a: 11 -> 21
        // The first launch now covers half the elements: the second half of b keeps its value.
        unsafe {
            plan.set(
                &nodes[0],
                Config::for_elements(n as u32 / 2, 128),
                (a.read(), b, n as u32 / 2),
            )
        }
        .unwrap();
        plan.replay(&stream).unwrap();
    }
    let a = stream.clone_dtoh(&a).unwrap();
    // Third replay, first half: 21 -> 31. Second half: step 0 skipped, so b keeps 20 from the
    // second replay: 20 + 9 = 29.
    assert!(a[..n / 2].iter().all(|&v| v == 31.0), "{}", a[0]);
    assert!(a[n / 2..].iter().all(|&v| v == 29.0), "{}", a[n - 1]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_replay_orders_itself_after_writes_on_other_streams() {
    let (ctx, stream, k) = setup();
    let other = ctx.new_stream().unwrap();
    let n = 1 << 20;
    let config = Config::for_elements(n as u32, 256);
    let mut x = other.alloc_zeros::<f32>(n).unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    for round in 0..20u32 {
        // Written on `other`; the plan replays on `stream` and must see it (cudarc's events).
        other.memcpy_htod(&vec![round as f32; n], &mut x).unwrap();
        let mut plan = Plan::new(&stream).unwrap();
        let (xr, yw) = (plan.input(&x), plan.output(&mut y));
        unsafe { plan.record(&k.chain_step, config, (xr, yw, n as u32)) }.unwrap();
        plan.replay(&stream).unwrap();
        drop(plan);
        let got = stream.clone_dtoh(&y).unwrap();
        assert!(
            got.iter().all(|&v| v == round as f32 + 1.0),
            "round {round}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn programmatic_dependent_chains_compute_what_plain_chains_do() {
    let (_ctx, stream, k) = setup();
    let n = 10_000usize;
    let steps = 1000;
    for programmatic in [false, true] {
        let mut config = Config::for_elements(n as u32, 128);
        if programmatic {
            config = config.programmatic_dependent();
        }
        let mut a = stream.clone_htod(&vec![0.0f32; n]).unwrap();
        let mut b = stream.alloc_zeros::<f32>(n).unwrap();
        for step in 0..steps {
            unsafe {
                if step % 2 == 0 {
                    k.chain_step.launch(&stream, config, &a, &mut b, n as u32)
                } else {
                    k.chain_step.launch(&stream, config, &b, &mut a, n as u32)
                }
            }
            .unwrap();
        }
        let got = stream.clone_dtoh(&a).unwrap();
        assert!(
            got.iter().all(|&v| v == steps as f32),
            "programmatic {programmatic}: {}",
            got[0]
        );

        // The same chain in a plan: programmatic edges between its nodes.
        let mut plan = Plan::new(&stream).unwrap();
        let (pa, pb) = (plan.output(&mut a), plan.output(&mut b));
        for step in 0..100 {
            let (x, y) = if step % 2 == 0 { (pa, pb) } else { (pb, pa) };
            unsafe { plan.record(&k.chain_step, config, (x.read(), y, n as u32)) }.unwrap();
        }
        plan.replay(&stream).unwrap();
        drop(plan);
        let got = stream.clone_dtoh(&a).unwrap();
        assert!(
            got.iter().all(|&v| v == steps as f32 + 100.0),
            "plan, programmatic {programmatic}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn plans_record_clusters_and_priorities_and_update_them() {
    let (_ctx, stream, k) = setup();
    let n = 1024usize;
    let x = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    let mut plan = Plan::new(&stream).unwrap();
    let (xr, yw) = (plan.input(&x), plan.output(&mut y));
    let clustered = Config::new((8, 1, 1), (128, 1, 1))
        .cluster((2, 1, 1))
        .priority(-1);
    let node = unsafe { plan.record(&k.chain_step, clustered, (xr, yw, n as u32)) }.unwrap();
    plan.replay(&stream).unwrap();
    // Another cluster shape: the plan re-instantiates its graph.
    let reclustered = Config::new((8, 1, 1), (128, 1, 1)).cluster((4, 1, 1));
    unsafe { plan.set(&node, reclustered, (xr, yw, n as u32)) }.unwrap();
    plan.replay(&stream).unwrap();
    // A programmatic dependency is an edge: it cannot be added afterwards.
    let refused = unsafe {
        plan.set(
            &node,
            reclustered.programmatic_dependent(),
            (xr, yw, n as u32),
        )
    };
    let refused = refused.unwrap_err();
    assert!(matches!(refused.root(), Error::Unsupported(_)), "{refused}");
    assert!(
        refused
            .to_string()
            .starts_with("launch of `chain_step` at tests/plans.rs:"),
        "{refused}"
    );
    drop(plan);
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 3.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn eight_threads_launch_thousands_of_kernels_each_on_its_own_stream() {
    let (ctx, _stream, k) = setup();
    let kernels = Arc::new(k);
    let n = 4096usize;
    let launches = 2000;
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (ctx, kernels) = (Arc::clone(&ctx), Arc::clone(&kernels));
            std::thread::spawn(move || {
                let stream = ctx.new_stream().unwrap();
                let x = stream
                    .clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
                    .unwrap();
                let mut y = stream.alloc_zeros::<f32>(n).unwrap();
                let config = Config::for_elements(n as u32, 256);
                for launch in 0..launches {
                    let tag = (t * launches + launch) as f32;
                    unsafe {
                        kernels
                            .tagged_axpy
                            .launch(&stream, config, &x, &mut y, 2.0, tag, n as u32)
                    }
                    .unwrap();
                    if launch % 250 == 249 {
                        let got = stream.clone_dtoh(&y).unwrap();
                        assert!(
                            got.iter()
                                .enumerate()
                                .all(|(i, &v)| v == i as f32 * 2.0 + tag),
                            "thread {t}"
                        );
                    }
                }
                launches
            })
        })
        .collect();
    let total: usize = threads.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 8 * 2000);
}

/// Runs `fault` in a child process (the context is lost after a fault) and returns its output.
fn in_child(fault: &str) -> String {
    support::in_child("fault_child", &[("CUDA_KERNEL_FAULT", fault)])
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn faults_surface_at_the_next_synchronization_and_poison_the_context() {
    let trap = in_child("trap");
    assert!(trap.contains("launch: ok"), "{trap}");
    assert!(
        trap.contains("synchronize: CUDA_ERROR_LAUNCH_FAILED"),
        "{trap}"
    );
    assert!(
        trap.contains("next launch: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED"),
        "{trap}"
    );
    let far = in_child("far");
    assert!(
        far.contains("synchronize: CUDA_ERROR_ILLEGAL_ADDRESS"),
        "{far}"
    );
    assert!(
        far.contains("next launch: cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS"),
        "{far}"
    );
}

/// The child of the fault test: does nothing unless `CUDA_KERNEL_FAULT` names a fault.
#[test]
#[ignore = "needs a CUDA GPU"]
fn fault_child() {
    let Ok(fault) = std::env::var("CUDA_KERNEL_FAULT") else {
        return;
    };
    let (_ctx, stream, k) = setup();
    let mut y = stream.alloc_zeros::<f32>(16).unwrap();
    let one = Config::for_elements(1, 1);
    let launched = match fault.as_str() {
        "trap" => unsafe { k.trap_now.launch(&stream, one) },
        _ => unsafe { k.write_far.launch(&stream, one, &mut y) },
    };
    println!(
        "launch: {}",
        if launched.is_ok() {
            "ok".to_string()
        } else {
            format!("{launched:?}")
        }
    );
    let synced = stream.synchronize();
    match synced {
        Ok(()) => println!("synchronize: ok"),
        Err(e) => println!("synchronize: {:?}", e.0),
    }
    let next = k.empty0.launch(&stream, one);
    println!(
        "next launch: {}",
        next.map(|_| "ok".to_string())
            .unwrap_or_else(|e| e.root().to_string())
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn plans_record_cooperative_launches() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, LAUNCH_FEATURES_PTX).unwrap();
    let sync = GridSyncNeighbour::load(&module).unwrap();
    let blocks = 132u32;
    let mut slots = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
    let mut seen = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
    let mut plan = Plan::new(&stream).unwrap();
    let (slots_w, seen_w) = (plan.output(&mut slots), plan.output(&mut seen));
    let cooperative = Config::new((blocks, 1, 1), (64, 1, 1)).cooperative();
    unsafe { plan.record(&sync, cooperative, (slots_w, seen_w)) }.unwrap();
    plan.replay(&stream).unwrap();
    plan.replay(&stream).unwrap();
    drop(plan);
    let seen = stream.clone_dtoh(&seen).unwrap();
    for (b, &s) in seen.iter().enumerate() {
        assert_eq!(s, ((b as u32 + 1) % blocks) + 1, "block {b}");
    }
}
