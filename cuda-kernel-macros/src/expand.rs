//! Generating a typed launcher per kernel: a layout constant plus calls into the runtime.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ItemForeignMod, Path};

use std::path::PathBuf;

use cuda_kernel_syntax::ast::{Kernel, ParamKind};
use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{attr, check, parse, ptx_check};

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
    let mut block = parse::parse_block(&mut cx, item);
    // Unlike cxx, checking does not depend on a complete parse (no name resolution across
    // items), so the kernels that parsed are checked even after parse errors: one build then
    // reports every mistake.
    check::check_block(&mut cx, &block);
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let ptx_file = block_args
        .ptx
        .as_ref()
        .and_then(|lit| ptx_check::read_ptx(&mut cx, lit, manifest_dir.as_deref()));
    if let Some(file) = &ptx_file {
        ptx_check::check_against_ptx(&mut cx, &mut block, file);
    }
    let krate = &block_args.krate;
    if cx.has_errors() {
        let errors = cx.to_compile_errors();
        let stand_ins = block
            .kernels
            .iter()
            .map(|k| expand_launcher(krate, k, Body::StandIn));
        return quote! { #errors #(#stand_ins)* };
    }
    let kernels = block
        .kernels
        .iter()
        .map(|k| expand_launcher(krate, k, Body::Real));
    // Makes the crate rebuild when the PTX file changes.
    let track = ptx_file.map(|file| {
        let path = file.path.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = include_bytes!(#path);
        )
    });
    quote! { #(#kernels)* #track }
}

/// What the generated methods do: launch, or (beside errors) nothing, with `unreachable!()`
/// bodies that keep call sites resolving so the real errors are not buried under secondary
/// ones. Both have the same surface, generated once by [`expand_launcher`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    Real,
    StandIn,
}

/// The generated type with its constants and methods, and the compile-time checks of a real
/// launcher.
fn expand_launcher(krate: &Path, kernel: &Kernel, body: Body) -> TokenStream {
    let p = quote!(#krate::__private);
    let ty = kernel.type_ident();
    let vis = &kernel.vis;
    let attrs = &kernel.attrs;
    let symbol = &kernel.symbol;
    let real = body == Body::Real;
    let type_docs = type_docs(kernel);
    let args = launcher_args(&p, kernel, body);
    let (unsafety, safety_doc) = launch_safety(kernel);

    // `pack` takes device memory as addresses, everything else as for `launch`.
    let pack_args = kernel.params.iter().map(|param| {
        let name = if real {
            param.ident.clone()
        } else {
            format_ident!("_")
        };
        match (param.kind(), &param.type_error) {
            (_, Some(_)) => quote!(#name: impl #p::core::marker::Sized),
            (ParamKind::Value, None) => {
                let param_ty = &param.ty;
                quote!(#name: #param_ty)
            }
            _ => quote!(#name: #p::CUdeviceptr),
        }
    });
    let unreachable = quote!(#p::core::unreachable!());
    let bodies = if real {
        real_bodies(&p, kernel)
    } else {
        Bodies {
            layout: quote!(#p::ParamLayout::EMPTY),
            load: unreachable.clone(),
            function: unreachable.clone(),
            pack: unreachable.clone(),
            with_packed: unreachable.clone(),
            launch: unreachable.clone(),
            set_graph_node: unreachable,
        }
    };
    let Bodies {
        layout,
        load,
        function,
        pack,
        with_packed,
        launch,
        set_graph_node,
    } = bodies;
    let stand_in_allows = (!real)
        .then(|| quote!(#[allow(dead_code, unused_variables, clippy::diverging_sub_expression)]));

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
    let checks = real.then(|| expand_checks(&p, kernel));

    quote! {
        #(#type_docs)*
        #(#attrs)*
        #stand_in_allows
        #[derive(Debug, Clone)]
        #vis struct #ty {
            __function: #p::CudaFunction,
        }

        #(#attrs)*
        #stand_in_allows
        impl #ty {
            #[doc = #name_doc]
            pub const NAME: &'static str = #symbol;

            /// Where each parameter sits in the launch's parameter buffer, as the device lays
            /// it out.
            pub const LAYOUT: #p::ParamLayout = #layout;

            #[doc = #load_doc]
            pub fn load(
                module: &#p::Arc<#p::CudaModule>,
            ) -> #p::core::result::Result<Self, #p::Error> {
                #load
            }

            /// The loaded function, for attributes and occupancy queries.
            pub fn function(&self) -> &#p::CudaFunction {
                #function
            }

            /// Packs arguments into the parameter buffer [`launch`](Self::launch) hands to the
            /// driver, with device memory given as addresses (`CUdeviceptr`). Needs no GPU and
            /// allocates nothing: for inspecting or testing what a launch sends.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub fn pack(#(#pack_args),*) -> #p::ParamBuffer<{ #ty::LAYOUT.size }> {
                #pack
            }

            /// Borrows the device memory among the arguments on `stream` (so the work queued
            /// by `then` orders itself after earlier writes to it, and later work after it),
            /// packs the arguments and hands `then` the buffer while the borrows are held.
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn __with_packed<__R>(
                stream: &#p::CudaStream,
                #(#args,)*
                then: impl #p::core::ops::FnOnce(&mut [u8]) -> __R,
            ) -> __R {
                #with_packed
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
                #launch
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
                #set_graph_node
            }
        }

        #checks
    }
}

/// The method bodies of a real launcher.
struct Bodies {
    layout: TokenStream,
    load: TokenStream,
    function: TokenStream,
    pack: TokenStream,
    with_packed: TokenStream,
    launch: TokenStream,
    set_graph_node: TokenStream,
}

fn real_bodies(p: &TokenStream, kernel: &Kernel) -> Bodies {
    let ty = kernel.type_ident();
    let slot_count = proc_macro2::Literal::usize_unsuffixed(kernel.params.len());
    let slots = kernel.params.iter().map(|param| {
        let name = param.ident.unraw().to_string();
        let param_ty = &param.ty;
        // Spanned on the type, so a type that is not a parameter is reported there.
        quote_spanned!(param_ty.span()=> #p::ParamSlot::of::<#param_ty>(#name))
    });
    let puts = kernel.params.iter().enumerate().map(|(i, param)| {
        let (index, name) = (proc_macro2::Literal::usize_unsuffixed(i), &param.ident);
        quote!(__buf.put(&#ty::LAYOUT.params[#index], &#name);)
    });
    let mut borrows = Vec::new();
    let mut pack_values = Vec::new();
    for (i, param) in kernel.params.iter().enumerate() {
        let name = &param.ident;
        let (ptr, sync) = (format_ident!("__ptr{i}"), format_ident!("__sync{i}"));
        match param.kind() {
            ParamKind::ConstPtr(_) => {
                borrows.push(quote!(let (#ptr, #sync) = #p::DevicePtr::device_ptr(#name, stream);));
                pack_values.push(quote!(#ptr));
            }
            ParamKind::MutPtr(_) => {
                borrows.push(
                    quote!(let (#ptr, #sync) = #p::DevicePtrMut::device_ptr_mut(#name, stream);),
                );
                pack_values.push(quote!(#ptr));
            }
            ParamKind::Value => pack_values.push(quote!(#name)),
        }
    }
    let names: Vec<_> = kernel.params.iter().map(|param| &param.ident).collect();
    Bodies {
        layout: quote! {{
            const __SLOTS: [#p::ParamSlot; #slot_count] = #p::ParamLayout::place([#(#slots),*]);
            #p::ParamLayout::from_slots(&__SLOTS)
        }},
        load: quote! {
            #p::load_function(module, #ty::NAME, &#ty::LAYOUT).map(|__function| #ty { __function })
        },
        function: quote!(&self.__function),
        pack: quote! {
            let mut __buf = #p::ParamBuffer::<{ #ty::LAYOUT.size }>::new();
            #(#puts)*
            __buf
        },
        // The device-pointer guards are held by name (not `_`) until `then` has queued its
        // work.
        with_packed: quote! {
            #(#borrows)*
            let mut __buf = #ty::pack(#(#pack_values),*);
            then(__buf.bytes_mut())
        },
        launch: quote! {
            let __config = #p::core::convert::Into::into(config);
            #ty::__with_packed(stream, #(#names,)* |__params| {
                // SAFETY: the buffer holds every parameter at the offset the declaration gives
                // it; the declaration's soundness is the caller's (unsafe fn) or its author's
                // (safe fn).
                unsafe {
                    #p::launch_packed(&self.__function, stream, &__config, &#ty::LAYOUT, __params)
                }
            })
        },
        set_graph_node: quote! {
            let __config = #p::core::convert::Into::into(config);
            #ty::__with_packed(stream, #(#names,)* |__params| {
                // SAFETY: as for launch; the caller keeps the memory alive across replays.
                unsafe { #p::set_kernel_node(graph, node, &self.__function, &__config, __params) }
            })
        },
    }
}

/// The launcher's arguments after `stream` and `config`: device memory borrowed, values by
/// value. In a stand-in, unnamed (`_`, so that names the checks refused cannot cause errors of
/// their own), and a parameter whose type was refused takes any value.
fn launcher_args(p: &TokenStream, kernel: &Kernel, body: Body) -> Vec<TokenStream> {
    kernel
        .params
        .iter()
        .map(|param| {
            let name = match body {
                Body::Real => param.ident.clone(),
                Body::StandIn => format_ident!("_"),
            };
            if param.type_error.is_some() {
                return quote!(#name: impl #p::core::marker::Sized);
            }
            match param.kind() {
                ParamKind::ConstPtr(elem) => quote!(#name: &impl #p::DevicePtr<#elem>),
                ParamKind::MutPtr(elem) => quote!(#name: &mut impl #p::DevicePtrMut<#elem>),
                ParamKind::Value => {
                    let param_ty = &param.ty;
                    quote!(#name: #param_ty)
                }
            }
        })
        .collect()
}

/// Compile-time checks of a real launcher: the layout is evaluated (so a signature over the
/// size limit fails to compile even if never launched), and each size and alignment the PTX
/// check left to the compiler is asserted.
fn expand_checks(p: &TokenStream, kernel: &Kernel) -> TokenStream {
    let ty = kernel.type_ident();
    let attrs = &kernel.attrs;
    let layout_checks = kernel.params.iter().filter_map(|param| {
        let layout = param.ptx_layout.as_ref()?;
        let param_ty = &param.ty;
        let (size, align, message) = (layout.size, layout.align, &layout.message);
        // A trait bound rather than a const panic: rustc reports an unsatisfied bound at the
        // spanned tokens with the trait's message, but a const panic at the attribute. Every
        // token of the call is spanned on the type (paths come in through `use`), so that
        // rustc can point there.
        let call = quote_spanned! {param_ty.span()=>
            matches_ptx::<Bool<{
                <#param_ty as KernelParam>::SIZE == #size && <#param_ty as KernelParam>::ALIGN == #align
            }>>()
        };
        Some(quote! {
            #(#attrs)*
            const _: () = {
                use #p::{Bool, KernelParam};
                #[diagnostic::on_unimplemented(message = #message, label = "does not match the PTX")]
                trait MatchesPtx {}
                impl MatchesPtx for Bool<true> {}
                const fn matches_ptx<T: MatchesPtx>() {}
                #call
            };
        })
    });
    quote! {
        #(#attrs)*
        const _: #p::ParamLayout = #ty::LAYOUT;

        #(#layout_checks)*
    }
}

/// The user's doc comments, then a line on what the type is.
fn type_docs(kernel: &Kernel) -> Vec<TokenStream> {
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
        " Typed launcher for the CUDA kernel `{}({})`, generated by `#[kernel]`: \
         [`load`](Self::load) it from a module, then [`launch`](Self::launch) it.",
        kernel.symbol,
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
