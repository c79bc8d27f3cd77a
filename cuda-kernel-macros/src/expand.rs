//! Generating a typed launcher per kernel: a layout constant plus calls into the runtime.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemForeignMod, Path};

use crate::ast::{Kernel, ParamKind};
use crate::report::Errors;
use crate::{attr, check, parse};

/// `#[kernel]`: parse, check, expand, stopping after a phase that reported errors.
pub fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut cx = Errors::default();
    let block_args = attr::parse_block_args(&mut cx, args);
    let item = match syn::parse2::<ItemForeignMod>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            cx.error(
                input,
                "#[kernel] goes on an `unsafe extern \"C\" { ... }` block of kernel fn declarations",
            );
            return cx.to_compile_errors();
        }
    };
    let block = parse::parse_block(&mut cx, item);
    // Unlike cxx, checking does not depend on a complete parse (no name resolution across
    // items), so the kernels that parsed are checked even after parse errors: one build then
    // reports every mistake.
    check::check_block(&mut cx, &block);
    let krate = &block_args.krate;
    if cx.has_errors() {
        let errors = cx.to_compile_errors();
        let stand_ins = block.kernels.iter().map(|k| expand_stand_in(krate, k));
        return quote! { #errors #(#stand_ins)* };
    }
    let kernels = block.kernels.iter().map(|k| expand_kernel(krate, k));
    quote! { #(#kernels)* }
}

/// The generated type, its constants, `load` and `launch`.
fn expand_kernel(krate: &Path, kernel: &Kernel) -> TokenStream {
    let p = quote!(#krate::__private);
    let ty = kernel.type_ident();
    let vis = &kernel.vis;
    let attrs = &kernel.attrs;
    let symbol = kernel.symbol();
    let type_docs = type_docs(kernel, &symbol);
    let slot_count = proc_macro2::Literal::usize_unsuffixed(kernel.params.len());
    let slots = kernel.params.iter().map(|param| {
        let name = param.ident.to_string();
        let param_ty = &param.ty;
        // Spanned on the type, so a type that is not a parameter is reported there.
        quote_spanned!(param_ty.span()=> #p::ParamSlot::of::<#param_ty>(#name))
    });

    let mut args = Vec::new();
    let mut borrows = Vec::new();
    let mut puts = Vec::new();
    for (i, param) in kernel.params.iter().enumerate() {
        let (index, name) = (proc_macro2::Literal::usize_unsuffixed(i), &param.ident);
        match param.kind() {
            ParamKind::ConstPtr(elem) => {
                let (ptr, sync) = (format_ident!("__ptr{i}"), format_ident!("__sync{i}"));
                args.push(quote!(#name: &impl #p::DevicePtr<#elem>));
                borrows.push(quote!(let (#ptr, #sync) = #p::DevicePtr::device_ptr(#name, stream);));
                puts.push(quote!(__buf.put(&#ty::LAYOUT.params[#index], &#ptr);));
            }
            ParamKind::MutPtr(elem) => {
                let (ptr, sync) = (format_ident!("__ptr{i}"), format_ident!("__sync{i}"));
                args.push(quote!(#name: &mut impl #p::DevicePtrMut<#elem>));
                borrows.push(
                    quote!(let (#ptr, #sync) = #p::DevicePtrMut::device_ptr_mut(#name, stream);),
                );
                puts.push(quote!(__buf.put(&#ty::LAYOUT.params[#index], &#ptr);));
            }
            ParamKind::Value => {
                let param_ty = &param.ty;
                args.push(quote!(#name: #param_ty));
                puts.push(quote!(__buf.put(&#ty::LAYOUT.params[#index], &#name);));
            }
        }
    }
    let (unsafety, safety_doc) = launch_safety(kernel);
    let launch_doc = format!(
        " Launches `{symbol}` on `stream`: packs the arguments into one buffer laid out as\n \
         [`Self::LAYOUT`] says and passes it to `cuLaunchKernel`.\n\n \
         `*const T` parameters take `&impl DevicePtr<T>` and `*mut T` parameters\n \
         `&mut impl DevicePtrMut<T>` (a `CudaSlice`, `CudaView` or `CudaViewMut`); the launch\n \
         orders itself after earlier work on them, as cudarc's own launches do."
    );
    let name_doc = format!(" The kernel's entry symbol in its module: `{symbol}`.");
    let load_doc = format!(
        " Looks up `{symbol}` in `module` and checks its parameters against [`Self::LAYOUT`]\n \
         (on drivers of CUDA 12.4 or newer, which report them)."
    );

    quote! {
        #(#type_docs)*
        #(#attrs)*
        #[derive(Debug, Clone)]
        #vis struct #ty {
            __function: #p::CudaFunction,
        }

        #(#attrs)*
        impl #ty {
            #[doc = #name_doc]
            pub const NAME: &'static str = #symbol;

            const __SLOTS: [#p::ParamSlot; #slot_count] = #p::ParamLayout::place([#(#slots),*]);

            /// Where each parameter sits in the launch's parameter buffer, as the device lays
            /// it out.
            pub const LAYOUT: #p::ParamLayout = #p::ParamLayout::from_slots(&#ty::__SLOTS);

            #[doc = #load_doc]
            pub fn load(
                module: &#p::Arc<#p::CudaModule>,
            ) -> #p::core::result::Result<Self, #p::Error> {
                #p::load_function(module, #ty::NAME, &#ty::LAYOUT)
                    .map(|__function| #ty { __function })
            }

            /// The loaded function, for attributes and occupancy queries.
            pub fn function(&self) -> &#p::CudaFunction {
                &self.__function
            }

            #[doc = #launch_doc]
            #safety_doc
            #[inline]
            // The kernel's C signature fixes the argument count.
            #[allow(clippy::too_many_arguments)]
            pub #unsafety fn launch(
                &self,
                stream: &#p::CudaStream,
                config: impl #p::core::convert::Into<#p::LaunchConfig>,
                #(#args),*
            ) -> #p::core::result::Result<(), #p::Error> {
                #(#borrows)*
                let mut __buf = #p::ParamBuffer::<{ #ty::LAYOUT.size }>::new();
                #(#puts)*
                // SAFETY: the buffer holds every parameter at the offset the declaration gives it;
                // the declaration's soundness is the caller's (unsafe fn) or its author's (safe fn).
                // The device-pointer guards above live until after the launch is queued.
                unsafe {
                    #p::launch_packed(
                        &self.__function,
                        stream,
                        #p::core::convert::Into::into(config),
                        __buf.bytes_mut(),
                    )
                }
            }
        }

        // Evaluates the layout here, so a signature over the size limit fails to compile even
        // if it is never launched.
        #(#attrs)*
        const _: #p::ParamLayout = #ty::LAYOUT;
    }
}

/// On errors: the type with the same methods and `unreachable!()` bodies, so call sites still
/// resolve and the real errors are not buried under secondary ones. Parameters whose types were
/// rejected take any value.
fn expand_stand_in(krate: &Path, kernel: &Kernel) -> TokenStream {
    let p = quote!(#krate::__private);
    let ty = kernel.type_ident();
    let vis = &kernel.vis;
    let symbol = kernel.symbol();
    // Unnamed (`_`), so that names the checks refused cannot cause errors of their own.
    let args = kernel.params.iter().map(|param| {
        if check::param_type_error(&param.ty).is_some() {
            return quote!(_: impl #p::core::marker::Sized);
        }
        match param.kind() {
            ParamKind::ConstPtr(elem) => quote!(_: &impl #p::DevicePtr<#elem>),
            ParamKind::MutPtr(elem) => quote!(_: &mut impl #p::DevicePtrMut<#elem>),
            ParamKind::Value => {
                let param_ty = &param.ty;
                quote!(_: #param_ty)
            }
        }
    });
    let unsafety = (!kernel.safe).then(|| quote!(unsafe));
    quote! {
        #[allow(dead_code, unused_variables, missing_docs)]
        #[derive(Debug, Clone)]
        #vis struct #ty;

        #[allow(
            dead_code,
            unused_variables,
            missing_docs,
            clippy::missing_safety_doc,
            clippy::too_many_arguments
        )]
        impl #ty {
            pub const NAME: &'static str = #symbol;
            pub const LAYOUT: #p::ParamLayout = #p::ParamLayout::EMPTY;
            pub fn load(module: &#p::Arc<#p::CudaModule>) -> #p::core::result::Result<Self, #p::Error> {
                #p::core::unreachable!()
            }
            pub fn function(&self) -> &#p::CudaFunction {
                #p::core::unreachable!()
            }
            pub #unsafety fn launch(
                &self,
                stream: &#p::CudaStream,
                config: impl #p::core::convert::Into<#p::LaunchConfig>,
                #(#args),*
            ) -> #p::core::result::Result<(), #p::Error> {
                #p::core::unreachable!()
            }
        }
    }
}

/// The user's doc comments, then a line on what the type is.
fn type_docs(kernel: &Kernel, symbol: &str) -> Vec<TokenStream> {
    let mut docs: Vec<TokenStream> = kernel.docs.iter().map(|d| quote!(#d)).collect();
    if !docs.is_empty() {
        docs.push(quote!(#[doc = ""]));
    }
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|p| format!("{}: {}", p.ident, check::type_text(&p.ty)))
        .collect();
    let line = format!(
        " Typed launcher for the CUDA kernel `{symbol}({})`, generated by `#[kernel]`: \
         [`load`](Self::load) it from a module, then [`launch`](Self::launch) it.",
        params.join(", ")
    );
    docs.push(quote!(#[doc = #line]));
    docs
}

/// `unsafe` and a `# Safety` section, or nothing for a kernel declared `safe fn`.
fn launch_safety(kernel: &Kernel) -> (Option<Ident>, TokenStream) {
    if kernel.safe {
        return (None, quote!());
    }
    let doc = " # Safety\n\n The kernel runs on the GPU with these arguments unchecked: the caller \
               guarantees that\n every access it makes through them stays inside the memory they \
               point to, for the\n grid and block sizes of `config`, and that the kernel \
               reads and writes them as\n declared (`*const` memory is not written).";
    (
        Some(Ident::new("unsafe", Span::call_site())),
        quote!(#[doc = ""] #[doc = #doc]),
    )
}
