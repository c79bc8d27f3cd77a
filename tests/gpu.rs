//! Typed launches on a real GPU: arguments of every kind arrive as declared. Ignored without
//! one: run with `cargo test --release --test gpu -- --ignored` on a CUDA machine
//! (scripts/device-bundle.sh).

mod support;

use cuda_kernel::cudarc::driver::LaunchConfig;
use cuda_kernel::half::{bf16, f16};
use cuda_kernel::{Double2, Float2, Float4, Int2, Int4, Uint4};
use kernels::*;
use support::{one_thread, setup};

#[test]
#[ignore = "needs a CUDA GPU"]
fn vector_add_adds_every_element() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let n = 1_000_003usize; // not a multiple of the block size
    let a_host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b_host: Vec<f32> = (0..n).map(|i| 0.25 - (i % 97) as f32).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe {
        kernel
            .launch(
                &stream,
                LaunchConfig::for_num_elems(n as u32),
                &a,
                &b,
                &mut c,
                n as u32,
            )
            .unwrap()
    };
    let c_host = stream.clone_dtoh(&c).unwrap();
    for i in 0..n {
        assert_eq!(c_host[i], a_host[i] + b_host[i], "element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn vector_add_f4_adds_float4_elements_and_views_work() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAddF4::load(&module).unwrap();
    let n4 = 4099usize;
    let a_host: Vec<Float4> = (0..n4)
        .map(|i| Float4::new(i as f32, 1.0, -2.0, 0.5 * i as f32))
        .collect();
    let b_host: Vec<Float4> = (0..n4)
        .map(|i| Float4::new(1.0, i as f32, 2.0, 0.5))
        .collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let mut c = stream.alloc_zeros::<Float4>(n4 + 8).unwrap();
    // Write into the middle of c through a view, reading a and b through views too.
    let mut c_mid = c.slice_mut(4..4 + n4);
    unsafe {
        kernel
            .launch(
                &stream,
                LaunchConfig::for_num_elems(n4 as u32),
                &a.slice(..),
                &b.slice(..),
                &mut c_mid,
                n4 as u32,
            )
            .unwrap()
    };
    let c_host = stream.clone_dtoh(&c).unwrap();
    assert_eq!(c_host[..4], [Float4::default(); 4]);
    assert_eq!(c_host[4 + n4..], [Float4::default(); 4]);
    for i in 0..n4 {
        let (x, y) = (a_host[i], b_host[i]);
        let want = Float4::new(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        assert_eq!(c_host[4 + i], want, "element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn echo_guide_receives_every_parameter_bit_exactly() {
    let (_ctx, stream, module) = setup(ECHO_PTX);
    let kernel = EchoGuide::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(96).unwrap();
    let i = -0x1234_5678;
    let f4 = Float4::new(
        1.5,
        -0.0,
        f32::from_bits(0x7f80_0001 & 0x7fbf_ffff),
        3.25e-38,
    );
    let c = -7i8;
    let f = f32::from_bits(0x3f80_1234);
    let p = 0x0123_4567_89ab_cdefu64;
    let f2 = Float2::new(f32::MAX, f32::MIN_POSITIVE);
    let d = f64::from_bits(0x4009_21fb_5444_2d18);
    let h = f16::from_bits(0x3c01);
    let d2 = Double2::new(-1.0e300, f64::from_bits(0x0000_0000_0000_0001));
    unsafe {
        kernel
            .launch(
                &stream,
                one_thread(),
                i,
                f4,
                c,
                f,
                p,
                f2,
                d,
                h,
                d2,
                &mut out,
            )
            .unwrap()
    };
    let bytes = stream.clone_dtoh(&out).unwrap();
    let at = |o: usize, n: usize| &bytes[o..o + n];
    assert_eq!(at(0, 4), i.to_le_bytes());
    assert_eq!(at(16, 16), bytemuck::bytes_of(&f4));
    assert_eq!(at(32, 1), c.to_le_bytes());
    assert_eq!(at(36, 4), f.to_bits().to_le_bytes());
    assert_eq!(at(40, 8), p.to_le_bytes());
    assert_eq!(at(48, 8), bytemuck::bytes_of(&f2));
    assert_eq!(at(56, 8), d.to_bits().to_le_bytes());
    assert_eq!(at(64, 2), h.to_bits().to_le_bytes());
    assert_eq!(at(80, 16), bytemuck::bytes_of(&d2));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn echo_scalars_receives_every_scalar_after_a_byte() {
    let (_ctx, stream, module) = setup(ECHO_PTX);
    let kernel = EchoScalars::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(96).unwrap();
    let pads: [i8; 15] = [3, 5, 9, 17, 33, 65, -127, 2, 4, 8, 16, 32, 64, -128, 7];
    let v_bf16 = bf16::from_bits(0xc0a1);
    let v_f16 = f16::from_bits(0xfbff);
    let int2 = Int2::new(i32::MIN, 0x0102_0304);
    let int4 = Int4::new(-1, 2, -3, 0x7fff_fffe);
    let uint4 = Uint4::new(0xdead_beef, 1, 0x8000_0000, 42);
    unsafe {
        kernel
            .launch(
                &stream,
                one_thread(),
                true,
                pads[0],
                -100,
                pads[1],
                0xfe,
                pads[2],
                -0x1234,
                pads[3],
                0xfedc,
                pads[4],
                -0x1234_5678,
                pads[5],
                0xfedc_ba98,
                pads[6],
                -0x0123_4567_89ab_cdef,
                pads[7],
                0xfedc_ba98_7654_3210,
                pads[8],
                -1.0e-30,
                pads[9],
                6.02214076e23,
                pads[10],
                v_f16,
                pads[11],
                v_bf16,
                pads[12],
                int2,
                pads[13],
                int4,
                pads[14],
                uint4,
                &mut out,
            )
            .unwrap()
    };
    let bytes = stream.clone_dtoh(&out).unwrap();
    let at = |o: usize, n: usize| &bytes[o..o + n];
    assert_eq!(at(0, 1), [1]);
    assert_eq!(at(1, 1), (-100i8).to_le_bytes());
    assert_eq!(at(2, 1), [0xfe]);
    assert_eq!(at(3, 1), pads.iter().fold(0i8, |x, p| x ^ p).to_le_bytes());
    assert_eq!(at(4, 2), (-0x1234i16).to_le_bytes());
    assert_eq!(at(6, 2), 0xfedcu16.to_le_bytes());
    assert_eq!(at(8, 4), (-0x1234_5678i32).to_le_bytes());
    assert_eq!(at(12, 4), 0xfedc_ba98u32.to_le_bytes());
    assert_eq!(at(16, 8), (-0x0123_4567_89ab_cdefi64).to_le_bytes());
    assert_eq!(at(24, 8), 0xfedc_ba98_7654_3210u64.to_le_bytes());
    assert_eq!(at(32, 4), (-1.0e-30f32).to_le_bytes());
    assert_eq!(at(40, 8), 6.02214076e23f64.to_le_bytes());
    assert_eq!(at(48, 2), v_f16.to_bits().to_le_bytes());
    assert_eq!(at(50, 2), v_bf16.to_bits().to_le_bytes());
    assert_eq!(at(56, 8), bytemuck::bytes_of(&int2));
    assert_eq!(at(64, 16), bytemuck::bytes_of(&int4));
    assert_eq!(at(80, 16), bytemuck::bytes_of(&uint4));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn safe_kernel_launches_without_unsafe() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let empty = Empty4::load(&module).unwrap();
    let a = stream.alloc_zeros::<f32>(1).unwrap();
    let mut c = stream.alloc_zeros::<f32>(1).unwrap();
    empty
        .launch(&stream, one_thread(), &a, &a, &mut c, 1)
        .unwrap();
    stream.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_on_a_second_stream_sees_earlier_writes() {
    let (ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let other = ctx.new_stream().unwrap();
    let n = 1 << 22;
    let a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    // Launched on `other` right after the uploads were queued on `stream`: the launcher's
    // device-pointer guards make `other` wait for them.
    unsafe {
        kernel
            .launch(
                &other,
                LaunchConfig::for_num_elems(n as u32),
                &a,
                &b,
                &mut c,
                n as u32,
            )
            .unwrap()
    };
    let c_host = other.clone_dtoh(&c).unwrap();
    assert!(c_host.iter().all(|&x| x == 3.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn derived_structs_arrive_field_by_field() {
    use kernels::params::{BIG_PARAMS_LEN, BigParams, Particle, Tagged};
    let (_ctx, stream, module) = setup(STRUCTS_PTX);
    let echo = EchoParticle::load(&module).unwrap();
    let p = Particle {
        flag: true,
        inner: Tagged {
            tag: 0xa5,
            value: -1234.5678,
        },
        dir: cuda_kernel::Float3::new(1.0, -2.0, 3.25),
        ids: [-7, 300, -30000],
        mass: f16::from_f32(0.125),
    };
    let mut out = stream.alloc_zeros::<u8>(20).unwrap();
    unsafe {
        echo.launch(&stream, one_thread(), -3, p, 0x5a, &mut out)
            .unwrap()
    };
    let b = stream.clone_dtoh(&out).unwrap();
    assert_eq!(b[0..8], (-1234.5678f64).to_le_bytes());
    assert_eq!(b[8..12], 3.25f32.to_le_bytes());
    assert_eq!(b[12..14], (-30000i16).to_le_bytes());
    assert_eq!(b[14], 1);
    assert_eq!(b[15], 0xa5);
    assert_eq!(b[16..18], f16::from_f32(0.125).to_bits().to_le_bytes());
    assert_eq!(b[18], (-3i8) as u8);
    assert_eq!(b[19], 0x5a);

    // 8,000 bytes of parameters.
    let sum_big = SumBig::load(&module).unwrap();
    let mut values = [0.0f32; BIG_PARAMS_LEN];
    for (i, v) in values.iter_mut().enumerate() {
        *v = (i % 7) as f32;
    }
    let mut out = stream.alloc_zeros::<f32>(2).unwrap();
    unsafe {
        sum_big
            .launch(&stream, one_thread(), BigParams { values }, &mut out)
            .unwrap()
    };
    let want: f32 = values.iter().sum();
    assert_eq!(
        stream.clone_dtoh(&out).unwrap(),
        [want, values[BIG_PARAMS_LEN - 1]]
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn low_precision_parameters_and_buffers_arrive_bit_exactly() {
    use cuda_kernel::low_precision::*;
    let (_ctx, stream, module) = setup(LOW_PRECISION_PTX);
    let echo = EchoLowPrecision::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(20).unwrap();
    let (a, b, c) = (
        F8E4M3::from_f32(-1.75),
        F8E5M2::from_f32(3.0),
        E8M0::from_bits(0x7f),
    );
    let d = Fp8x2E4M3::from([F8E4M3::from_f32(0.5), F8E4M3::from_f32(-448.0)]);
    let e = Fp8x4E5M2::from_bits(0x8c7b_3a19);
    let (f, g, h) = (
        Fp6E2M3::from_bits(0x2d),
        Fp6E3M2::from_bits(0x13),
        Fp6x4E2M3::from_bits(0x0102_3f3e),
    );
    let (i, j, k) = (
        F4E2M1::from_bits(0x0b),
        F4E2M1x2::from_bits(0xa5),
        Fp4x4E2M1::from_bits(0xf1e2),
    );
    unsafe {
        echo.launch(
            &stream,
            one_thread(),
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
            i,
            j,
            k,
            &mut out,
        )
        .unwrap()
    };
    let got = stream.clone_dtoh(&out).unwrap();
    let mut want = vec![0u8; 20];
    want[..7].copy_from_slice(&[a.to_bits(), b.to_bits(), 0x7f, 0x2d, 0x13, 0x0b, 0xa5]);
    want[8..10].copy_from_slice(&d.bits.to_le_bytes());
    want[10..12].copy_from_slice(&0xf1e2u16.to_le_bytes());
    want[12..16].copy_from_slice(&0x8c7b_3a19u32.to_le_bytes());
    want[16..20].copy_from_slice(&0x0102_3f3eu32.to_le_bytes());
    assert_eq!(got, want);

    // An FP8 buffer from cudarc (CudaSlice<F8E4M3>) through a kernel and back.
    let scale = ScaleFp8::load(&module).unwrap();
    let values: Vec<F8E4M3> = [-2.0f32, -0.5, 0.0, 0.25, 1.0, 3.5, 12.0, 96.0]
        .iter()
        .map(|&v| F8E4M3::from_f32(v))
        .collect();
    let x = stream.clone_htod(&values).unwrap();
    let mut y = stream.alloc_zeros::<F8E4M3>(values.len()).unwrap();
    let config = cuda_kernel::Config::for_elements(values.len() as u32, 32);
    unsafe {
        scale
            .launch(&stream, config, &x, &mut y, 2.0, values.len() as u32)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    for (v, g) in values.iter().zip(&got) {
        assert_eq!(
            g.to_bits(),
            F8E4M3::from_f32(v.to_f32() * 2.0).to_bits(),
            "{}",
            v.to_f32()
        );
    }
}
