//! Typed launchers for every kernel of three real files, from a few lines of build script: the
//! generated modules (`$OUT_DIR/cuda-kernel/<stem>.rs`), plus one kernel declared by hand with
//! a contract, which the generated block leaves out.

use cuda_kernel::{Config, kernel};

pub mod idioms;
pub mod llmc_bf16;
pub mod names;
pub mod namespaces;
pub mod records;

pub mod fill {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/candle_fill.rs"));
}

pub mod llmc {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/llmc.rs"));
}

/// A struct parameter (`Pair`, defined in the .cu) becomes a `#[derive(KernelParam)]` struct,
/// its size and alignment checked against the PTX at compile time; a template with instances
/// in the PTX a generic declaration.
pub mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/cxx_fixtures.rs"));
}

// Declared by hand, with a contract: wins over the generated declaration.
#[kernel(ptx = "$OUT_DIR/candle_fill.ptx")]
unsafe extern "C" {
    #[requires(buf.len() >= numel)]
    pub fn fill_f32(buf: *mut f32, value: f32, numel: cuda_kernel::ffi::size_t);
}

fn main() -> Result<(), cuda_kernel::Error> {
    // What the generated launchers send, without a GPU.
    let buf = fill::FillU32::pack(0x1000, 7, 16);
    assert_eq!(buf.bytes()[8..12], 7u32.to_le_bytes());
    let copy = fill::Copy2d::<f32>::pack(0x1000, 0x2000, 4, 6, 10, 8);
    assert_eq!(copy.bytes().len(), 32);
    let pair = fixtures::Pair { c: 3, d: 0.5 };
    let takes = fixtures::TakesStruct::pack(pair, cuda_kernel::Float4::default(), 0x1000);
    assert_eq!(takes.bytes()[8..16], 0.5f64.to_le_bytes());
    assert_eq!(fixtures::Scale::<f32>::symbol(), "_Z5scaleIfEvPT_S0_j");
    let gelu = llmc::GeluForwardKernel::pack(0x1000, 0x2000, 10);
    assert_eq!(gelu.bytes()[16..20], 10i32.to_le_bytes());
    // Names C++ has and Rust has not (cuda/names.cu): one rule, every kernel declared.
    assert_eq!(names::Reset::NAME, "_Z5resetPf");
    assert_eq!(names::GemmDetailReset::NAME, "_ZN4gemm6detail5resetEPjj");
    assert_eq!(names::OtherReset::NAME, "_ZN5other5resetEPi");
    assert_eq!(names::Self_::NAME, "Self");
    assert_eq!(names::VectorAdd2::NAME, "vectorAdd");
    assert_eq!(
        names::MulMatVec::<1, 2>::symbol(),
        "_Z11mul_mat_vecIL9ggml_type1ELi2EEvPKfPfi"
    );
    // Templates over device functions: an instance by the function's name.
    assert_eq!(
        names::Scaled::symbol_named("ops::scale"),
        "_Z6scaledIXadL_ZN3ops5scaleEfPKfEEEvS2_PfS2_"
    );
    assert!(
        <names::UnaryOp<f32> as cuda_kernel::Kernel>::__internal_symbol("op_relu")
            .is_some_and(|s| s.contains("7op_relu"))
    );
    // A variadic template's instances, each by its symbol.
    assert_eq!(names::PackFloatInt::NAME, "_Z4packIJfiEEvPfDpT_");
    assert_eq!(names::Pack::NAME, "_Z4packIJEEvPfDpT_");
    // By-value enums, default arguments and member initializers, dim3.
    let sym = <names::Pool as cuda_kernel::Kernel>::symbol();
    assert_eq!(sym, "_Z4poolPKfPf7pool_opN2nn3actE11bias_paramsS0_");
    assert_eq!((names::PoolOp::POOL_SUM.0, names::Act::gelu.0), (5, 2));
    let shape = names::Shape::pack(
        0x1000,
        cuda_kernel::Dim3 { x: 4, y: 1, z: 1 },
        cuda_kernel::Uint3 { x: 1, y: 2, z: 3 },
    );
    assert_eq!(shape.bytes()[8..12], 4u32.to_le_bytes());
    let pair = names::b::Pair { n: 3 };
    assert_eq!(names::BPair::pack(pair, 0x1000).bytes()[..4], 3i32.to_le_bytes());
    records::check_layouts();
    idioms::check_layouts();
    println!(
        "generated: {}, {}, {} and the hand-written {}",
        fill::FillU32::NAME,
        fill::Copy2d::<f32>::symbol(),
        llmc::GeluForwardKernel::NAME,
        FillF32::NAME
    );
    if std::env::args().any(|a| a == "--gpu") {
        let ctx = cuda_kernel::driver::context(0)?;
        let stream = ctx.default_stream();
        let kernels = llmc::Kernels::load(&ctx)?;
        let x = stream.clone_htod(&[0.5f32; 1000])?;
        let mut y = stream.alloc_zeros::<f32>(1000)?;
        // SAFETY: gelu_forward_kernel touches indices below n = 1000 of two 1000-float buffers.
        unsafe {
            kernels
                .gelu_forward_kernel
                .launch(&stream, Config::for_elements(1000, 256), &mut y, &x, 1000)?
        };
        let fill = FillF32::load(&cuda_kernel::driver::load_ptx(
            &ctx,
            include_str!(concat!(env!("OUT_DIR"), "/candle_fill.ptx")),
        )?)?;
        fill.launch(&stream, Config::for_elements(1000, 256), &mut y, 2.0, 1000)?;
        let host = stream.clone_dtoh(&y)?;
        assert!(host.iter().all(|v| *v == 2.0));
        println!("generated: launched on the GPU, ok");
        llmc_bf16::run(&ctx)?;
        namespaces::run(&ctx)?;
        records::run(&ctx)?;
        idioms::run(&ctx)?;
    }
    Ok(())
}
