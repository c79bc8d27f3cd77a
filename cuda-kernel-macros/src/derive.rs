//! `#[derive(KernelParam)]`: a `#[repr(C)]` struct as a kernel parameter, laid out as the device
//! lays it out, with its CUDA C declaration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, Member, Path, Type};

use crate::report::Errors;

/// What the derive needs of the struct, checked.
struct ParamStruct<'a> {
    input: &'a DeriveInput,
    /// `#[repr(align(N))]`, 1 without.
    repr_align: TokenStream,
    fields: Vec<Field<'a>>,
}

struct Field<'a> {
    member: Member,
    /// The field's name in C: its Rust name, or `f0`, `f1`... for a tuple struct.
    c_name: String,
    ty: &'a Type,
    /// `[2, 3]` for `[[T; 3]; 2]`.
    dims: Vec<&'a Expr>,
}

/// Parse, check, expand; on errors, the errors alone.
pub fn kernel_param(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = Errors::default();
    let krate = parse_crate_arg(&mut cx, &input);
    let parsed = parse_struct(&mut cx, &input);
    match parsed {
        Some(s) if !cx.has_errors() => expand(&krate, &s),
        _ => cx.to_compile_errors(),
    }
}

/// `#[kernel_param(crate = path)]`, for crates that re-export cuda_kernel.
fn parse_crate_arg(cx: &mut Errors, input: &DeriveInput) -> Path {
    let mut krate = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kernel_param"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse::<Path>()?);
                Ok(())
            } else {
                Err(meta.error("unknown #[kernel_param] argument: expected `crate = path`"))
            }
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    krate.unwrap_or_else(|| syn::parse_quote!(::cuda_kernel))
}

/// Rule: a kernel parameter struct is a non-generic `#[repr(C)]` struct, not packed, with at
/// least one field, and no references among its fields.
fn parse_struct<'a>(cx: &mut Errors, input: &'a DeriveInput) -> Option<ParamStruct<'a>> {
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(e) => {
            cx.error(
                e.enum_token,
                "enums cannot be kernel parameters: a C enum is an int, pass its value as i32 or u32",
            );
            return None;
        }
        Data::Union(u) => {
            cx.error(
                u.union_token,
                "unions cannot derive KernelParam: which bytes are meaningful is not known; \
                 declare a #[repr(C)] struct of the largest member, or pass device memory",
            );
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error(
            &input.generics,
            "generic structs cannot derive KernelParam: derive it on a concrete struct",
        );
    }
    let repr_align = check_repr(cx, input);
    if data.fields.is_empty() {
        cx.error(
            &input.ident,
            "a kernel parameter struct needs at least one field: C has no empty structs",
        );
    }
    let mut fields = Vec::new();
    for (i, field) in data.fields.iter().enumerate() {
        let (member, c_name) = match (&field.ident, &data.fields) {
            (Some(ident), _) => (Member::Named(ident.clone()), ident.to_string()),
            (None, Fields::Unnamed(_)) => (Member::Unnamed(i.into()), format!("f{i}")),
            (None, _) => continue,
        };
        let (dims, elem) = array_dims(&field.ty);
        if let Type::Reference(r) = elem {
            cx.error(
                r,
                "references cannot be kernel parameters: pass device memory as *const T or *mut T",
            );
        }
        fields.push(Field {
            member,
            c_name,
            ty: &field.ty,
            dims,
        });
    }
    Some(ParamStruct {
        input,
        repr_align,
        fields,
    })
}

/// Rule: `#[repr(C)]` is present and `packed` is not; returns the `align(N)`, if any.
fn check_repr(cx: &mut Errors, input: &DeriveInput) -> TokenStream {
    let mut has_c = false;
    let mut align = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                has_c = true;
            } else if meta.path.is_ident("packed") {
                if meta.input.peek(syn::token::Paren) {
                    let _ = meta.input.parse::<TokenStream>();
                }
                cx.error(
                    &meta.path,
                    "packed structs cannot be kernel parameters: the device aligns every field; remove repr(packed)",
                );
            } else if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                align = Some(content.parse::<syn::LitInt>()?);
            } else if meta.path.is_ident("transparent") {
                cx.error(&meta.path, "write #[repr(C)]: kernel parameter structs follow C layout");
            } else {
                // repr(u8) and the like only apply to enums, which are reported already.
                let _ = meta.input.parse::<TokenStream>();
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    if !has_c {
        cx.error(
            &input.ident,
            "kernel parameter structs need #[repr(C)]: without it Rust may reorder the fields",
        );
    }
    match align {
        Some(lit) => quote!(#lit),
        None => quote!(1),
    }
}

/// `[[T; 3]; 2]` -> `([2, 3], T)`.
fn array_dims(ty: &Type) -> (Vec<&Expr>, &Type) {
    let mut dims = Vec::new();
    let mut ty = ty;
    while let Type::Array(array) = ty {
        dims.push(&array.len);
        ty = &array.elem;
    }
    (dims, ty)
}

fn expand(krate: &Path, s: &ParamStruct<'_>) -> TokenStream {
    let p = quote!(#krate::__private);
    let name = &s.input.ident;
    let c_name = name.to_string();
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
