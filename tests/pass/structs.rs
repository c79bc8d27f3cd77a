// Derived structs: nesting, arrays, repr(align), tuple structs, and use in signatures.
use cuda_kernel::{Double4_32a, Float3, KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Inner {
    pub tag: u8,
    pub value: f64,
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Outer {
    pub flag: bool,
    pub inner: Inner,
    pub dir: Float3,
    pub grid: [[u16; 3]; 2],
    pub data: *const f32,
}

#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(16))]
pub struct Aligned(pub f32, pub u8);

// Aligned to 32 is fine inside a struct that lives in device memory.
#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Wide {
    pub a: u8,
    pub v: Double4_32a,
}

#[kernel]
unsafe extern "C" {
    pub fn k(o: Outer, a: Aligned, c: u8, w: *const Wide);
}

const _: () = assert!(Inner::SIZE == 16 && Inner::ALIGN == 8);
// flag@0, inner@8 (16), dir@24 (12), grid@36 (12), data@48 (8) -> 56
const _: () = assert!(Outer::SIZE == 56 && Outer::ALIGN == 8);
const _: () = assert!(Aligned::SIZE == 16 && Aligned::ALIGN == 16);
const _: () = assert!(Wide::SIZE == 64 && Wide::ALIGN == 32);
const _: () = assert!(K::LAYOUT.params[1].offset == 64 && K::LAYOUT.size == 96);

fn main() {
    assert!(Outer::CUDA_DECLARATION.contains("    unsigned short grid[2][3];\n"));
    assert!(Outer::CUDA_DECLARATION.contains("    float* data;\n"));
    assert!(Aligned::CUDA_DECLARATION.starts_with("struct alignas(16) Aligned {\n    float f0;"));
    cudarc_interop::check();
}

mod cudarc_interop {
    use cuda_kernel::cudarc::driver::{DeviceRepr, ValidAsZeroBits};
    use cuda_kernel::{Float4, KernelParam};

    #[derive(Clone, Copy, KernelParam)]
    #[repr(C)]
    pub struct Plain {
        pub v: Float4,
        pub n: u32,
        pub w: [f32; 3],
    }

    #[derive(Clone, Copy, KernelParam)]
    #[repr(C)]
    pub struct WithPointer {
        pub data: *const f32,
        pub n: u32,
    }

    fn device_repr<T: DeviceRepr>() {}
    fn zeroable<T: ValidAsZeroBits>() {}

    pub fn check() {
        device_repr::<Plain>();
        device_repr::<WithPointer>();
        zeroable::<Plain>();
    }
}
