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
    family_name_of(T::CUDA_TYPE, &[])
}

/// [`family_name`], unless `names` (from `#[kernel(names(F8E4M3 = "f8_e4m3"))]`) gives `T`'s
/// CUDA type another name.
pub fn family_name_with<T: KernelParam>(names: &[(crate::CType, &str)]) -> String {
    family_name_of(T::CUDA_TYPE, names)
}

/// What `{T}` stands for where `T`'s CUDA type is `ty`: its name in `names`, else the
/// family name of the type (`_ptr` once per pointer). Not generic: [`family_name`],
/// [`family_name_with`] and a [`FamilySymbol`] all name a type here.
fn family_name_of(ty: crate::CType, names: &[(crate::CType, &str)]) -> String {
    if let Some((_, name)) = names.iter().find(|(named, _)| *named == ty) {
        return (*name).to_string();
    }
    let mut name = itanium::family_name(ty.name);
    for _ in 0..ty.pointers {
        name.push_str("_ptr");
    }
    name
}

/// An instance's symbol as data: the family's pattern (`affine_{T}`), the CUDA type each type
/// parameter stands for in this instance, and the block's names for types
/// (`names(F8E4M3 = "f8_e4m3")`). What a generic `extern "C"` declaration over types gives
/// loading ([`Kernel::__SYMBOL`](crate::Kernel::__SYMBOL)), so that each instance is named by
/// this one function of the runtime, not by a function compiled per instance in the crate that
/// launches (a backend generic over its dtypes names hundreds).
#[doc(hidden)]
#[derive(Debug)]
pub struct FamilySymbol {
    /// The pattern, as the declaration's `name` gives it.
    pub pattern: &'static str,
    /// Each type parameter's name and the CUDA type it is in this instance.
    pub types: &'static [(&'static str, crate::CType)],
    /// The block's names for CUDA types.
    pub names: &'static [(crate::CType, &'static str)],
}

impl FamilySymbol {
    /// The symbol, `run_time` (the placeholder and the name) filling the part chosen at run
    /// time; without it that part stays open (`u{op}_f32`).
    pub fn symbol(&self, run_time: Option<(&str, &str)>) -> String {
        let mut subs: Vec<(&str, String)> = self
            .types
            .iter()
            .map(|(param, ty)| (*param, family_name_of(*ty, self.names)))
            .collect();
        if let Some((hole, name)) = run_time {
            subs.push((hole, name.to_string()));
        }
        itanium::family_symbol(self.pattern, &subs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CType;

    /// A family's symbol as data names an instance as the functions generated code calls do:
    /// each type by its family name, a block's name for a type first, `_ptr` per pointer, the
    /// part chosen at run time filled in or left open.
    #[test]
    fn a_family_symbol_names_instances_as_the_type_functions_do() {
        const F16_NAMED: [(CType, &str); 1] = [(<half::f16 as KernelParam>::CUDA_TYPE, "half")];
        let cast = FamilySymbol {
            pattern: "cast_{T}_{U}",
            types: &[
                ("T", <half::bf16 as KernelParam>::CUDA_TYPE),
                ("U", <*const f32 as KernelParam>::CUDA_TYPE),
            ],
            names: &[],
        };
        let expected = format!(
            "cast_{}_{}",
            family_name::<half::bf16>(),
            family_name::<*const f32>()
        );
        assert_eq!(cast.symbol(None), expected);
        assert_eq!(expected, "cast_bf16_f32_ptr");
        let unary = FamilySymbol {
            pattern: "u{op}_{T}",
            types: &[("T", <half::f16 as KernelParam>::CUDA_TYPE)],
            names: &F16_NAMED,
        };
        assert_eq!(
            family_name_with::<half::f16>(&F16_NAMED),
            "half",
            "a block's name comes first"
        );
        assert_eq!(unary.symbol(Some(("op", "exp"))), "uexp_half");
        assert_eq!(unary.symbol(None), "u{op}_half");
        let unnamed = FamilySymbol {
            names: &[],
            ..unary
        };
        assert_eq!(unnamed.symbol(Some(("op", "exp"))), "uexp_f16");
    }
}
