//! The entry symbols of generic declarations' instances, from the type arguments: a C++
//! template instance's Itanium name, or a dtype family's pattern filled in.

use cuda_kernel_syntax::itanium::{self, TemplateArg};

use crate::KernelParam;

/// `T` as a template argument of a C++ kernel instance (`reduce0<float>`,
/// `scale<__nv_bfloat16>`, `copy<ns::Pair>`).
pub fn template_arg<T: KernelParam>() -> TemplateArg {
    TemplateArg::Type(T::CUDA_TYPE.cpp())
}

/// What `{T}` stands for in a family's symbol pattern (`f16` for `half::f16`).
pub fn family_name<T: KernelParam>() -> String {
    let mut name = itanium::family_name(T::CUDA_TYPE.name);
    for _ in 0..T::CUDA_TYPE.pointers {
        name.push_str("_ptr");
    }
    name
}

/// [`family_name`], unless `names` (from `#[kernel(names(F8E4M3 = "f8_e4m3"))]`) gives `T`'s
/// CUDA type another name.
pub fn family_name_with<T: KernelParam>(names: &[(crate::CType, &str)]) -> String {
    match names.iter().find(|(ty, _)| *ty == T::CUDA_TYPE) {
        Some((_, name)) => (*name).to_string(),
        None => family_name::<T>(),
    }
}
