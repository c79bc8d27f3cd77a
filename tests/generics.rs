//! Generic declarations on a real GPU: C++ kernels by mangled name, template instances and
//! dtype families. Ignored without a GPU.

mod support;

use cuda_kernel::Error;
use cuda_kernel::cudarc::driver::LaunchConfig;
use cuda_kernel::half::{bf16, f16};
use kernels::*;
use support::setup;

#[test]
#[ignore = "needs a CUDA GPU"]
fn cxx_kernels_launch_by_mangled_name() {
    let (_ctx, stream, module) = setup(CXX_FIXTURES_PTX);
    let scale = ScaleF64::load(&module).unwrap();
    let mut x = stream.clone_htod(&[1.0f64, 2.0, 3.0]).unwrap();
    unsafe {
        scale
            .launch(&stream, LaunchConfig::for_num_elems(3), &mut x, -2.5, 3)
            .unwrap()
    };
    assert_eq!(stream.clone_dtoh(&x).unwrap(), [-2.5, -5.0, -7.5]);
    // saxpy's symbol is derived by #[kernel(cpp)] (and checked against the PTX at compile time).
    assert_eq!(Saxpy::NAME, "_Z5saxpyPKfPffi");
    let saxpy = Saxpy::load(&module).unwrap();
    let xs = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut ys = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
    unsafe {
        saxpy
            .launch(
                &stream,
                LaunchConfig::for_num_elems(3),
                &xs,
                &mut ys,
                2.0,
                3,
            )
            .unwrap()
    };
    assert_eq!(stream.clone_dtoh(&ys).unwrap(), [12.0, 24.0, 36.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn template_reduction_instances_sum_by_type() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let (n, block) = (100_000u32, 256u32);
    let blocks = n.div_ceil(block) as usize;
    let config = cuda_kernel::Config::for_elements(n, block);

    let floats: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let reduce_f32 = Reduce0::<f32>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&floats).unwrap();
    let mut partial = stream.alloc_zeros::<f32>(blocks).unwrap();
    let shared = config.shared_mem(block * 4);
    unsafe {
        reduce_f32
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let sums = stream.clone_dtoh(&partial).unwrap();
    for (b, sum) in sums.iter().enumerate() {
        let chunk = &floats[b * block as usize..((b + 1) * block as usize).min(n as usize)];
        assert_eq!(*sum, chunk.iter().sum::<f32>(), "block {b}");
    }

    let ints: Vec<i32> = (0..n as i32).map(|i| i % 1000 - 500).collect();
    let reduce_i32 = Reduce0::<i32>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&ints).unwrap();
    let mut partial = stream.alloc_zeros::<i32>(blocks).unwrap();
    unsafe {
        reduce_i32
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let total: i64 = stream
        .clone_dtoh(&partial)
        .unwrap()
        .iter()
        .map(|&s| s as i64)
        .sum();
    assert_eq!(total, ints.iter().map(|&i| i as i64).sum::<i64>());

    let doubles: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let reduce_f64 = Reduce0::<f64>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&doubles).unwrap();
    let mut partial = stream.alloc_zeros::<f64>(blocks).unwrap();
    let shared = config.shared_mem(block * 8);
    unsafe {
        reduce_f64
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let total: f64 = stream.clone_dtoh(&partial).unwrap().iter().sum();
    assert_eq!(total, (n as f64 - 1.0) * n as f64 / 2.0);
    // No instance over u8: `Reduce0::<u8>::load` does not compile (the PTX has none); generic
    // code loading through `Kernel::load` is told at run time which instance it looked for,
    // and every instance there is.
    let missing = <Reduce0<u8> as cuda_kernel::Kernel>::load(&kernels.module).unwrap_err();
    assert!(
        matches!(missing, Error::InstanceNotFound { .. }),
        "{missing}"
    );
    assert!(
        missing.to_string().contains("`Reduce0::<f64>`"),
        "{missing}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tile_matmul_instances_square_a_matrix_passed_twice() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let w = 128usize;
    let a_host: Vec<f32> = (0..w * w).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let mut expected = vec![0f32; w * w];
    for r in 0..w {
        for c in 0..w {
            expected[r * w + c] = (0..w).map(|k| a_host[r * w + k] * a_host[k * w + c]).sum();
        }
    }
    let a = stream.clone_htod(&a_host).unwrap();
    for block in [16u32, 32] {
        let mut c = stream.alloc_zeros::<f32>(w * w).unwrap();
        let grid = (w as u32 / block, w as u32 / block, 1);
        let config = cuda_kernel::Config::new(grid, (block, block, 1));
        // A * A: the read-only pointers take the same buffer twice.
        unsafe {
            match block {
                16 => MatrixMulCUDA::<16>::load(&kernels.module)
                    .unwrap()
                    .launch(&stream, config, &mut c, &a, &a, w as i32, w as i32),
                _ => MatrixMulCUDA::<32>::load(&kernels.module)
                    .unwrap()
                    .launch(&stream, config, &mut c, &a, &a, w as i32, w as i32),
            }
            .unwrap()
        };
        let got = stream.clone_dtoh(&c).unwrap();
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (g - e).abs() <= 1e-3 * e.abs().max(1.0),
                "BLOCK {block}, element {i}: {g} vs {e}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dtype_family_members_with_optional_pointers() {
    use cuda_kernel::Null;
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let n = 1000usize;
    let config = cuda_kernel::Config::for_elements(n as u32, 128);

    // f32, contiguous (info NULL), from inp.
    let affine = Affine::<f32>::load(&kernels.module).unwrap();
    let x = stream
        .clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe {
        affine
            .launch(&stream, config, n, 1, &Null, &x, &mut y, 2.0, 0.5)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &v)| v == i as f32 * 2.0 + 0.5)
    );

    // f32 in place: inp NULL, out read and written.
    unsafe {
        affine
            .launch(&stream, config, n, 1, &Null, &Null, &mut y, 0.5, -0.25)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &v)| v == (i as f32 * 2.0 + 0.5) * 0.5 - 0.25)
    );

    // f16 through a transposing stride: a 10 x 100 input read column-major.
    let affine_f16 = Affine::<f16>::load(&kernels.module).unwrap();
    let input: Vec<f16> = (0..n).map(|i| f16::from_f32((i % 50) as f32)).collect();
    let x = stream.clone_htod(&input).unwrap();
    let info = stream.clone_htod(&[100usize, 10, 1, 100]).unwrap(); // dims (100, 10), strides (1, 100)
    let mut y = stream.alloc_zeros::<f16>(n).unwrap();
    let (mul, add) = (f16::from_f32(2.0), f16::from_f32(1.0));
    unsafe {
        affine_f16
            .launch(&stream, config, n, 2, &info, &x, &mut y, mul, add)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    for (i, value) in got.iter().enumerate() {
        let (r, c) = (i / 10, i % 10);
        let want = input[r + c * 100].to_f32() * 2.0 + 1.0;
        assert_eq!(value.to_f32(), want, "element {i}");
    }

    // bf16 and u32 members.
    let affine_bf16 = Affine::<bf16>::load(&kernels.module).unwrap();
    let x = stream.clone_htod(&vec![bf16::from_f32(3.0); n]).unwrap();
    let mut y = stream.alloc_zeros::<bf16>(n).unwrap();
    let (mul, add) = (bf16::from_f32(0.5), bf16::from_f32(0.25));
    unsafe {
        affine_bf16
            .launch(&stream, config, n, 1, &Null, &x, &mut y, mul, add)
            .unwrap()
    };
    assert!(
        stream
            .clone_dtoh(&y)
            .unwrap()
            .iter()
            .all(|v| v.to_f32() == 1.75)
    );
    let affine_u32 = Affine::<u32>::load(&kernels.module).unwrap();
    let x = stream
        .clone_htod(&(0..n as u32).collect::<Vec<_>>())
        .unwrap();
    let mut y = stream.alloc_zeros::<u32>(n).unwrap();
    unsafe {
        affine_u32
            .launch(&stream, config, n, 1, &Null, &x, &mut y, 3, 7)
            .unwrap()
    };
    assert!(
        stream
            .clone_dtoh(&y)
            .unwrap()
            .iter()
            .enumerate()
            .all(|(i, &v)| v == i as u32 * 3 + 7)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn template_values_of_unsigned_size_t_long_and_char_launch() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    // strided_sum<float, 128u>: thread t sums x[t], x[t + 128], ... of 1000 ones.
    let sum = StridedSum::<f32, 128>::load(&kernels.module).unwrap();
    let x = stream.clone_htod(&[1.0f32; 1000]).unwrap();
    let mut out = stream.alloc_zeros::<f32>(128).unwrap();
    let config = cuda_kernel::Config::new((1, 1, 1), (128, 1, 1));
    unsafe { sum.launch(&stream, config, &x, &mut out, 1000) }.unwrap();
    let got = stream.clone_dtoh(&out).unwrap();
    for (t, v) in got.iter().enumerate() {
        let expected = (1000 - t).div_ceil(128) as f32;
        assert_eq!(*v, expected, "thread {t}");
    }
    // An instance the PTX lacks (<f32, 64>) is refused at load.
    // (`StridedSum::<f32, 64>::load` does not compile: the PTX has no such instance.)
    assert!(<StridedSum<f32, 64> as cuda_kernel::Kernel>::load(&kernels.module).is_err());
    // fill_tagged<32ul, -1l, 'a'>: x[i] = -1 + 97 for i < 32.
    let fill = FillTagged::<32, -1, { b'a' as i8 }>::load(&kernels.module).unwrap();
    let mut y = stream.alloc_zeros::<f32>(64).unwrap();
    let config = cuda_kernel::Config::new((1, 1, 1), (64, 1, 1));
    unsafe { fill.launch(&stream, config, &mut y) }.unwrap();
    let got = stream.clone_dtoh(&y).unwrap();
    assert!(got[..32].iter().all(|&v| v == 96.0), "{got:?}");
    assert!(got[32..].iter().all(|&v| v == 0.0), "{got:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn templates_over_half_bfloat16_fp8_a_namespaced_struct_and_enum_values_launch() {
    use cuda_kernel::low_precision::F8E4M3;
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = ClassTemplateKernels::load(&ctx).unwrap();
    let n = 1000usize;
    let config = cuda_kernel::Config::for_elements(n as u32, 256);
    let values: Vec<f32> = (0..n).map(|i| (i % 37) as f32 * 0.25 - 4.0).collect();

    // scale_kernel<T>: out = in * 1.5, exact in every type for these values (a quarter step
    // below 8 has 6 significant bits; f16 and bf16 keep 11 and 8).
    let scale_f32 = ScaleKernel::<f32>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&values).unwrap();
    let mut out = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe { scale_f32.launch(&stream, config, &mut out, &input, 1.5, n, 1) }.unwrap();
    let expected: Vec<f32> = values.iter().map(|v| v * 1.5).collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), expected);

    let halves: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
    let scale_f16 = ScaleKernel::<f16>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&halves).unwrap();
    let mut out = stream.alloc_zeros::<f16>(n).unwrap();
    unsafe { scale_f16.launch(&stream, config, &mut out, &input, 1.5, n, 1) }.unwrap();
    let got: Vec<f32> = stream
        .clone_dtoh(&out)
        .unwrap()
        .iter()
        .map(|h| h.to_f32())
        .collect();
    assert_eq!(got, expected);

    let brains: Vec<bf16> = values.iter().map(|&v| bf16::from_f32(v)).collect();
    let scale_bf16 = ScaleKernel::<bf16>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&brains).unwrap();
    let mut out = stream.alloc_zeros::<bf16>(n).unwrap();
    // Every other element (stride 2) over the first half: the rest stays zero.
    unsafe { scale_bf16.launch(&stream, config, &mut out, &input, 1.5, n / 2, 2) }.unwrap();
    let got = stream.clone_dtoh(&out).unwrap();
    for (i, v) in got.iter().enumerate() {
        let want = if i % 2 == 0 {
            bf16::from_f32(brains[i].to_f32() * 1.5)
        } else {
            bf16::ZERO
        };
        assert_eq!(*v, want, "element {i}");
    }

    // cast_kernel<In, Out>: every instance over a class type.
    let to_bf16 = CastKernel::<f32, bf16>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&values).unwrap();
    let mut out = stream.alloc_zeros::<bf16>(n).unwrap();
    unsafe { to_bf16.launch(&stream, config, &mut out, &input, n as i32) }.unwrap();
    let got = stream.clone_dtoh(&out).unwrap();
    assert_eq!(got, brains);
    let from_f16 = CastKernel::<f16, f32>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&halves).unwrap();
    let mut out = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe { from_f16.launch(&stream, config, &mut out, &input, n as i32) }.unwrap();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), values);
    // FP8 E4M3 holds these values to within its 3 mantissa bits; the kernel's float is the
    // host's decoding of the same byte.
    let fp8: Vec<F8E4M3> = values.iter().map(|&v| F8E4M3::from_f32(v)).collect();
    let from_fp8 = CastKernel::<F8E4M3, f32>::load(&kernels.module).unwrap();
    let input = stream.clone_htod(&fp8).unwrap();
    let mut out = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe { from_fp8.launch(&stream, config, &mut out, &input, n as i32) }.unwrap();
    let want: Vec<f32> = fp8.iter().map(|v| v.to_f32()).collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), want);

    // combine<geo::Pair, SCALE, TAG, geo::Mode>: a namespaced struct by value, bool, char and
    // enum template values.
    let p = Pair { a: 3, b: 0.5 };
    let add = Combine::<Pair, true, { b'a' as i8 }, MODE_ADD>::load(&kernels.module).unwrap();
    let mut out = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe { add.launch(&stream, config, p, &mut out, n as u32) }.unwrap();
    let want: Vec<f32> = (0..n)
        .map(|i| 2.0 * (3.0 + 0.5 * i as f32) + 97.0)
        .collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), want);
    let mul = Combine::<Pair, false, { b'b' as i8 }, MODE_MUL>::load(&kernels.module).unwrap();
    unsafe { mul.launch(&stream, config, p, &mut out, n as u32) }.unwrap();
    let want: Vec<f32> = (0..n).map(|i| 3.0 * 0.5 * i as f32 + 98.0).collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), want);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_template_instance_the_ptx_lacks_is_refused_at_load() {
    // The compile-time check cannot see a struct argument or a value: the load refuses it.
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let kernels = ClassTemplateKernels::load(&ctx).unwrap();
    let err = <Combine<Pair, true, { b'a' as i8 }, MODE_MUL> as cuda_kernel::Kernel>::load(
        &kernels.module,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::InstanceNotFound { .. }), "{text}");
    // Every instance the PTX has, as the Rust that loads it.
    assert!(text.contains("`Combine::<Pair, true, 97, 1>`"), "{text}");
    assert!(text.contains("`Combine::<Pair, false, 98, 2>`"), "{text}");
    eprintln!("{text}");
}

/// A template taking a struct of a namespace: each instance's symbol is derived from the
/// struct's CUDA name (`ns::shapes::Interval`, the namespace `ns` a substitution there), as the
/// PTX has it.
#[test]
fn a_template_taking_a_namespaced_struct_is_named_by_its_cuda_name() {
    for (symbol, instance) in [
        (
            NsSpreadAs::<f32>::symbol(),
            "_ZN2ns9spread_asIfEEvPKNS_6shapes8IntervalEPT_",
        ),
        (
            NsSpreadAs::<f64>::symbol(),
            "_ZN2ns9spread_asIdEEvPKNS_6shapes8IntervalEPT_",
        ),
    ] {
        assert_eq!(symbol, instance);
        assert!(NAMESPACES_PTX.contains(&format!(".entry {instance}(")));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn kernels_in_namespaces_launch_by_their_derived_symbols() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = NamespaceKernels::load(&ctx).unwrap();
    // ns::scale<128>: x *= 3 over 1000 elements, 128 threads a block.
    let scale = NsScale::<128>::load(&kernels.module).unwrap();
    let mut x = stream.clone_htod(&vec![2.0f32; 1000]).unwrap();
    unsafe {
        scale.launch(
            &stream,
            cuda_kernel::Config::for_elements(1000, 128),
            &mut x,
            3.0,
            1000,
        )
    }
    .unwrap();
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 6.0));
    // ns::plain and other::plain: one name in two namespaces, two kernels.
    let config = cuda_kernel::Config::new((1, 1, 1), (32, 1, 1));
    let mut y = stream.alloc_zeros::<f32>(32).unwrap();
    unsafe { kernels.plain.launch(&stream, config, &mut y) }.unwrap();
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 1.0));
    let other = OtherPlain::load(&kernels.module).unwrap();
    unsafe { other.launch(&stream, config, &mut y) }.unwrap();
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 2.0));
    // ns::spread: a struct of a nested namespace by value and through a pointer, the symbol
    // derived from its CUDA name.
    let spread = NsSpread::load(&kernels.module).unwrap();
    let iv = Interval {
        lo: 1.0,
        hi: 3.0,
        n: 100,
    };
    let offset = stream
        .clone_htod(&[Interval {
            lo: 0.5,
            hi: 0.0,
            n: 0,
        }])
        .unwrap();
    let mut out = stream.alloc_zeros::<f32>(100).unwrap();
    let config = cuda_kernel::Config::for_elements(100, 64);
    unsafe { spread.launch(&stream, config, iv, &offset, &mut out) }.unwrap();
    let expected: Vec<f32> = (0..100)
        .map(|i| 1.0 + 2.0 * i as f32 / 100.0 + 0.5)
        .collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), expected);
    // ns::spread_as<T>: a template taking that struct, its instances loaded by the symbols the
    // struct's CUDA name makes.
    let at = stream.clone_htod(&[iv]).unwrap();
    let spread_f32 = NsSpreadAs::<f32>::load(&kernels.module).unwrap();
    unsafe { spread_f32.launch(&stream, config, &at, &mut out) }.unwrap();
    let expected: Vec<f32> = (0..100).map(|i| 1.0 + 2.0 * i as f32 / 100.0).collect();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), expected);
    let spread_f64 = NsSpreadAs::<f64>::load(&kernels.module).unwrap();
    let mut wide = stream.alloc_zeros::<f64>(100).unwrap();
    unsafe { spread_f64.launch(&stream, config, &at, &mut wide) }.unwrap();
    let wide = stream.clone_dtoh(&wide).unwrap();
    assert_eq!(wide.len(), 100);
    assert!(
        wide.iter()
            .zip(&expected)
            .all(|(w, e)| (*w as f32 - e).abs() < 1e-6)
    );
    // ns::inner::fill<__half>.
    let fill = NsFill::<f16>::load(&kernels.module).unwrap();
    let mut h = stream.alloc_zeros::<f16>(500).unwrap();
    unsafe {
        fill.launch(
            &stream,
            cuda_kernel::Config::for_elements(500, 256),
            &mut h,
            f16::from_f32(-1.5),
            500,
        )
    }
    .unwrap();
    assert!(
        stream
            .clone_dtoh(&h)
            .unwrap()
            .iter()
            .all(|&v| v == f16::from_f32(-1.5))
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_compiled_with_a_cluster_shape_checks_each_launch_against_it() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let major = ctx
        .attribute(cuda_kernel::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        .unwrap();
    if major != 9 {
        eprintln!("namespaces.cu is sm_90a code: compute capability {major}.x cannot run it");
        return;
    }
    let stream = ctx.default_stream();
    let kernels = NamespaceKernels::load(&ctx).unwrap();
    let rank = NsClusterRank::<64>::load(&kernels.module).unwrap();
    // From the driver at load: __cluster_dims__(2, 1, 1).
    assert_eq!(
        cuda_kernel::Kernel::compiled_cluster(&rank),
        Some((2, 1, 1))
    );
    assert_eq!(cuda_kernel::Kernel::compiled_cluster(&kernels.plain), None);
    let mut x = stream.alloc_zeros::<u32>(6 * 64).unwrap();
    // 6 blocks: ranks 0, 1, 0, 1, 0, 1.
    let config = cuda_kernel::Config::new((6, 1, 1), (64, 1, 1));
    unsafe { rank.launch(&stream, config, &mut x, 6 * 64) }.unwrap();
    let expected: Vec<u32> = (0..6 * 64).map(|i| (i / 64) % 2).collect();
    assert_eq!(stream.clone_dtoh(&x).unwrap(), expected);
    // Refused before the driver: a grid of 5, a cluster of 3 asked in the configuration.
    for (config, says) in [
        (
            cuda_kernel::Config::new((5, 1, 1), (64, 1, 1)),
            "the grid (5, 1, 1) is not a multiple of the cluster (2, 1, 1)",
        ),
        (
            config.cluster((3, 1, 1)),
            "the launch asks for clusters of (3, 1, 1) blocks but the kernel was compiled with clusters of (2, 1, 1)",
        ),
    ] {
        let err = unsafe { rank.launch(&stream, config, &mut x, 6 * 64) }.unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("ns::cluster_rank<64>") && text.contains(says),
            "{text}"
        );
        let Error::Launch(launch) = &err else {
            panic!("{text}")
        };
        assert!(
            matches!(launch.error(), Error::CompiledCluster { .. }),
            "{text}"
        );
    }
    // The context is unharmed: the next launch runs.
    unsafe { rank.launch(&stream, config, &mut x, 6 * 64) }.unwrap();
    stream.synchronize().unwrap();
    // Through a library, loaded once for every device: the same shape, the same check.
    let library = cuda_kernel::Library::load_ptx(NAMESPACES_PTX).unwrap();
    let rank = NsClusterRank::<64>::load_library(&library).unwrap();
    assert_eq!(
        cuda_kernel::Kernel::compiled_cluster(&rank),
        Some((2, 1, 1))
    );
    let grid_of_5 = cuda_kernel::Config::new((5, 1, 1), (64, 1, 1));
    let err = unsafe { rank.launch(&stream, grid_of_5, &mut x, 6 * 64) }.unwrap_err();
    assert!(
        err.to_string()
            .contains("not a multiple of the cluster (2, 1, 1)"),
        "{err}"
    );
    unsafe { rank.launch(&stream, config, &mut x, 6 * 64) }.unwrap();
    assert_eq!(stream.clone_dtoh(&x).unwrap(), expected);
}

/// `kernels/cuda/<file>` compiled to PTX by nvcc now, as the build step does (internal names
/// `_INTERNAL_..._<counter>` are this run's), with `flags`; from a copy in a folder of its own
/// where `moved`, so that the hashes nvcc derives from the source's path differ too. `None`
/// where nvcc or the source is not there.
fn ptx_now(file: &str, moved: bool, flags: &[&str]) -> Option<String> {
    // The checkout this binary was built in, or (on a machine it was carried to) the working
    // folder's.
    let source = [
        format!("{}/kernels/cuda/{file}", env!("CARGO_MANIFEST_DIR")),
        format!("kernels/cuda/{file}"),
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).exists())?;
    let dir = std::env::temp_dir().join(format!(
        "ptx-now-{}-{file}-{moved}-{}",
        std::process::id(),
        flags.len()
    ));
    std::fs::create_dir_all(&dir).ok()?;
    let compiled = match moved {
        true => {
            let copy = dir.join(format!("moved_{file}"));
            std::fs::copy(&source, &copy).ok()?;
            copy
        }
        false => std::path::PathBuf::from(&source),
    };
    let out = dir.join("out.ptx");
    let ran = std::process::Command::new("nvcc")
        .args(["-ptx", "-arch=compute_75"])
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(&compiled)
        .output()
        .ok()?;
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

/// The entries of a PTX text.
fn entries(ptx: &str) -> Vec<String> {
    cuda_kernel_syntax::ptx::entries(ptx)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect()
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_static_device_functions_instance_is_found_whatever_the_nvcc_run_named_it() {
    use cuda_kernel::Kernel;
    use cuda_kernel_syntax::itanium::without_internal_parts;
    let now = ptx_now("device_fns.cu", false, &[]).expect("nvcc runs");
    // nvcc names the static functions' namespace with a counter of its own run.
    assert_ne!(entries(&now), entries(DEVICE_FNS_PTX));
    assert_eq!(
        entries(&now)
            .iter()
            .map(|e| without_internal_parts(e).into_owned())
            .collect::<Vec<_>>(),
        entries(DEVICE_FNS_PTX)
            .iter()
            .map(|e| without_internal_parts(e).into_owned())
            .collect::<Vec<_>>()
    );
    // What the launchers look up, by the functions' names.
    for (masked, entry) in [
        (UnaryOpKernel::<f32>::__internal_symbol("op_neg"), 0),
        (UnaryOpKernel::<f32>::__internal_symbol("op_square"), 1),
        (UnaryOpKernel::<f64>::__internal_symbol("op_square"), 2),
        (BinaryOpKernel::<256>::__internal_symbol("op_axpb"), 3),
    ] {
        assert_eq!(
            masked.as_deref(),
            Some(&*without_internal_parts(&entries(&now)[entry]))
        );
    }
    // An external function's instance is named as the symbol is.
    assert_eq!(
        UnaryOpKernel::<f32>::symbol_named("ops::neg"),
        "_Z15unary_op_kernelIXadL_ZN3ops3negEfEEfEvPKT0_PS1_i"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn templates_over_static_device_functions_launch_by_the_functions_names() {
    // The committed PTX, and (where nvcc runs) the PTX nvcc makes of the file now, whose
    // internal names carry another counter: the same declarations load both.
    let mut images = vec![DEVICE_FNS_PTX.to_string()];
    images.extend(ptx_now("device_fns.cu", false, &[]));
    for ptx in &images {
        let (_ctx, stream, module) = setup(ptx);
        let x = stream.clone_htod(&[1.0f32, -2.0, 3.0]).unwrap();
        let mut y = stream.alloc_zeros::<f32>(3).unwrap();
        for (op, want) in [
            ("op_neg", [-1.0f32, 2.0, -3.0]),
            ("op_square", [1.0, 4.0, 9.0]),
        ] {
            let kernel = UnaryOpKernel::<f32>::load(&module, op).unwrap();
            unsafe {
                kernel
                    .launch(&stream, LaunchConfig::for_num_elems(3), &x, &mut y, 3)
                    .unwrap()
            };
            assert_eq!(stream.clone_dtoh(&y).unwrap(), want, "{op}");
        }
        let xd = stream.clone_htod(&[1.5f64, -2.0]).unwrap();
        let mut yd = stream.alloc_zeros::<f64>(2).unwrap();
        let square = UnaryOpKernel::<f64>::load(&module, "op_square").unwrap();
        unsafe {
            square
                .launch(&stream, LaunchConfig::for_num_elems(2), &xd, &mut yd, 2)
                .unwrap()
        };
        assert_eq!(stream.clone_dtoh(&yd).unwrap(), [2.25, 4.0]);
        let axpb = BinaryOpKernel::<256>::load(&module, "op_axpb").unwrap();
        unsafe {
            axpb.launch(&stream, LaunchConfig::for_num_elems(3), &x, &mut y, 2.0, 3)
                .unwrap()
        };
        assert_eq!(stream.clone_dtoh(&y).unwrap(), [3.0, -3.0, 7.0]);
        // Through the module type, kept after the first use.
        let kernels = DeviceFnKernels::load(&stream.context().clone()).unwrap();
        let neg = kernels.unary_op_kernel::<f32>("op_neg").unwrap();
        unsafe {
            neg.launch(&stream, LaunchConfig::for_num_elems(3), &x, &mut y, 3)
                .unwrap()
        };
        assert_eq!(stream.clone_dtoh(&y).unwrap(), [-1.0, 2.0, -3.0]);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_function_the_ptx_has_no_instance_for_is_refused_at_load() {
    // Provokes the driver's CUDA_ERROR_NOT_FOUND (scripts/device-run.sh runs it apart under
    // compute-sanitizer).
    let (_ctx, _stream, module) = setup(DEVICE_FNS_PTX);
    match UnaryOpKernel::<f32>::load(&module, "op_gelu") {
        Err(e) => assert!(e.to_string().contains("op_gelu"), "{e}"),
        Ok(_) => panic!("op_gelu has no instance in device_fns.ptx"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn kernels_bound_by_cpp_names_launch_from_any_nvcc_run() {
    // The committed PTX the declarations were checked against, and (where nvcc runs) the PTX
    // of the same source compiled from another folder, and with -rdc=true: other hashes, other
    // counters, `__nv_static_` prefixes. The same declarations load each.
    let mut images = vec![("committed", CPP_NAMES_PTX.to_string())];
    if let Some(ptx) = ptx_now("cpp_names.cu", true, &[]) {
        assert_ne!(ptx, CPP_NAMES_PTX, "the copy's internal names are the same");
        images.push(("moved", ptx));
    }
    if let Some(ptx) = ptx_now("cpp_names.cu", true, &["-rdc=true"]) {
        assert!(
            ptx.contains("__nv_static_"),
            "no internal prefixes under -rdc"
        );
        images.push(("rdc", ptx));
    }
    println!(
        "images: {:?}",
        images.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    );
    for (image, ptx) in &images {
        let (_ctx, stream, module) = setup(ptx);
        let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
        let mut dst = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
        let cfg = LaunchConfig::for_num_elems(3);
        let add = KBinAdd::load(&module).unwrap();
        unsafe { add.launch(&stream, cfg, &a, &mut dst, 3, 100).unwrap() };
        assert_eq!(
            stream.clone_dtoh(&dst).unwrap(),
            [111.0, 122.0, 133.0],
            "{image}"
        );
        let repeat = KBinRepeat::load(&module).unwrap();
        unsafe { repeat.launch(&stream, cfg, &a, &mut dst, 3).unwrap() };
        assert_eq!(stream.clone_dtoh(&dst).unwrap(), [1.0, 2.0, 3.0], "{image}");
        let fill = AnonFill::load(&module).unwrap();
        unsafe { fill.launch(&stream, cfg, &mut dst, 7.5, 2).unwrap() };
        assert_eq!(stream.clone_dtoh(&dst).unwrap(), [7.5, 7.5, 3.0], "{image}");
        let mut flag = stream.clone_htod(&[0i32]).unwrap();
        let raise = RaiseFlag::load(&module).unwrap();
        unsafe {
            raise
                .launch(&stream, LaunchConfig::for_num_elems(1), &mut flag, 42)
                .unwrap()
        };
        assert_eq!(stream.clone_dtoh(&flag).unwrap(), [42], "{image}");
        let mut elements = stream
            .clone_htod(
                &[ElementF32 {
                    value: 2.0,
                    tag: -1,
                }; 4],
            )
            .unwrap();
        let view = ViewF32 { scale: 1.5, n: 3 };
        let apply = ApplyView::load(&module).unwrap();
        unsafe {
            apply
                .launch(&stream, LaunchConfig::for_num_elems(4), view, &mut elements)
                .unwrap()
        };
        let got = stream.clone_dtoh(&elements).unwrap();
        let want: Vec<ElementF32> = (0..4)
            .map(|i| match i < 3 {
                true => ElementF32 { value: 3.0, tag: i },
                false => ElementF32 {
                    value: 2.0,
                    tag: -1,
                },
            })
            .collect();
        assert_eq!(got, want, "{image}");
    }
}
