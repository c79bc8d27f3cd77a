//! `#[derive(KernelParam)]`: a `#[repr(C)]` struct as a kernel parameter, laid out as the device
//! lays it out, with its CUDA C declaration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Path};

use cuda_kernel_syntax::ast::ParamStruct;
use cuda_kernel_syntax::parse;
use cuda_kernel_syntax::report::Errors;

/// Parse and check, then expand; on errors, the errors and a stand-in impl, so that uses of the
/// struct as a parameter do not add errors of their own (one error for a bad struct, not three).
pub fn kernel_param(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = Errors::default();
    let krate = parse::parse_kernel_param_args(&mut cx, &input);
    let parsed = parse::parse_param_struct(&mut cx, &input);
    match parsed {
        Some(s) if !cx.has_errors() => expand(&krate, &s),
        _ => {
            let errors = cx.to_compile_errors();
            let stand_in = expand_stand_in(&krate, &input);
            quote!(#errors #stand_in)
        }
    }
}

/// The `KernelParam` impl of a struct the checks refused, with an `unreachable!()` body; none
/// for a generic struct, whose impl could not name it.
fn expand_stand_in(krate: &Path, input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let p = quote!(#krate::__private);
    let name = &input.ident;
    let c_name = name.to_string();
    quote! {
        impl #name {
            #[doc(hidden)]
            pub const CUDA_DECLARATION: &'static str = "";
        }
        // SAFETY: never used: the crate does not compile.
        unsafe impl #p::KernelParam for #name {
            const SIZE: usize = 1;
            const ALIGN: usize = 1;
            const CUDA_TYPE: #p::CType = #p::CType::named(#c_name);
            fn write(&self, _: &mut [u8]) {
                #p::core::unreachable!()
            }
        }
    }
}

fn expand(krate: &Path, s: &ParamStruct<'_>) -> TokenStream {
    let p = quote!(#krate::__private);
    let name = &s.input.ident;
    let c_name = &s.cuda_name;
    let (namespace, local) = s.cuda_scope();
    let repr_align = &s.repr_align;
    let count = s.fields.len();
    let slots = s.fields.iter().map(|f| {
        let ty = f.ty;
        let field_name = &f.c_name;
        quote_spanned!(ty.span()=> #p::ParamSlot::of::<#ty>(#field_name))
    });
    let writes = s.fields.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        // Spanned on the field's type, where a type that is not a parameter is reported.
        quote_spanned! {f.ty.span()=>
            #p::KernelParam::write(
                &self.#member,
                &mut __out[#name::__FIELDS[#i].offset..#name::__FIELDS[#i].end()],
            );
        }
    });
    let offsets = s.fields.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        quote!(&& #p::core::mem::offset_of!(#name, #member) == #name::__FIELDS[#i].offset)
    });
    let field_tys = s.fields.iter().map(|f| f.ty);
    let dims = s.fields.iter().map(|f| {
        let dims = &f.dims;
        quote!(&[#(#dims),*])
    });
    let decl_doc = format!(
        " The CUDA C declaration of `{c_name}`, with `static_assert`s on its size, alignment and\n \
         field offsets as the Rust side computes them. Write it into a header with\n \
         [`cuda_kernel::write_cuda_header`](fn@{krate_doc}::write_cuda_header).",
        krate_doc = quote!(#krate).to_string().replace(' ', "")
    );
    quote! {
        impl #name {
            #[doc(hidden)]
            const __FIELDS: [#p::ParamSlot; #count] = #p::ParamLayout::place([#(#slots),*]);

            #[doc(hidden)]
            const __DECLARATION: #p::ConstText<{ #p::DECLARATION_CAPACITY }> =
                #p::struct_declaration(
                    #c_name,
                    #namespace,
                    #local,
                    &[#(#dims),*],
                    &#name::__FIELDS,
                    <#name as #p::KernelParam>::SIZE,
                    <#name as #p::KernelParam>::ALIGN,
                    #repr_align,
                );

            #[doc = #decl_doc]
            pub const CUDA_DECLARATION: &'static str = #name::__DECLARATION.as_str();
        }

        // SAFETY: SIZE and ALIGN follow the C rules over the fields' device layouts, and write
        // puts each field at its device offset, leaving padding as the zeros it was given.
        unsafe impl #p::KernelParam for #name {
            const SIZE: usize = #p::struct_size(&#name::__FIELDS, #repr_align);
            const ALIGN: usize = #p::struct_align(&#name::__FIELDS, #repr_align);
            const CUDA_TYPE: #p::CType = #p::CType::named(#c_name);
            #[inline]
            fn write(&self, __out: &mut [u8]) {
                #(#writes)*
            }
        }

        // SAFETY: a repr(C) struct whose host layout is its device layout (asserted below), so
        // its bytes can be copied to and from device memory as they are (cudarc's CudaSlice).
        unsafe impl #p::cudarc::driver::DeviceRepr for #name {}

        // SAFETY: all-zero bytes are a valid value of every field, hence of the struct. The
        // bounds are higher-ranked so that a field without the trait (a raw pointer) leaves the
        // impl out instead of failing to compile.
        unsafe impl #p::cudarc::driver::ValidAsZeroBits for #name
        where
            #(for<'__z> #field_tys: #p::cudarc::driver::ValidAsZeroBits,)*
        {
        }

        // The host's repr(C) layout is the device's, so the struct can also live in device
        // memory (behind a *const pointer) unchanged.
        const _: () = #p::core::assert!(
            #p::core::mem::size_of::<#name>() == <#name as #p::KernelParam>::SIZE
                && #p::core::mem::align_of::<#name>() == <#name as #p::KernelParam>::ALIGN
                #(#offsets)*,
            "the host layout of this struct differs from its device layout"
        );
    }
}
