//! With the PTX known at compile time: the trait of a generic launcher's instances in the
//! PTX, so that loading one it lacks is an error at the call naming the instances there are.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::Path;
use syn::ext::IdentExt;

use cuda_kernel_syntax::ast::{Kernel, KernelGeneric, MemberType};
use cuda_kernel_syntax::check;

use crate::code::Code;

/// With the PTX's members known: a trait implemented for the type arguments that have a
/// member, and the `where` clause bounding a launcher's `load` on it, so that loading a member
/// the PTX lacks, for a type named at the call, is a compile-time error listing the members.
/// Generic code loads through `Kernel::load` or a `KernelCache` instead, which report it at run
/// time.
pub(super) fn member_check(
    krate: &Path,
    kernel: &Kernel,
) -> (Option<TokenStream>, Option<TokenStream>) {
    let Some(members) = &kernel.members else {
        return (None, None);
    };
    let type_params: Vec<Ident> = kernel
        .generics
        .iter()
        .filter_map(|g| match g {
            KernelGeneric::Type(t) => Some(t.clone()),
            KernelGeneric::Const { .. } => None,
        })
        .collect();
    let has_consts = type_params.len() != kernel.generics.len();
    // With value parameters, the instances are those of a C++ template, whose arguments are
    // known (read from their symbols) in the generics' order.
    let with_values = has_consts
        && kernel.cpp.is_some()
        && members.entries.iter().all(|m| {
            m.args.len() == kernel.generics.len() + usize::from(kernel.device_fn.is_some())
        });
    if !members.types_known
        || members.entries.is_empty()
        || (type_params.is_empty() && !with_values)
        || (has_consts && !with_values)
    {
        return (None, None);
    }
    let attrs = &kernel.attrs;
    let ty = kernel.type_ident();
    // Named for what it says of the launcher, since rustc shows it: "the trait
    // `MatrixMulCUDAInPtx<64>` is not implemented for `MatrixMulCUDA<64>`".
    let name = format_ident!("{}{}", ty, check::IN_PTX);
    // Each member's arguments, in text, once, in the generics' order.
    let tuples = member_args(krate, members, with_values);
    let mut impls = Code::new();
    for args in &tuples {
        let args = args.join(", ");
        impls
            .tokens(&quote!(#(#attrs)*))
            .text("#[diagnostic::do_not_recommend]")
            .text(&format!("impl {name}<{args}> for {ty}<{args}> {{}}"));
    }
    let impls = impls.finish();
    let listed: Vec<String> = match kernel.cpp {
        Some(_) => instances_as_rust(krate, kernel, members),
        None => members.entries.iter().map(|m| m.symbol.clone()).collect(),
    };
    let shown = listed.join(", ");
    // The generics' names as the declaration writes them, and as rustc fills them in.
    let declared_names: Vec<String> = kernel
        .generics
        .iter()
        .map(|g| match g {
            KernelGeneric::Type(t) => t.unraw().to_string(),
            KernelGeneric::Const { ident, .. } => ident.unraw().to_string(),
        })
        .collect();
    let asked: Vec<String> = declared_names.iter().map(|n| format!("{{{n}}}")).collect();
    let asked_types: Vec<String> = type_params.iter().map(asked_of).collect();
    // With one type parameter named by its Rust name, the missing symbol itself, the pattern's
    // `{T}` standing for the type asked (`affine_i16`).
    let missing = match (&type_params[..], &kernel.run_time_name) {
        ([t], None) if kernel.type_names.is_empty() && kernel.cpp.is_none() => {
            let placeholder = format!("{{{t}}}");
            let parts: Vec<String> = kernel.symbol.split(&placeholder).map(escape).collect();
            Some(parts.join(&asked_of(t)))
        }
        _ => None,
    };
    // The arguments asked, as the call writes them: `u8`, `MatrixMulCUDA::<64>`.
    let for_what = match (with_values, &asked_types[..]) {
        (false, [one]) => format!("`{one}`"),
        (false, _) => format!("`({})`", asked_types.join(", ")),
        (true, _) => format!("`{ty}::<{}>`", asked.join(", ")),
    };
    let family = format!("member of `{}` for {for_what}", escape(&kernel.symbol));
    // rustc fills `{T}` with the type asked, or with generic code's type parameter; generic code
    // bounds it by the trait (as rustc suggests too), said first, in the declaration's names.
    let mut notes = vec![format!(
        "in generic code, bound its parameters: `where {ty}<{args}>: {name}<{args}>`, checked \
         where they are chosen (or load through `Kernel::load`, a `KernelCache` or the block's \
         module type, checked at run time)",
        args = escape(&declared_names.join(", "))
    )];
    let message = if kernel.cpp.is_some() {
        instance_message(kernel, members, &for_what, &asked_types, &shown, &mut notes)
    } else {
        match missing {
            Some(symbol) => format!(
                "{} has no `{symbol}` (no {family}): its members are {}",
                escape(&members.file),
                escape(&shown)
            ),
            None => format!(
                "{} has no {family}: its members are {}",
                escape(&members.file),
                escape(&shown)
            ),
        }
    };
    // A const parameter braced: named as a type or module in scope (`Pair`, `core`), it is
    // still the value.
    let generic_args: Vec<TokenStream> = kernel
        .generics
        .iter()
        .map(|g| match g {
            KernelGeneric::Type(t) => quote!(#t),
            KernelGeneric::Const { ident, .. } => quote!({ #ident }),
        })
        .collect();
    let declared = kernel.generics.iter().map(|g| match g {
        KernelGeneric::Type(t) => quote!(#t: ?#krate::__private::core::marker::Sized),
        KernelGeneric::Const { ident, ty, .. } => quote!(const #ident: #ty),
    });
    let label = if kernel.cpp.is_some() {
        "no such instance in the PTX"
    } else {
        "no such member in the PTX"
    };
    let doc = format!(
        " Implemented by `{ty}` for each instance of `{}` in the PTX: generic code loads \
         `{ty}::<...>` for its type parameters where they are bounded by it (`where {ty}<T>: \
         {name}<T>`), checked where they are chosen.",
        kernel.symbol
    );
    (
        Some(quote!(where Self: #name<#(#generic_args),*>)),
        Some(quote! {
            #(#attrs)*
            #[doc = #doc]
            #[diagnostic::on_unimplemented(message = #message, label = #label, #(note = #notes),*)]
            pub trait #name<#(#declared),*> {}
            #impls
        }),
    )
}

/// Each member's type (and value) arguments in text, once, in the generics' order.
fn member_args(
    krate: &Path,
    members: &cuda_kernel_syntax::ast::Members,
    with_values: bool,
) -> Vec<Vec<String>> {
    let krate_text = quote!(#krate).to_string();
    let mut tuples: Vec<Vec<String>> = Vec::new();
    for member in &members.entries {
        let mut types = member.types.iter();
        let args: Vec<String> = if with_values {
            member
                .args
                .iter()
                .filter_map(|arg| match arg {
                    // A device function is chosen at load, by name.
                    cuda_kernel_syntax::cpp::TemplateArg::Function { .. } => None,
                    cuda_kernel_syntax::cpp::TemplateArg::Type(_) => Some(member_type_text(
                        &krate_text,
                        types.next().and_then(Option::as_ref),
                    )),
                    cuda_kernel_syntax::cpp::TemplateArg::Int { code: "b", value } => {
                        Some((*value != 0).to_string())
                    }
                    cuda_kernel_syntax::cpp::TemplateArg::Int { value, .. }
                    | cuda_kernel_syntax::cpp::TemplateArg::Enum { value, .. } => {
                        Some(format!("{{ {value} }}"))
                    }
                })
                .collect()
        } else {
            types
                .map(|t| member_type_text(&krate_text, t.as_ref()))
                .collect()
        };
        if !tuples.contains(&args) {
            tuples.push(args);
        }
    }
    tuples
}

/// The message of a C++ template's instance the PTX lacks, with a note giving the explicit
/// instantiation to add.
fn instance_message(
    kernel: &Kernel,
    members: &cuda_kernel_syntax::ast::Members,
    for_what: &str,
    asked_types: &[String],
    shown: &str,
    notes: &mut Vec<String>,
) -> String {
    // nvcc compiles a template only for the instances the .cu names: the explicit
    // instantiation to add, with the values asked and, as C++ spells them only for a type
    // it knows, the types of an instance there is.
    let first = &members.entries[0];
    let mut types = first.types.iter();
    let mut example_types = Vec::new();
    let mut sentinels = Vec::new();
    let mut example: Vec<String> = Vec::new();
    for (i, generic) in kernel.generics.iter().enumerate() {
        match generic {
            KernelGeneric::Type(_) => {
                let rust = match types.next() {
                    Some(Some(MemberType::Builtin(rust))) => rust.to_string(),
                    _ => String::new(),
                };
                example_types.push(rust.clone());
                example.push(rust);
            }
            KernelGeneric::Const { ident, .. } => {
                // Replaced by rustc's `{BM}` once the line is escaped.
                let sentinel = format!("\u{1}{i}\u{1}");
                sentinels.push((sentinel.clone(), asked_of(ident)));
                example.push(sentinel);
            }
        }
    }
    let example: Vec<&str> = example.iter().map(String::as_str).collect();
    if let Some(line) = cuda_kernel_syntax::cuda::instantiation(kernel, &example) {
        let mut line = escape(&line);
        for (sentinel, asked) in &sentinels {
            line = line.replace(sentinel, asked);
        }
        let which = match example_types.is_empty() {
            true => "add this one to it".to_string(),
            false => format!(
                "add one for `{}` as there is one for `{}`",
                asked_types.join(", "),
                escape(&example_types.join(", "))
            ),
        };
        notes.push(format!(
            "for {for_what} named at the call: nvcc compiles a template only for the \
             instances the .cu instantiates; {which}: `{line}`"
        ));
    }
    format!(
        "{} has no instance of the template `{}` for {for_what}: its instances are {}",
        escape(&members.file),
        escape(&kernel.symbol),
        escape(shown)
    )
}

/// Text for `format!` inside `on_unimplemented`: braces doubled.
fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// What rustc writes for an argument of the call: `{T}` is the type named, `{BM}` the value.
fn asked_of(ident: &Ident) -> String {
    format!("{{{}}}", ident.unraw())
}

/// A member's type argument in generated code, in text: a primitive as is, another built-in
/// type under the runtime (`::cuda_kernel::half::f16`), a path the declaration named as written,
/// and `()` where unknown (which no call names).
pub(super) fn member_type_text(krate: &str, ty: Option<&MemberType>) -> String {
    match ty {
        Some(MemberType::Builtin(rust)) if cuda_kernel_syntax::types::primitive(rust).is_some() => {
            rust.to_string()
        }
        Some(MemberType::Builtin(rust)) => format!("{krate}::{rust}"),
        Some(MemberType::Path(text)) if syn::parse_str::<syn::Path>(text).is_ok() => text.clone(),
        _ => "()".to_string(),
    }
}

/// Every instance of a C++ template, as the Rust that loads it with the C++ it is:
/// `` `ScaleKernel::<cuda_kernel::half::bf16>` (scale_kernel<__nv_bfloat16>(...)) ``.
pub(super) fn instances_as_rust(
    krate: &Path,
    kernel: &Kernel,
    members: &cuda_kernel_syntax::ast::Members,
) -> Vec<String> {
    let krate_text = quote!(#krate).to_string().replace(' ', "");
    let krate_text = krate_text.trim_start_matches("::");
    let ty_name = kernel.type_ident();
    members
        .entries
        .iter()
        .map(|m| {
            // A device function is no generic argument but the name `load` takes.
            let args: Vec<String> = m
                .args
                .iter()
                .filter(|a| !matches!(a, cuda_kernel_syntax::cpp::TemplateArg::Function { .. }))
                .map(|a| a.rust(krate_text))
                .collect();
            let ty = match args.is_empty() {
                true => ty_name.to_string(),
                false => format!("{ty_name}::<{}>", args.join(", ")),
            };
            let named = match &m.run_time_name {
                Some(name) if kernel.device_fn.is_some() => format!(" loaded by \"{name}\""),
                _ => String::new(),
            };
            format!(
                "`{ty}`{named} ({})",
                cuda_kernel_syntax::demangle::shown(&m.symbol)
            )
        })
        .collect()
}
