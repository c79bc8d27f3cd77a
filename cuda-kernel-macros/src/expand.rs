//! Generating a typed launcher per kernel: a layout constant plus calls into the runtime.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ItemForeignMod, Path};

use std::path::PathBuf;

use crate::ast::{Kernel, ParamKind};
use crate::ptx_check::{self, LayoutAssertion};
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
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let ptx_file = block_args
        .ptx
        .as_ref()
        .and_then(|lit| ptx_check::read_ptx(&mut cx, lit, manifest_dir.as_deref()));
    let assertions = match &ptx_file {
        Some(file) => ptx_check::check_against_ptx(&mut cx, &block, file),
        None => Vec::new(),
    };
    let krate = &block_args.krate;
    if cx.has_errors() {
        let errors = cx.to_compile_errors();
        let stand_ins = block.kernels.iter().map(|k| expand_stand_in(krate, k));
        return quote! { #errors #(#stand_ins)* };
    }
    let kernels = block.kernels.iter().enumerate().map(|(i, kernel)| {
        let assertions = assertions.iter().filter(|a| a.kernel == i);
        expand_kernel(krate, kernel, assertions)
    });
    // Makes the crate rebuild when the PTX file changes.
    let track = ptx_file.map(|file| {
        let path = file.path.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = include_bytes!(#path);
        )
    });
    quote! { #(#kernels)* #track }
}

/// The generated type, its constants, `load` and `launch`.
fn expand_kernel<'a>(
    krate: &Path,
    kernel: &Kernel,
    assertions: impl Iterator<Item = &'a LayoutAssertion>,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let ty = kernel.type_ident();
    let vis = &kernel.vis;
    let attrs = &kernel.attrs;
    let symbol = kernel.symbol();
    let type_docs = type_docs(kernel, &symbol);
    let slot_count = proc_macro2::Literal::usize_unsuffixed(kernel.params.len());
    let slots = kernel.params.iter().map(|param| {
        let name = param.ident.unraw().to_string();
        let param_ty = &param.ty;
        // Spanned on the type, so a type that is not a parameter is reported there.
        quote_spanned!(param_ty.span()=> #p::ParamSlot::of::<#param_ty>(#name))
    });

    let mut args = Vec::new();
    let mut borrows = Vec::new();
    let mut pack_args = Vec::new();
    let mut pack_values = Vec::new();
    let mut puts = Vec::new();
    for (i, param) in kernel.params.iter().enumerate() {
        let (index, name) = (proc_macro2::Literal::usize_unsuffixed(i), &param.ident);
        puts.push(quote!(__buf.put(&#ty::LAYOUT.params[#index], &#name);));
        match param.kind() {
            ParamKind::ConstPtr(elem) => {
                let (ptr, sync) = (format_ident!("__ptr{i}"), format_ident!("__sync{i}"));
                args.push(quote!(#name: &impl #p::DevicePtr<#elem>));
                borrows.push(quote!(let (#ptr, #sync) = #p::DevicePtr::device_ptr(#name, stream);));
                pack_args.push(quote!(#name: #p::CUdeviceptr));
                pack_values.push(quote!(#ptr));
            }
            ParamKind::MutPtr(elem) => {
                let (ptr, sync) = (format_ident!("__ptr{i}"), format_ident!("__sync{i}"));
                args.push(quote!(#name: &mut impl #p::DevicePtrMut<#elem>));
                borrows.push(
                    quote!(let (#ptr, #sync) = #p::DevicePtrMut::device_ptr_mut(#name, stream);),
                );
                pack_args.push(quote!(#name: #p::CUdeviceptr));
                pack_values.push(quote!(#ptr));
            }
            ParamKind::Value => {
                let param_ty = &param.ty;
                args.push(quote!(#name: #param_ty));
                pack_args.push(quote!(#name: #param_ty));
                pack_values.push(quote!(#name));
            }
        }
    }
    let layout_checks: Vec<_> = assertions.map(|a| {
        let param_ty = &kernel.params[a.param].ty;
        let (size, align, message) = (a.size, a.align, &a.message);
        // A trait bound rather than a const panic: rustc reports an unsatisfied bound at the
        // spanned tokens with the trait's message, but a const panic at the attribute. Every
        // token of the call is spanned on the type (paths come in through `use`), so that
        // rustc can point there.
        let call = quote_spanned! {param_ty.span()=>
            matches_ptx::<Bool<{
                <#param_ty as KernelParam>::SIZE == #size && <#param_ty as KernelParam>::ALIGN == #align
            }>>()
        };
        quote! {
            #(#attrs)*
            const _: () = {
                use #p::{Bool, KernelParam};
                #[diagnostic::on_unimplemented(message = #message, label = "does not match the PTX")]
                trait MatchesPtx {}
                impl MatchesPtx for Bool<true> {}
                const fn matches_ptx<T: MatchesPtx>() {}
                #call
            };
        }
    }).collect();
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

            /// Packs arguments into the parameter buffer [`launch`](Self::launch) hands to the
            /// driver, with device memory given as addresses (`CUdeviceptr`). Needs no GPU and
            /// allocates nothing: for inspecting or testing what a launch sends.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub fn pack(#(#pack_args),*) -> #p::ParamBuffer<{ #ty::LAYOUT.size }> {
                let mut __buf = #p::ParamBuffer::<{ #ty::LAYOUT.size }>::new();
                #(#puts)*
                __buf
            }

            #[doc = #launch_doc]
            #safety_doc
            #[inline]
            // The kernel's C signature fixes the argument count.
            #[allow(clippy::too_many_arguments)]
            pub #unsafety fn launch(
                &self,
                stream: &#p::CudaStream,
                config: impl #p::core::convert::Into<#p::Config>,
                #(#args),*
            ) -> #p::core::result::Result<(), #p::Error> {
                #(#borrows)*
                let mut __buf = #ty::pack(#(#pack_values),*);
                // SAFETY: the buffer holds every parameter at the offset the declaration gives it;
                // the declaration's soundness is the caller's (unsafe fn) or its author's (safe fn).
                // The device-pointer guards above live until after the launch is queued.
                unsafe {
                    #p::launch_packed(
                        &self.__function,
                        stream,
                        &#p::core::convert::Into::into(config),
                        &#ty::LAYOUT,
                        __buf.bytes_mut(),
                    )
                }
            }

            /// Sets the configuration and arguments of `node`, a kernel node of the
            /// instantiated `graph` that launches this kernel (see
            /// `cuda_kernel::graph::kernel_nodes`); the graph's next replay uses them. Arguments
            /// are typed as for [`launch`](Self::launch); `stream` orders the device-memory
            /// borrows, as for a launch.
            ///
            /// # Safety
            ///
            /// As for an unsafe `launch`, and the memory the arguments point to must stay valid
            /// for every replay of the graph.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn set_graph_node(
                &self,
                graph: &#p::CudaGraph,
                node: #p::KernelNode,
                stream: &#p::CudaStream,
                config: impl #p::core::convert::Into<#p::Config>,
                #(#args),*
            ) -> #p::core::result::Result<(), #p::Error> {
                #(#borrows)*
                let mut __buf = #ty::pack(#(#pack_values),*);
                // SAFETY: as for launch; the caller keeps the memory alive across replays.
                unsafe {
                    #p::set_kernel_node(
                        graph,
                        node,
                        &self.__function,
                        &#p::core::convert::Into::into(config),
                        __buf.bytes_mut(),
                    )
                }
            }
        }

        // Evaluates the layout here, so a signature over the size limit fails to compile even
        // if it is never launched.
        #(#attrs)*
        const _: #p::ParamLayout = #ty::LAYOUT;

        #(#layout_checks)*
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
    let args: Vec<_> = kernel
        .params
        .iter()
        .map(|param| {
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
        })
        .collect();
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
                config: impl #p::core::convert::Into<#p::Config>,
                #(#args),*
            ) -> #p::core::result::Result<(), #p::Error> {
                #p::core::unreachable!()
            }
            pub unsafe fn set_graph_node(
                &self,
                graph: &#p::CudaGraph,
                node: #p::KernelNode,
                stream: &#p::CudaStream,
                config: impl #p::core::convert::Into<#p::Config>,
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
