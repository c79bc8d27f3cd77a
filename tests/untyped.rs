//! Untyped memory (`void*` parameters, `*const c_void` in a declaration), as ggml's quantized
//! kernels take their blocks: the launcher takes device memory of any element type there,
//! packs its address, and a plan takes it through `erase`. The GPU cases are ignored without one.

mod support;

use cuda_kernel::half::f16;
use cuda_kernel::{Config, Null, Plan};
use kernels::*;
use support::setup;

/// ggml's q8_0 blocks of `values` (32 a block): a `__half` scale, then 32 `int8_t`, 34 bytes.
fn q8_0(values: &[f32]) -> (Vec<u8>, Vec<f32>) {
    let mut bytes = Vec::new();
    let mut dequantized = Vec::new();
    for block in values.chunks(32) {
        let amax = block.iter().fold(0f32, |m, v| m.max(v.abs()));
        let d = f16::from_f32(amax / 127.0);
        let scale = if d.to_f32() == 0.0 {
            0.0
        } else {
            1.0 / d.to_f32()
        };
        bytes.extend_from_slice(&d.to_bits().to_le_bytes());
        for v in block {
            let q = (v * scale).round().clamp(-127.0, 127.0) as i8;
            bytes.push(q as u8);
            dequantized.push(d.to_f32() * f32::from(q));
        }
    }
    (bytes, dequantized)
}

#[test]
fn a_void_pointer_is_an_address_and_a_cpp_symbol_spells_it() {
    assert_eq!(DequantizeQ80::NAME, "_Z15dequantize_q8_0PKvPfi");
    assert_eq!(
        CopyBytes::LAYOUT.to_string(),
        "(src@0:8, dst@8:8, n@16:4) = 20 bytes"
    );
    let packed = CopyBytes::pack(0x1000, 0x2000, 7);
    let mut expected = Vec::new();
    expected.extend_from_slice(&0x1000u64.to_le_bytes());
    expected.extend_from_slice(&0x2000u64.to_le_bytes());
    expected.extend_from_slice(&7u32.to_le_bytes());
    assert_eq!(packed.bytes(), expected);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn void_pointers_take_memory_of_any_element_type() {
    let (_ctx, stream, module) = setup(UNTYPED_PTX);
    let kernels = UntypedKernels::from_module(&module).unwrap();

    // Quantized blocks as bytes, dequantized on the GPU as on the CPU.
    let n = 32 * 40;
    let values: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.25)
        .collect();
    let (blocks, expected) = q8_0(&values);
    let blocks = stream.clone_htod(&blocks).unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    let config = Config::for_elements(n as u32, 128);
    // SAFETY: n elements of blocks of 32 at 34 bytes each, n floats out.
    unsafe {
        kernels
            .dequantize_q8_0
            .launch(&stream, config, &blocks, &mut y, n as i32)
    }
    .unwrap();
    assert_eq!(stream.clone_dtoh(&y).unwrap(), expected);

    // Floats copied into memory of u32s, bit for bit; a NULL source writes zeros.
    let src = stream.clone_htod(&values).unwrap();
    let mut dst = stream.alloc_zeros::<u32>(n).unwrap();
    let bytes = (n * 4) as u32;
    let config = Config::for_elements(bytes, 256);
    // SAFETY: both hold n 4-byte elements, `bytes` bytes.
    unsafe {
        kernels
            .copy_bytes
            .launch(&stream, config, &src, &mut dst, bytes)
    }
    .unwrap();
    let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
    assert_eq!(stream.clone_dtoh(&dst).unwrap(), bits);
    // SAFETY: as above.
    unsafe {
        kernels
            .copy_bytes
            .launch(&stream, config, &Null, &mut dst, bytes)
    }
    .unwrap();
    assert!(stream.clone_dtoh(&dst).unwrap().iter().all(|&w| w == 0));

    // A plan takes the memory erased to `void`; its replay copies again.
    let mut plan = Plan::new(&stream).unwrap();
    let (from, to) = (plan.input(&src).erase(), plan.output(&mut dst).erase());
    assert_eq!(
        from.element_count(),
        Some(n * 4),
        "an erased length counts bytes"
    );
    // SAFETY: as above.
    unsafe { plan.record(&kernels.copy_bytes, config, (from, to, bytes)) }.unwrap();
    plan.replay(&stream).unwrap();
    drop(plan);
    assert_eq!(stream.clone_dtoh(&dst).unwrap(), bits);
}
