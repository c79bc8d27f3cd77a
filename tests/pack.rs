//! Packing without a GPU: what a launch would send, and proof that packing allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use cuda_kernel::half::{bf16, f16};
use cuda_kernel::{Double2, Float2, Float4, Int2, Int4, Uint4};
use kernels::{EchoGuide, EchoScalars, VectorAdd};

/// Counts allocations made by this thread while `COUNTING` is set (per thread, as tests run in
/// parallel).
struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.with(|n| n.set(n.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn the_counter_sees_allocations() {
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1u8; 64]))),
        1
    );
}

#[test]
fn packing_allocates_nothing() {
    let mut sum = 0u64;
    let n = allocations_during(|| {
        for i in 0..1000u32 {
            let buf = VectorAdd::pack(0x1000, 0x2000, 0x3000, i);
            sum += u64::from(std::hint::black_box(&buf).bytes()[24]);
            let buf = EchoGuide::pack(
                i as i32,
                Float4::new(1.0, 2.0, 3.0, 4.0),
                -1,
                0.5,
                7,
                Float2::new(1.0, 2.0),
                3.0,
                f16::ONE,
                Double2::new(1.0, 2.0),
                0x4000,
            );
            sum += u64::from(std::hint::black_box(&buf).bytes()[0]);
        }
    });
    assert_eq!(n, 0, "packing allocated");
    assert!(sum > 0);
}

#[test]
fn vector_add_packs_three_addresses_and_a_count() {
    let buf = VectorAdd::pack(
        0x1111_2222_3333_4444,
        0x5555_6666_7777_8888,
        0x9999,
        1_000_003,
    );
    let b = buf.bytes();
    assert_eq!(b.len(), 28, "no tail padding");
    assert_eq!(b[0..8], 0x1111_2222_3333_4444u64.to_le_bytes());
    assert_eq!(b[8..16], 0x5555_6666_7777_8888u64.to_le_bytes());
    assert_eq!(b[16..24], 0x9999u64.to_le_bytes());
    assert_eq!(b[24..28], 1_000_003u32.to_le_bytes());
}

#[test]
fn echo_scalars_packs_each_value_after_zeroed_padding() {
    let buf = EchoScalars::pack(
        true,
        -1,
        -2,
        -1,
        3,
        -1,
        -4,
        -1,
        5,
        -1,
        -6,
        -1,
        7,
        -1,
        -8,
        -1,
        9,
        -1,
        10.0,
        -1,
        11.0,
        -1,
        f16::from_f32(12.0),
        -1,
        bf16::from_f32(13.0),
        -1,
        Int2::new(14, 15),
        -1,
        Int4::new(16, 17, 18, 19),
        -1,
        Uint4::new(20, 21, 22, 23),
        0xabcd,
    );
    let layout = EchoScalars::LAYOUT;
    let b = buf.bytes();
    assert_eq!(b.len(), layout.size);
    // Every byte outside a parameter is padding and must be zero.
    let mut covered = vec![false; b.len()];
    for p in layout.params {
        covered[p.offset..p.end()]
            .iter_mut()
            .for_each(|c| *c = true);
        // Each one-byte separator was -1 (0xff); each value is non-zero somewhere.
        assert!(
            b[p.offset..p.end()].iter().any(|&x| x != 0),
            "{} is all zero",
            p.name
        );
    }
    for (i, &is_param) in covered.iter().enumerate() {
        if !is_param {
            assert_eq!(b[i], 0, "padding byte {i}");
        }
    }
    let at = |name: &str| layout.param(name).unwrap().offset;
    assert_eq!(b[at("i16")..at("i16") + 2], (-4i16).to_le_bytes());
    assert_eq!(b[at("f64")..at("f64") + 8], 11.0f64.to_le_bytes());
    assert_eq!(
        b[at("int4")..at("int4") + 16],
        *bytemuck::bytes_of(&Int4::new(16, 17, 18, 19))
    );
}

/// Template values of `unsigned int`, `size_t`, `long` and `char` mangle as nvcc mangles them:
/// the symbols are those of `kernels/ptx/templates.ptx`.
#[test]
fn template_values_of_every_integer_type_derive_nvccs_symbols() {
    use cuda_kernel::Kernel;
    use kernels::{FillTagged, StridedSum};
    assert_eq!(
        <StridedSum<f32, 128> as Kernel>::symbol(),
        "_Z11strided_sumIfLj128EEvPKT_PS0_j"
    );
    assert_eq!(
        <StridedSum<i32, 64> as Kernel>::symbol(),
        "_Z11strided_sumIiLj64EEvPKT_PS0_j"
    );
    assert_eq!(
        <FillTagged<32, -1, { b'a' as i8 }> as Kernel>::symbol(),
        "_Z11fill_taggedILm32ELln1ELc97EEvPf"
    );
    for symbol in [
        "_Z11strided_sumIfLj128EEvPKT_PS0_j",
        "_Z11fill_taggedILm32ELln1ELc97EEvPf",
    ] {
        assert!(
            kernels::TEMPLATES_PTX.contains(&format!(".entry {symbol}(")),
            "{symbol}"
        );
    }
}

/// A signature longer than the runtime's tuples (14 parameters, packed as a tuple of tuples),
/// with a struct of the user's passed by value: every byte lands at the layout's offset.
#[test]
fn long_signatures_and_struct_values_pack_at_their_offsets() {
    #[derive(Clone, Copy, cuda_kernel::KernelParam)]
    #[repr(C)]
    struct Pair {
        a: u32,
        b: f64,
    }
    #[cuda_kernel::kernel]
    unsafe extern "C" {
        fn long14(
            p0: u8,
            x: *const f32,
            p1: u16,
            p2: Pair,
            y: *mut f32,
            p3: u32,
            p4: u64,
            p5: f32,
            p6: f64,
            p7: Float4,
            p8: i8,
            p9: i16,
            p10: i32,
            p11: i64,
        );
    }
    let pair = Pair { a: 7, b: 2.5 };
    let f4 = Float4::new(1.0, 2.0, 3.0, 4.0);
    let packed = Long14::pack(
        1, 0x1000, 2, pair, 0x2000, 3, 4, 5.0, 6.0, f4, -8, -9, -10, -11,
    );
    let bytes = packed.bytes();
    assert_eq!(bytes.len(), Long14::LAYOUT.size);
    let at = |name: &str| Long14::LAYOUT.param(name).unwrap().offset;
    assert_eq!(bytes[at("p0")], 1);
    assert_eq!(bytes[at("x")..at("x") + 8], 0x1000u64.to_le_bytes());
    assert_eq!(bytes[at("p2")..at("p2") + 4], 7u32.to_le_bytes());
    assert_eq!(bytes[at("p2") + 8..at("p2") + 16], 2.5f64.to_le_bytes());
    assert_eq!(bytes[at("y")..at("y") + 8], 0x2000u64.to_le_bytes());
    assert_eq!(bytes[at("p7") + 12..at("p7") + 16], 4.0f32.to_le_bytes());
    assert_eq!(bytes[at("p11")..at("p11") + 8], (-11i64).to_le_bytes());
    assert_eq!(
        allocations_during(|| drop(Long14::pack(
            1, 2, 3, pair, 4, 5, 6, 7.0, 8.0, f4, 9, 10, 11, 12
        ))),
        0
    );
}
