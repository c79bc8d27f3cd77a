//! The backend's ops on a GPU against host references: every op and dtype it has kernels for,
//! on contiguous tensors (NULL strides) and on strided views (transposes, broadcasts).

use half::{bf16, f16};
use tensor_backend::{DType, Device, Error, Tensor, WithDType};

const FLOATS: [DType; 4] = [DType::F32, DType::F64, DType::F16, DType::BF16];
const ALL: [DType; 7] = [
    DType::U8,
    DType::U32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

fn device() -> Device {
    Device::new(0).expect("a CUDA GPU")
}

/// Relative tolerance of a dtype's results against f64 references.
fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 2e-3,
        DType::BF16 => 1.6e-2,
        DType::F32 => 1e-6,
        _ => 1e-12,
    }
}

/// A tensor of `dtype` from f64 values, and the values as that dtype holds them.
fn tensor(dev: &Device, dtype: DType, values: &[f64], shape: &[usize]) -> (Tensor, Vec<f64>) {
    fn make<T: WithDType>(dev: &Device, values: &[f64], shape: &[usize]) -> (Tensor, Vec<f64>) {
        let data: Vec<T> = values.iter().map(|&v| T::from_f64(v)).collect();
        let held = data.iter().map(|v| v.to_f64()).collect();
        (dev.tensor(&data, shape).unwrap(), held)
    }
    match dtype {
        DType::U8 => make::<u8>(dev, values, shape),
        DType::U32 => make::<u32>(dev, values, shape),
        DType::I64 => make::<i64>(dev, values, shape),
        DType::F16 => make::<f16>(dev, values, shape),
        DType::BF16 => make::<bf16>(dev, values, shape),
        DType::F32 => make::<f32>(dev, values, shape),
        DType::F64 => make::<f64>(dev, values, shape),
    }
}

/// The tensor's elements as f64, in row-major order of its shape.
fn values(dev: &Device, t: &Tensor) -> Vec<f64> {
    fn read<T: WithDType>(dev: &Device, t: &Tensor) -> Vec<f64> {
        dev.to_vec::<T>(t)
            .unwrap()
            .into_iter()
            .map(T::to_f64)
            .collect()
    }
    match t.dtype() {
        DType::U8 => read::<u8>(dev, t),
        DType::U32 => read::<u32>(dev, t),
        DType::I64 => read::<i64>(dev, t),
        DType::F16 => read::<f16>(dev, t),
        DType::BF16 => read::<bf16>(dev, t),
        DType::F32 => read::<f32>(dev, t),
        DType::F64 => read::<f64>(dev, t),
    }
}

fn assert_close(what: &str, dtype: DType, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}");
    let tol = tolerance(dtype);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "{what} {dtype:?}: element {i} is {g}, expected {w}");
    }
}

/// The values of a transposed 2-D layout: the host reference's view.
fn transposed(values: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..cols)
        .flat_map(|c| (0..rows).map(move |r| values[r * cols + c]))
        .collect()
}

fn host_unary(op: &str, x: f64) -> f64 {
    match op {
        "copy" => x,
        "neg" => -x,
        "exp" => x.exp(),
        "log" => x.ln(),
        "sqrt" => x.sqrt(),
        "abs" => x.abs(),
        "sqr" => x * x,
        "relu" => x.max(0.0),
        "recip" => 1.0 / x,
        _ => unreachable!(),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unary_ops_over_every_dtype_contiguous_and_strided() {
    let dev = device();
    let (rows, cols) = (7, 33);
    let data: Vec<f64> = (0..rows * cols)
        .map(|i| 0.25 + (i % 17) as f64 * 0.5)
        .collect();
    let float_ops = [
        "copy", "neg", "exp", "log", "sqrt", "abs", "sqr", "relu", "recip",
    ];
    for dtype in ALL {
        let ops: &[&str] = match dtype {
            DType::U8 | DType::U32 => &["copy", "sqr"],
            DType::I64 => &["copy", "neg", "sqr"],
            _ => &float_ops,
        };
        let ints: Vec<f64> = data.iter().map(|v| (v * 2.0).floor() % 11.0).collect();
        let input = if FLOATS.contains(&dtype) {
            &data
        } else {
            &ints
        };
        let (x, held) = tensor(&dev, dtype, input, &[rows, cols]);
        for op in ops {
            let want: Vec<f64> = held.iter().map(|&v| host_unary(op, v)).collect();
            let want = round_to(&dev, dtype, &want);
            let got = values(&dev, &dev.unary(op, &x).unwrap());
            assert_close(&format!("{op} contiguous"), dtype, &got, &want);
            let xt = x.t().unwrap();
            let got = values(&dev, &dev.unary(op, &xt).unwrap());
            assert_close(
                &format!("{op} transposed"),
                dtype,
                &got,
                &transposed(&want, rows, cols),
            );
        }
    }
}

/// `values` as `dtype` stores them (what a kernel writing that dtype can return).
fn round_to(dev: &Device, dtype: DType, values: &[f64]) -> Vec<f64> {
    let (_, held) = tensor(dev, dtype, values, &[values.len()]);
    held
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn powf_for_the_floats() {
    let dev = device();
    let data: Vec<f64> = (1..=40).map(|i| i as f64 * 0.125).collect();
    for dtype in FLOATS {
        let (x, held) = tensor(&dev, dtype, &data, &[4, 10]);
        let got = values(&dev, &dev.powf(&x, 1.5).unwrap());
        let want = round_to(
            &dev,
            dtype,
            &held.iter().map(|v| v.powf(1.5)).collect::<Vec<_>>(),
        );
        assert_close("powf", dtype, &got, &want);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn binary_ops_and_comparisons_with_strided_and_broadcast_operands() {
    let dev = device();
    let (rows, cols) = (9, 31);
    let a: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 7) % 23) as f64 + 1.0)
        .collect();
    let b: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 5) % 19) as f64 + 1.0)
        .collect();
    let row: Vec<f64> = (0..cols).map(|i| (i % 13) as f64 + 1.0).collect();
    type Op = (&'static str, fn(f64, f64) -> f64);
    type Cmp = (&'static str, fn(f64, f64) -> bool);
    let ops: [Op; 6] = [
        ("add", |x, y| x + y),
        ("sub", |x, y| x - y),
        ("mul", |x, y| x * y),
        ("div", |x, y| x / y),
        ("maximum", f64::max),
        ("minimum", f64::min),
    ];
    let cmps: [Cmp; 6] = [
        ("eq", |x, y| x == y),
        ("ne", |x, y| x != y),
        ("lt", |x, y| x < y),
        ("le", |x, y| x <= y),
        ("gt", |x, y| x > y),
        ("ge", |x, y| x >= y),
    ];
    for dtype in ALL {
        let (x, xa) = tensor(&dev, dtype, &a, &[rows, cols]);
        let (y, yb) = tensor(&dev, dtype, &b, &[rows, cols]);
        // y transposed twice over: a [cols, rows] tensor viewed as [rows, cols], strided.
        let (yt_store, _) = tensor(&dev, dtype, &transposed(&b, rows, cols), &[cols, rows]);
        let y_strided = yt_store.t().unwrap();
        let (r, rv) = tensor(&dev, dtype, &row, &[cols]);
        let r_broadcast = r.broadcast_as(&[rows, cols]).unwrap();
        let rb: Vec<f64> = (0..rows * cols).map(|i| rv[i % cols]).collect();
        for (op, f) in ops {
            if matches!(dtype, DType::U8 | DType::U32) && op == "sub" {
                continue; // would wrap: compared below with operands the other way round
            }
            for (rhs, rhs_values, how) in [
                (&y, &yb, "contiguous"),
                (&y_strided, &yb, "strided"),
                (&r_broadcast, &rb, "broadcast"),
            ] {
                let want: Vec<f64> = xa.iter().zip(rhs_values).map(|(&p, &q)| f(p, q)).collect();
                let want = host_int(dtype, op, &want);
                let want = round_to(&dev, dtype, &want);
                let got = values(&dev, &dev.binary(op, &x, rhs).unwrap());
                assert_close(&format!("{op} {how}"), dtype, &got, &want);
            }
        }
        for (op, f) in cmps {
            let want: Vec<f64> = xa
                .iter()
                .zip(&yb)
                .map(|(&p, &q)| f(p, q) as u8 as f64)
                .collect();
            let got = dev.cmp(op, &x, &y_strided).unwrap();
            assert_eq!(got.dtype(), DType::U8);
            assert_close(
                &format!("{op} strided"),
                DType::U8,
                &values(&dev, &got),
                &want,
            );
        }
    }
}

/// Integer division truncates.
fn host_int(dtype: DType, op: &str, values: &[f64]) -> Vec<f64> {
    match (dtype, op) {
        (DType::U8 | DType::U32 | DType::I64, "div") => values.iter().map(|v| v.trunc()).collect(),
        (DType::U8, "add" | "mul") => values.iter().map(|v| v % 256.0).collect(),
        _ => values.to_vec(),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn casts_between_every_pair_of_dtypes() {
    let dev = device();
    let data: Vec<f64> = (0..70).map(|i| (i % 12) as f64).collect();
    for from in ALL {
        let (x, held) = tensor(&dev, from, &data, &[7, 10]);
        for to in ALL {
            let got = values(&dev, &dev.cast(&x, to).unwrap());
            assert_close(&format!("cast {from:?} to"), to, &got, &held);
            let got = values(&dev, &dev.cast(&x.t().unwrap(), to).unwrap());
            assert_close(
                &format!("cast strided {from:?} to"),
                to,
                &got,
                &transposed(&held, 7, 10),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reductions_over_the_last_dimension() {
    let dev = device();
    let (rows, cols) = (6, 1000);
    let data: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f64 * 0.01)
        .collect();
    for dtype in FLOATS {
        let (x, held) = tensor(&dev, dtype, &data, &[rows, cols]);
        for (view, rows, cols, values_of) in [
            (x.clone(), rows, cols, held.clone()),
            (x.t().unwrap(), cols, rows, transposed(&held, rows, cols)),
        ] {
            for op in ["sum", "max", "min"] {
                let want: Vec<f64> = values_of
                    .chunks(cols)
                    .map(|r| match op {
                        "sum" => r.iter().sum(),
                        "max" => r.iter().cloned().fold(f64::MIN, f64::max),
                        _ => r.iter().cloned().fold(f64::MAX, f64::min),
                    })
                    .collect();
                let got = dev.reduce(op, &view).unwrap();
                assert_eq!(got.shape(), [rows]);
                let tol = if op == "sum" { cols as f64 } else { 1.0 };
                let got = values(&dev, &got);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    let bound = tolerance(dtype) * tol * w.abs().max(1.0);
                    assert!((g - w).abs() <= bound, "{op} {dtype:?} row {i}: {g} vs {w}");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn where_and_index_select_with_every_id_type() {
    let dev = device();
    let (rows, cols) = (5, 12);
    let t: Vec<f64> = (0..rows * cols).map(|i| (i % 50) as f64).collect();
    let f: Vec<f64> = (0..rows * cols).map(|i| 100.0 + (i % 20) as f64).collect();
    let mask: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 3) % 7 < 3) as u8 as f64)
        .collect();
    for ids_type in [DType::U8, DType::U32, DType::I64] {
        let (ids, _) = tensor(&dev, ids_type, &mask, &[rows, cols]);
        for dtype in ALL {
            let (tt, tv) = tensor(&dev, dtype, &t, &[rows, cols]);
            let (ff, fv) = tensor(&dev, dtype, &f, &[rows, cols]);
            let want: Vec<f64> = (0..rows * cols)
                .map(|i| if mask[i] != 0.0 { tv[i] } else { fv[i] })
                .collect();
            let got = values(&dev, &dev.where_cond(&ids, &tt, &ff).unwrap());
            assert_close(&format!("where {ids_type:?}"), dtype, &got, &want);

            let picks = [4.0, 0.0, 2.0, 2.0];
            let (pick_ids, _) = tensor(&dev, ids_type, &picks, &[4]);
            let got = dev.index_select(&pick_ids, &tt, 0).unwrap();
            assert_eq!(got.shape(), [4, cols]);
            let want: Vec<f64> = picks
                .iter()
                .flat_map(|&r| tv[r as usize * cols..][..cols].to_vec())
                .collect();
            assert_close(
                &format!("index_select {ids_type:?}"),
                dtype,
                &values(&dev, &got),
                &want,
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_member_the_ptx_lacks_is_an_error_listing_the_members_there_are() {
    let dev = device();
    let (x, _) = tensor(&dev, DType::U8, &[1.0, 2.0], &[2]);
    let err = dev.unary("exp", &x).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            Error::Kernel(cuda_kernel::Error::MemberNotFound { .. })
        ),
        "{text}"
    );
    assert!(
        text.contains("`uexp_u8`") && text.contains("ucopy_u8, usqr_u8"),
        "{text}"
    );
    let (y, _) = tensor(&dev, DType::F32, &[1.0, 2.0], &[2]);
    let text = dev.unary("tanh", &y).unwrap_err().to_string();
    assert!(
        text.contains("`utanh_f32`") && text.contains("uexp_f32"),
        "{text}"
    );
    // Integers have no reductions at all: every member is listed.
    let text = dev.reduce("sum", &x).unwrap_err().to_string();
    assert!(
        text.contains("`fast_sum_u8`") && text.contains("fast_sum_f32"),
        "{text}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launchers_are_loaded_once_and_shared_across_threads() {
    use tensor_backend::kernels::{Unary, UnaryKernels};
    let ctx = cuda_kernel::driver::context(0).unwrap();
    let kernels = UnaryKernels::load(&ctx).unwrap();
    let first: &Unary<f32> = kernels.unary::<f32>("exp").unwrap();
    let again = kernels.unary::<f32>("exp").unwrap();
    assert!(std::ptr::eq(first, again));
    let other = kernels.unary::<f32>("sqrt").unwrap();
    assert!(!std::ptr::eq(
        first as *const _ as *const u8,
        other as *const _ as *const u8
    ));
    // Eight threads, two per op, race to load four launchers: each op gets one.
    let ops = ["exp", "log", "sqrt", "abs"];
    let loaded: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let kernels = &kernels;
                s.spawn(move || {
                    let k = kernels.unary::<bf16>(ops[i % 4]).unwrap();
                    (i % 4, k as *const Unary<bf16> as usize)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (op, name) in ops.iter().enumerate() {
        let same: Vec<usize> = loaded
            .iter()
            .filter(|(o, _)| *o == op)
            .map(|(_, a)| *a)
            .collect();
        assert_eq!(same.len(), 2);
        assert_eq!(same[0], same[1], "{name}");
        assert_eq!(
            same[0],
            kernels.unary::<bf16>(name).unwrap() as *const _ as usize
        );
    }
}

/// The backend's kernels with contracts (`kernels::checked`): contiguous launches need no
/// `unsafe` and compute what the unchecked ones do; a strided launch, or one asking for more
/// elements than its memory holds, is refused before the GPU sees it.
#[test]
#[ignore = "needs a CUDA GPU"]
fn checked_launchers_run_contiguous_data_and_refuse_what_their_contracts_exclude() {
    use cuda_kernel::{Config, Null};
    use tensor_backend::kernels::checked;

    fn refused(result: Result<(), cuda_kernel::Error>, condition: &str) {
        let e = result.expect_err("refused");
        match e.root() {
            cuda_kernel::Error::ContractViolated { condition: c, .. } => assert_eq!(*c, condition),
            other => panic!("not a contract violation: {other}"),
        }
    }

    let dev = device();
    let stream = dev.stream();
    let ctx = stream.context();
    let host: Vec<f32> = (0..1000).map(|i| i as f32 / 100.0).collect();
    let x = stream.clone_htod(&host).unwrap();
    let mut y = stream.alloc_zeros::<f32>(1000).unwrap();
    let config = Config::for_elements(1000, 256);

    let unary = checked::UnaryKernels::load(ctx).unwrap();
    let exp = unary.unary::<f32>("exp").unwrap();
    exp.launch(stream, config, 1000, 1, &Null, &x, &mut y)
        .unwrap();
    let got = stream.clone_dtoh(&y).unwrap();
    assert!((got[250] - host[250].exp()).abs() <= 1e-5 * host[250].exp());
    let info = stream.clone_htod(&[1000usize, 1]).unwrap();
    refused(
        exp.launch(stream, config, 1000, 1, &Some(info), &x, &mut y),
        "info.is_null()",
    );
    refused(
        exp.launch(stream, config, 1001, 1, &Null, &x, &mut y),
        "inp.len() >= numel",
    );
    let powf = unary.powf::<f32>().unwrap();
    powf.launch(stream, config, 1000, 1, &Null, 2.0, &x, &mut y)
        .unwrap();

    let binary = checked::BinaryKernels::load(ctx).unwrap();
    let add = binary.binary::<f32>("add").unwrap();
    add.launch(stream, config, 1000, 1, &Null, &x, &x, &mut y)
        .unwrap();
    assert_eq!(stream.clone_dtoh(&y).unwrap()[7], 2.0 * host[7]);
    refused(
        add.launch(stream, config, 1000, 1, &Null, &x, &x.slice(..999), &mut y),
        "rhs.len() >= numel",
    );

    let casts = checked::CastKernels::load(ctx).unwrap();
    let to_f64 = casts.cast::<f32, f64>().unwrap();
    let mut z = stream.alloc_zeros::<f64>(1000).unwrap();
    to_f64
        .launch(stream, config, 1000, 1, &Null, &x, &mut z)
        .unwrap();
    assert_eq!(stream.clone_dtoh(&z).unwrap()[3], host[3] as f64);

    let reduce = checked::ReduceKernels::load(ctx).unwrap();
    let sum = reduce.reduce::<f32>("sum").unwrap();
    let mut sums = stream.alloc_zeros::<f32>(10).unwrap();
    let blocks = Config::new((10, 1, 1), (256, 1, 1));
    sum.launch(stream, blocks, 1000, 100, 1, &Null, &x, &mut sums)
        .unwrap();
    let want: f32 = host[..100].iter().sum();
    assert!((stream.clone_dtoh(&sums).unwrap()[0] - want).abs() < 1e-3);
    refused(
        sum.launch(
            stream,
            Config::new((10, 1, 1), (512, 1, 1)),
            1000,
            100,
            1,
            &Null,
            &x,
            &mut sums,
        ),
        "config.block.0 <= 256",
    );
    refused(
        sum.launch(
            stream,
            Config::new((11, 1, 1), (256, 1, 1)),
            1000,
            100,
            1,
            &Null,
            &x,
            &mut sums,
        ),
        "dst.len() >= config.grid.0",
    );

    let select = checked::SelectKernels::load(ctx).unwrap();
    let where_u8 = select.where_cond::<u8, f32>().unwrap();
    let ids = stream.clone_htod(&vec![1u8; 1000]).unwrap();
    where_u8
        .launch(stream, config, 1000, 1, &Null, &ids, &x, &x, &mut y)
        .unwrap();
    refused(
        where_u8.launch(
            stream,
            config,
            1000,
            1,
            &Null,
            &ids.slice(..10),
            &x,
            &x,
            &mut y,
        ),
        "ids.len() >= numel",
    );
    stream.synchronize().unwrap();
}
