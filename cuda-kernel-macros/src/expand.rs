//! Generating a typed launcher per kernel: a layout constant plus calls into the runtime.

use proc_macro2::{Delimiter, Ident, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ItemForeignMod, Path};

use std::path::PathBuf;

use cuda_kernel_syntax::ast::{
    Block, GlobalVar, Kernel, KernelGeneric, MemberType, ParamKind, is_void,
};
use cuda_kernel_syntax::itanium::CppType;
use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{attr, check, mangle, parse, ptx_check, types};

use crate::code::Code;

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
    let mut block = parse::parse_block(&mut cx, item, &block_args.defaults);
    // Unlike cxx, checking does not depend on a complete parse (no name resolution across
    // items), so the kernels that parsed are checked even after parse errors: one build then
    // reports every mistake.
    check::check_block(&mut cx, &block);
    if let Some((_, module)) = &block_args.module {
        check::check_module_name(&mut cx, &block, module);
    }
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let ptx_file = block_args
        .ptx
        .as_ref()
        .and_then(|lit| ptx_check::read_ptx(&mut cx, lit, manifest_dir.as_deref()));
    if let Some(file) = &ptx_file {
        ptx_check::check_against_ptx(&mut cx, &mut block, file);
    }
    let krate = &block_args.krate;
    let ptx_path = ptx_file
        .as_ref()
        .map(|file| file.path.to_string_lossy().into_owned());
    if cx.has_errors() {
        let errors = cx.to_compile_errors();
        let stand_ins = expand_items(krate, &block_args, &block, None, Body::StandIn);
        return quote! { #errors #stand_ins };
    }
    let items = expand_items(krate, &block_args, &block, ptx_path.as_deref(), Body::Real);
    // Makes the crate rebuild when the PTX file changes.
    let track = ptx_file.map(|file| {
        let path = file.path.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = include_bytes!(#path);
        )
    });
    quote! { #items #track }
}

/// Every generated item of the block: launchers, globals and the module type.
fn expand_items(
    krate: &Path,
    args: &attr::BlockArgs,
    block: &Block,
    ptx_path: Option<&str>,
    body: Body,
) -> TokenStream {
    let kernels = block
        .kernels
        .iter()
        .map(|k| expand_launcher(krate, k, body));
    let globals = block.globals.iter().map(|g| expand_global(krate, g, body));
    // A module named as a launcher is reported; generating both would only add a clash.
    let clashes = |name: &Ident| {
        block.kernels.iter().any(|k| k.type_ident() == *name)
            || block.globals.iter().any(|g| g.type_ident() == *name)
    };
    let module = args
        .module
        .as_ref()
        .filter(|(_, name)| !clashes(name))
        .map(|m| {
            let shown = args
                .ptx
                .as_ref()
                .map(syn::LitStr::value)
                .unwrap_or_default();
            expand_module(krate, m, block, (ptx_path, &shown), body)
        });
    // The runtime under a short name for the launchers (one glob import for the block; it
    // stays when `cfg` leaves every launcher out).
    let prelude = (!block.kernels.is_empty()).then(|| {
        quote! {
            #[allow(unused_imports)]
            use #krate::__prelude::*;
        }
    });
    let layouts = (body == Body::Real).then(|| layouts_evaluated(block));
    quote! { #prelude #(#kernels)* #layouts #(#globals)* #module }
}

/// The runtime under the short name the block's glob import of `__prelude` gives it, which
/// keeps the generated code short (an identifier: interpolating it costs no call across the
/// proc-macro bridge, as a token stream would).
fn runtime() -> Ident {
    Ident::new("__ck", Span::call_site())
}

/// The items evaluating every plain launcher's layout, so that a signature over the size limit
/// fails to compile even if never launched: one array for the block (each item costs the
/// declaring crate's every rebuild), and an item of its own for a launcher under `cfg`.
fn layouts_evaluated(block: &Block) -> TokenStream {
    let p = runtime();
    let mut together = Vec::new();
    let mut apart = Vec::new();
    for kernel in block.kernels.iter().filter(|k| !k.symbol_at_load()) {
        let ty = kernel.type_ident();
        let cfg: Vec<_> = kernel
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
            .collect();
        if cfg.is_empty() {
            together.push(ty);
        } else {
            apart.push(quote!(#(#cfg)* const _: #p::ParamLayout = #ty::LAYOUT;));
        }
    }
    let count = proc_macro2::Literal::usize_unsuffixed(together.len());
    let together = (!together.is_empty())
        .then(|| quote!(const _: [#p::ParamLayout; #count] = [#(#together::LAYOUT),*];));
    quote!(#together #(#apart)*)
}

/// A device global: a type naming the variable, whose `load` finds it in a module as a typed
/// `DeviceGlobal`, and the compile-time check of its size the PTX check left to the compiler.
fn expand_global(krate: &Path, global: &GlobalVar, body: Body) -> TokenStream {
    let p = quote!(#krate::__private);
    let (docs, attrs, vis) = (&global.docs, &global.attrs, &global.vis);
    let ty = global.type_ident();
    let symbol = &global.symbol;
    let value_ty = match &global.type_error {
        Some(_) => quote!(u8),
        None => {
            let ty = &global.ty;
            quote!(#ty)
        }
    };
    let load = match body {
        Body::Real => quote!(#p::DeviceGlobal::load(module, stream, Self::NAME)),
        Body::StandIn => quote!(#p::core::unreachable!()),
    };
    let line = format!(
        " The device global `{symbol}` (a `__constant__` or `__device__` variable), generated by \
         `#[kernel]`: [`load`](Self::load) finds it in a module, typed."
    );
    let check = match (&global.ptx_layout, body) {
        (Some(layout), Body::Real) => {
            let (size, message) = (layout.size, &layout.message);
            let value = &global.ty;
            let condition = quote_spanned! {value.span()=>
                <#value as KernelParam>::SIZE == #size
            };
            ptx_assertion(&p, attrs, value, condition, message)
        }
        _ => quote!(),
    };
    quote! {
        #(#docs)*
        #[doc = #line]
        #(#attrs)*
        #[derive(Debug, Clone, Copy)]
        #vis struct #ty;

        #(#attrs)*
        #[allow(unreachable_code)]
        impl #ty {
            /// The variable's symbol in its module.
            pub const NAME: &str = #symbol;

            /// Finds the variable in `module` (with a stream of the module's context) and checks
            /// its size against the declared type.
            #[inline]
            pub fn load(
                module: &#p::Arc<#p::CudaModule>,
                stream: &#p::Arc<#p::CudaStream>,
            ) -> #p::core::result::Result<#p::DeviceGlobal<#value_ty>, #p::Error> {
                #load
            }
        }

        #check
    }
}

/// `module = Name`: a type holding one loaded launcher per kernel of the block, loaded at once
/// from the PTX it embeds.
fn expand_module(
    krate: &Path,
    (vis, name): &(syn::Visibility, Ident),
    block: &Block,
    (ptx_path, ptx_shown): (Option<&str>, &str),
    body: Body,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let shown = ptx_shown;
    // Generic and run-time named kernels have no one type to hold: their launchers are loaded
    // on first use into the module type's cache, through a method per declaration.
    let concrete: Vec<&Kernel> = block
        .kernels
        .iter()
        .filter(|k| !k.symbol_at_load())
        .collect();
    let cached = block
        .kernels
        .iter()
        .filter(|k| k.symbol_at_load())
        .map(|k| cached_method(&p, k, body));
    let fields = concrete.iter().map(|k| {
        let (attrs, kernel_vis, field, ty) = (&k.attrs, &k.vis, &k.ident, k.type_ident());
        let doc = format!(" `{}`, loaded.", k.symbol);
        quote!(#(#attrs)* #[doc = #doc] #kernel_vis #field: #ty)
    });
    let inits = concrete.iter().map(|k| {
        let (attrs, field, ty) = (&k.attrs, &k.ident, k.type_ident());
        quote!(#(#attrs)* #field: #ty::load(module)?)
    });
    let global_fields = block.globals.iter().map(|g| {
        let (attrs, global_vis, field, ty) = (&g.attrs, &g.vis, g.field_ident(), &g.ty);
        let doc = format!(" The device global `{}`.", g.symbol);
        quote!(#(#attrs)* #[doc = #doc] #global_vis #field: #p::DeviceGlobal<#ty>)
    });
    let global_inits = block.globals.iter().map(|g| {
        let (attrs, field, ty) = (&g.attrs, g.field_ident(), g.type_ident());
        quote!(#(#attrs)* #field: #ty::load(module, stream)?)
    });
    // Looking up globals takes a stream of the module's context (cudarc's get_global).
    let (stream_param, stream_arg, stream_doc) = if block.globals.is_empty() {
        (quote!(), quote!(), "")
    } else {
        (
            quote!(, stream: &#p::Arc<#p::CudaStream>),
            quote!(, &ctx.default_stream()),
            " `stream`, of the module's context, looks up the device globals.",
        )
    };
    let unreachable = quote!(#p::core::unreachable!());
    let (ptx, from_module, stand_in_allows) = match (body, ptx_path) {
        (Body::Real, Some(path)) => (
            quote!(include_str!(#path)),
            quote!(#p::core::result::Result::Ok(#name {
                #(#inits,)*
                #(#global_inits,)*
                launchers: #p::KernelCache::new(module),
                module: #p::Arc::clone(module),
            })),
            None,
        ),
        _ => (
            quote!(""),
            unreachable,
            Some(quote!(#[allow(dead_code, unused_variables, unreachable_code)])),
        ),
    };
    let names: Vec<String> = block
        .kernels
        .iter()
        .map(|k| format!("`{}`", k.symbol))
        .collect();
    let type_doc = format!(
        " The kernels {} with their PTX, generated by `#[kernel(module = ...)]`:\n          [`load`](Self::load) loads the PTX into a context and every kernel from it, checking each\n          declaration as the kernels' own `load` does.",
        names.join(", ")
    );
    quote! {
        #[doc = #type_doc]
        #stand_in_allows
        #[derive(Debug, Clone)]
        // Fields are named as the kernels are (`transposeNaive`); rustc reads this lint's level
        // on the struct, not on its fields.
        #[allow(non_snake_case)]
        #vis struct #name {
            #(#fields,)*
            #(#global_fields,)*
            /// The generic kernels' instances and family members, and kernels named at run
            /// time, each loaded and checked on first use (through the methods named after them).
            pub launchers: #p::KernelCache,
            /// The loaded module.
            pub module: #p::Arc<#p::CudaModule>,
        }

        #stand_in_allows
        impl #name {
            /// The PTX the kernels are loaded from, embedded at compile time.
            pub const PTX: &'static str = #ptx;

            /// Loads [`Self::PTX`] into `ctx` as a module and every kernel from it.
            #[inline]
            pub fn load(
                ctx: &#p::Arc<#p::CudaContext>,
            ) -> #p::core::result::Result<Self, #p::Error> {
                let module = #p::load_ptx_file(ctx, #name::PTX, #shown)?;
                #name::from_module(&module #stream_arg)
            }

            /// Loads every kernel from `module`, a module of the same kernels (compiled for
            /// another architecture, say).
            #[doc = #stream_doc]
            #[inline]
            pub fn from_module(
                module: &#p::Arc<#p::CudaModule> #stream_param
            ) -> #p::core::result::Result<Self, #p::Error> {
                #from_module
            }

            #(#cached)*
        }
    }
}

/// The module type's method for a generic or run-time named kernel: its launcher for the type
/// arguments (and the name), from the module's cache.
fn cached_method(p: &dyn ToTokens, kernel: &Kernel, body: Body) -> TokenStream {
    let (attrs, vis, method, ty) = (
        &kernel.attrs,
        &kernel.vis,
        &kernel.ident,
        kernel.type_ident(),
    );
    let (_, ty_generics, _) = generics(p, kernel);
    // The cache keys launchers by their types' `TypeId`: type arguments are `'static`.
    let bounded = bounded_generics_with(p, kernel, quote!(+ 'static));
    let symbol = &kernel.symbol;
    let (param, call, doc) = match &kernel.run_time_name {
        Some(name) => {
            let arg = format_ident!("{}", sanitized(name));
            (
                quote!(, #arg: &str),
                quote!(self.launchers.get_named::<#ty #ty_generics>(#arg)),
                format!(
                    " The launcher of `{symbol}` with `{{{name}}}` given by `{arg}`, loaded and \
                     checked on its first use and kept in [`launchers`](Self::launchers)."
                ),
            )
        }
        None => (
            quote!(),
            quote!(self.launchers.get::<#ty #ty_generics>()),
            format!(
                " The launcher of `{symbol}` for these arguments, loaded and checked on its \
                 first use and kept in [`launchers`](Self::launchers)."
            ),
        ),
    };
    let call = match body {
        Body::Real => call,
        Body::StandIn => quote!(#p::core::unreachable!()),
    };
    quote! {
        #(#attrs)*
        #[doc = #doc]
        #[inline]
        #[allow(non_snake_case)] // named as the kernel is (`matrixMulCUDA`)
        #vis fn #method<#(#bounded),*>(&self #param) -> #p::core::result::Result<&#ty #ty_generics, #p::Error> {
            #call
        }
    }
}

/// A placeholder's name as a Rust identifier (`op`; `r#type` for a keyword).
fn sanitized(name: &str) -> String {
    let ident: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // A keyword as a raw identifier (`r#type`), as the build step's generated names are.
    match ident.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        true => cuda_kernel_syntax::ast::rust_ident(&ident),
        false => format!("name_{ident}"),
    }
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
/// launcher. Every method delegates to the runtime (`__ck`, the block's glob import) in one
/// call. Written as [`Code`]: text, with the declaration's names and types spliced in.
fn expand_launcher(krate: &Path, kernel: &Kernel, body: Body) -> TokenStream {
    let full = format!("{}::__private", quote!(#krate));
    let ty = kernel.type_ident();
    let ck = runtime();
    let p = &ck;
    let attrs = &kernel.attrs;
    let symbol = &kernel.symbol;
    let real = body == Body::Real;
    let (unsafety, safety_doc) = launch_safety(kernel);
    let contract_methods = contract_methods(p, kernel, body);
    let contract_bounds = match (&kernel.contract, body) {
        (Some(_), Body::Real) => crate::contract::bounds(p, kernel).0,
        _ => quote!(),
    };
    // A method that only calls the runtime, or in a stand-in `unreachable!()`.
    let delegate = |call: &str| match body {
        Body::Real => format!("{{ {call} }}"),
        Body::StandIn => "{ __ck::core::unreachable!() }".to_string(),
    };
    let run_time = kernel
        .run_time_name
        .as_ref()
        .map(|name| format_ident!("{}", sanitized(name)));
    let (load, load_library, name_param) = match &run_time {
        Some(arg) => (
            delegate(&format!("__ck::Kernel::load_named(module, {arg})")),
            delegate(&format!("__ck::Kernel::load_library_named(library, {arg})")),
            format!(", {arg}: &str"),
        ),
        None => (
            delegate("__ck::Kernel::load(module)"),
            delegate("__ck::Kernel::load_library(library)"),
            String::new(),
        ),
    };
    let (member_bound, member_trait) = match real {
        true => member_check(krate, kernel),
        false => (None, None),
    };
    let member_bound = member_bound.unwrap_or_default();
    let checks = (real && !kernel.symbol_at_load()).then(|| expand_checks(p, kernel));
    let tensor_map_uses = tensor_map_uses(p, kernel);
    let (impl_generics, ty_generics, struct_generics) = generics(p, kernel);
    let type_params: Vec<Ident> = kernel
        .generics
        .iter()
        .filter_map(|g| match g {
            KernelGeneric::Type(ident) => Some(ident.clone()),
            KernelGeneric::Const { .. } => None,
        })
        .collect();
    let symbol_item = if let Some(arg) = &run_time {
        let body = if real {
            symbol_body(p, kernel, Some(quote!(#arg)), false)
        } else {
            quote!(#p::core::unreachable!())
        };
        let doc = format!(
            " The entry symbol of `{symbol}` with `{{{}}}` given by `{arg}`, in its module.",
            kernel.run_time_name.as_deref().unwrap_or_default()
        );
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn symbol_named(#arg: &str) -> ::std::string::String {
                #body
            }
        }
    } else if kernel.is_generic() {
        let body = if real {
            symbol_body(p, kernel, None, false)
        } else {
            quote!(#p::core::unreachable!())
        };
        let doc = format!(" The entry symbol of this instance of `{symbol}` in its module.");
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn symbol() -> ::std::string::String {
                #body
            }
        }
    } else {
        quote!()
    };
    let struct_names = real.then(|| struct_name_asserts(p, kernel));
    let kernel_impl = real.then(|| expand_kernel_impl(krate, kernel));

    // The parameters' names in text, where their spans do not matter (rustc points at `launch`'s).
    let names: Vec<String> = kernel.params.iter().map(|p| p.ident.to_string()).collect();
    let by_val = by_val(kernel);
    let mut c = Code::new();
    // The type.
    type_docs(&mut c, kernel);
    let stand_in_allows = match real {
        true => "",
        false => "#[allow(dead_code, unused_variables, clippy::diverging_sub_expression)]",
    };
    c.stream(&quote!(#(#attrs)*))
        .text(stand_in_allows)
        .text("#[derive(Debug, Clone)] #[repr(transparent)]")
        .stream(&kernel.vis.to_token_stream())
        .text("struct")
        .tokens(&ty)
        .stream(&struct_generics)
        .group(Delimiter::Parenthesis, |c| {
            c.text(&format!("{full}::Loaded"));
            if kernel.is_generic() {
                c.text(&format!(", {full}::PhantomData<fn() ->"))
                    .group(Delimiter::Parenthesis, |c| {
                        for t in &type_params {
                            c.tokens(t).text(",");
                        }
                    })
                    .text(">");
            }
        })
        .text(";");

    // Its constants and methods. The kernel's C signature fixes the argument count: `launch`
    // takes three more (clippy's limit is 7).
    c.stream(&quote!(#(#attrs)*)).text(stand_in_allows);
    if kernel.params.len() + 3 > 7 {
        c.text("#[allow(clippy::too_many_arguments)]");
    }
    c.text("impl")
        .stream(&impl_generics)
        .tokens(&ty)
        .stream(&ty_generics);
    c.group(Delimiter::Brace, |c| {
        if run_time.is_none() && !kernel.is_generic() {
            c.text("/// The kernel's entry symbol in its module.\npub const NAME: &str =")
                .text(&Code::string(symbol))
                .text(";");
        } else {
            c.stream(&symbol_item);
        }
        c.text(
            "/// Where each parameter sits in the launch's parameter buffer.\n\
             pub const LAYOUT: __ck::ParamLayout =",
        );
        if real {
            c.text("__ck::layout!").group(Delimiter::Parenthesis, |c| {
                for (i, param) in kernel.params.iter().enumerate() {
                    if i > 0 {
                        c.text(",");
                    }
                    c.text(&Code::string(&param.ident.unraw().to_string()))
                        .text(":");
                    match param.kind() {
                        ParamKind::TensorMap(..) => c.text("__ck::RawTensorMap"),
                        // Spanned on the type, so a type that is not a parameter type is
                        // reported there.
                        _ => c.tokens(&param.ty),
                    };
                }
            });
        } else {
            c.text("__ck::ParamLayout::EMPTY");
        }
        c.text(";");

        let doc = format!(" Looks up `{symbol}` in `module`, checked against the layout.");
        c.text(&format!(
            "#[doc = {}] #[inline] pub fn load(module: &__ck::Arc<__ck::CudaModule> {name_param}) \
             -> __ck::Result<Self>",
            Code::string(&doc)
        ))
        .stream(&member_bound)
        .text(&load);
        let doc = format!(
            " Looks up `{symbol}` in `library`, for every GPU, checked against the layout."
        );
        c.text(&format!(
            "#[doc = {}] #[inline] pub fn load_library(library: &__ck::Arc<__ck::Library> \
             {name_param}) -> __ck::Result<Self>",
            Code::string(&doc)
        ))
        .stream(&member_bound)
        .text(&load_library);
        c.text(
            "/// The function, for attributes and occupancy (`None` from a library).\n\
             #[inline] pub fn function(&self) -> __ck::core::option::Option<&__ck::CudaFunction>",
        )
        .text(&delegate("__ck::Kernel::function(self)"));

        // `pack` takes device memory as addresses, everything else as for `launch`.
        c.text(
            "/// The parameter buffer `launch` would pass, device memory given as addresses.\n\
             #[inline] pub fn pack",
        )
        .group(Delimiter::Parenthesis, |c| {
            for (param, name) in kernel.params.iter().zip(&names) {
                c.text(if real { name } else { "_" }).text(":");
                match (param.kind(), &param.type_error) {
                    (_, Some(_)) => c.text("impl __ck::core::marker::Sized"),
                    (ParamKind::Value, None) => c.tokens(&param.ty),
                    (ParamKind::TensorMap(..), None) => c.text("__ck::RawTensorMap"),
                    _ => c.text("__ck::CUdeviceptr"),
                };
                c.text(",");
            }
        })
        .text("-> __ck::ParamBytes");
        if real {
            c.group(Delimiter::Brace, |c| {
                c.text("__ck::pack::<Self, _>")
                    .group(Delimiter::Parenthesis, |c| {
                        arguments(c, kernel, &names, &by_val);
                    });
            });
        } else {
            c.text(&delegate(""));
        }

        c.stream(&contract_methods);

        let doc = format!(
            " Launches `{symbol}` on `stream`: each argument at its [`LAYOUT`](Self::LAYOUT) \
             offset, ordered after earlier work on its memory."
        );
        c.text(&format!("#[doc = {}] {safety_doc}", Code::string(&doc)))
            .text("#[track_caller] pub")
            .text(if unsafety {
                "unsafe fn launch"
            } else {
                "fn launch"
            })
            .group(Delimiter::Parenthesis, |c| {
                c.text(
                    "&self, stream: &__ck::CudaStream, \
                     config: impl __ck::core::convert::Into<__ck::Config>,",
                );
                launcher_args(c, kernel, body, "&mut");
            })
            .text("-> __ck::Result<()>")
            .stream(&contract_bounds);
        if real {
            // SAFETY (in the generated code): the caller's (an unsafe launcher) or the
            // declaration's author's (a safe one).
            c.group(Delimiter::Brace, |c| {
                if kernel.contract.is_some() {
                    let memory = contract_memory(p, kernel);
                    c.tokens(&quote! {
                        let config: #p::Config = #p::core::convert::Into::into(config);
                        #p::contract_holds(self, Self::__contract(&config, #(#memory),*))?;
                    });
                }
                c.text("unsafe").group(Delimiter::Brace, |c| {
                    c.text("__ck::launch").group(Delimiter::Parenthesis, |c| {
                        c.text("self, stream, config,");
                        arguments(c, kernel, &names, &by_val);
                    });
                });
            });
        } else {
            c.text(&delegate(""));
        }
    });

    c.tokens(&quote! {
        #(#attrs)*
        #kernel_impl
        #struct_names
        #checks
        #tensor_map_uses
        #member_trait
    });
    c.finish()
}

/// A parameter's name in a generated signature: as declared, or `_` in a stand-in (so that names
/// the checks refused cannot cause errors of their own).
fn param_name(c: &mut Code, param: &cuda_kernel_syntax::ast::Param, body: Body) {
    match body {
        Body::Real => c.tokens(&param.ident),
        Body::StandIn => c.text("_"),
    };
}

/// The arguments as the runtime takes them, as one tuple (see [`nested`]): each by name, in
/// text, but a value of a type that is not one of ours (a primitive, a vector or low-precision
/// type), which goes through `val`, whose bound is spanned on the declared type (where the
/// layout reports a type that is not a parameter type: rustc then reports it once).
fn arguments(c: &mut Code, kernel: &Kernel, names: &[String], by_val: &[bool]) {
    let buffer = by_val
        .contains(&true)
        .then(|| buffer_type(&runtime(), kernel));
    nested(c, names.len(), &|c, i| {
        match &buffer {
            Some(buffer) if by_val[i] => {
                let (ty, name) = (&kernel.params[i].ty, &kernel.params[i].ident);
                c.tokens(&quote_spanned!(ty.span()=> __ck::val::<#ty, #buffer>(#name)))
            }
            _ => c.text(&names[i]),
        };
    });
}

/// Which parameters [`arguments`] passes through `val`: values of a type that is not one of ours.
fn by_val(kernel: &Kernel) -> Vec<bool> {
    let ours = |ty: &syn::Type| {
        matches!(ty, syn::Type::Path(path) if path.qself.is_none()
            && types::by_rust_path(&check::type_text(ty)).is_some())
    };
    kernel
        .params
        .iter()
        .map(|param| matches!(param.kind(), ParamKind::Value) && !ours(&param.ty))
        .collect()
}

/// Items (`item` writes the `i`th) as one tuple, nested in tuples of at most
/// [`MAX_TUPLE`](cuda_kernel_syntax::layout::MAX_TUPLE) (the runtime's impls) where there are
/// more: `(a, b, c,)`, `((a, ..., l,), (m,),)`.
fn nested(c: &mut Code, count: usize, item: &dyn Fn(&mut Code, usize)) {
    use cuda_kernel_syntax::layout::MAX_TUPLE;
    // How many items each element of the outermost tuple holds.
    let mut per = 1;
    while count.div_ceil(per) > MAX_TUPLE {
        per *= MAX_TUPLE;
    }
    fn tuple(
        c: &mut Code,
        items: std::ops::Range<usize>,
        per: usize,
        item: &dyn Fn(&mut Code, usize),
    ) {
        c.group(Delimiter::Parenthesis, |c| {
            let mut start = items.start;
            while start < items.end {
                let end = (start + per).min(items.end);
                match per {
                    1 => item(c, start),
                    _ => tuple(c, start..end, per / MAX_TUPLE, item),
                }
                c.text(",");
                start = end;
            }
        });
    }
    tuple(c, 0..count, per, item);
}

/// Items as one tuple, as [`nested`] writes them, in tokens.
fn nested_tokens(items: &[TokenStream]) -> TokenStream {
    let mut c = Code::new();
    nested(&mut c, items.len(), &|c, i| {
        c.tokens(&items[i]);
    });
    c.finish()
}

/// The type `val` names a value's launch by: a parameter buffer sized by the layout, whose
/// evaluation fails where a parameter's type is not a parameter type (so that its bound then
/// names that failure, and rustc reports only the layout's error); for a generic kernel, whose
/// size depends on its type arguments, `ParamBytes`.
fn buffer_type(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let ty = kernel.type_ident();
    if kernel.is_generic() {
        quote!(#p::ParamBytes)
    } else {
        quote!(#p::ParamBuffer<{ #ty::LAYOUT.size }>)
    }
}

/// With the PTX's members known: a trait implemented for the type arguments that have a
/// member, and the `where` clause bounding a launcher's `load` on it, so that loading a member
/// the PTX lacks, for a type named at the call, is a compile-time error listing the members.
/// Generic code loads through `Kernel::load` or a `KernelCache` instead, which report it at run
/// time.
fn member_check(krate: &Path, kernel: &Kernel) -> (Option<TokenStream>, Option<TokenStream>) {
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
    let mut impls = Code::new();
    for args in &tuples {
        let args = args.join(", ");
        impls
            .tokens(&quote!(#(#attrs)*))
            .text(&format!("impl {name}<{args}> for {ty}<{args}> {{}}"));
    }
    let impls = impls.finish();
    let listed: Vec<String> = match kernel.cpp {
        Some(_) => instances_as_rust(krate, kernel, members),
        None => members.entries.iter().map(|m| m.symbol.clone()).collect(),
    };
    let shown = listed.join(", ");
    let escape = |text: &str| text.replace('{', "{{").replace('}', "}}");
    // What rustc writes for an argument of the call: `{T}` is the type named, `{BM}` the value.
    let asked_of = |ident: &Ident| format!("{{{}}}", ident.unraw());
    let asked: Vec<String> = kernel
        .generics
        .iter()
        .map(|g| match g {
            KernelGeneric::Type(t) => asked_of(t),
            KernelGeneric::Const { ident, .. } => asked_of(ident),
        })
        .collect();
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
    let mut notes = vec![
        "generic code loads a member through `Kernel::load`, a `KernelCache` or the block's \
         module type, which report a missing member at run time"
            .to_string(),
    ];
    let message = if kernel.cpp.is_some() {
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
            notes.insert(
                0,
                format!(
                    "nvcc compiles a template only for the instances the .cu instantiates: \
                     {which}: `{line}`"
                ),
            );
        }
        format!(
            "{} has no instance of the template `{}` for {for_what}: its instances are {}",
            escape(&members.file),
            escape(&kernel.symbol),
            escape(&shown)
        )
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
        " The arguments `{}` has an instance for in the PTX.",
        kernel.symbol
    );
    (
        Some(quote!(where Self: #name<#(#generic_args),*>)),
        Some(quote! {
            #(#attrs)*
            #[doc = #doc]
            #[doc(hidden)]
            #[diagnostic::on_unimplemented(message = #message, label = #label, #(note = #notes),*)]
            pub trait #name<#(#declared),*> {}
            #impls
        }),
    )
}

/// A member's type argument in generated code, in text: a primitive as is, another built-in
/// type under the runtime (`::cuda_kernel::half::f16`), a path the declaration named as written,
/// and `()` where unknown (which no call names).
fn member_type_text(krate: &str, ty: Option<&MemberType>) -> String {
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
fn instances_as_rust(
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

/// The method bodies of a launcher: real, or `unreachable!()` in a stand-in.
/// `Kernel`: the hooks through which the runtime loads, launches, records and updates any
/// launcher (cxx's generated `UniquePtrTarget` impls, with `UniquePtr<T>` doing the rest): its
/// layout, its parameters' kinds, its buffer and, where the declaration derives it, its symbol.
fn expand_kernel_impl(krate: &Path, kernel: &Kernel) -> TokenStream {
    let p = &runtime();
    let ty = kernel.type_ident();
    let (_, ty_generics, _) = generics(p, kernel);
    let bounded = bounded_generics(p, kernel);
    let symbol = if kernel.run_time_name.is_some() {
        Some(symbol_body(p, kernel, None, false))
    } else if kernel.is_generic() {
        Some(quote!(Self::symbol()))
    } else {
        struct_symbol_body(p, kernel)
    };
    // `__NAME` (below) is what the default `symbol()` returns: a kernel that overrides it has
    // none.
    let symbol = symbol.map(|body| {
        quote! {
            fn symbol() -> #p::Cow<'static, str> {
                #p::Cow::Owned(#body)
            }
        }
    });
    let run_time = kernel.run_time_name.as_ref().map(|name| {
        quote! {
            const RUN_TIME_NAME: #p::core::option::Option<&'static str> =
                #p::core::option::Option::Some(#name);
            fn symbol_named(name: &str) -> #p::Cow<'static, str> {
                #p::Cow::Owned(Self::symbol_named(name))
            }
        }
    });
    // A template over a device function: the instance for a `static` one.
    let internal = kernel.device_fn.as_ref().map(|_| {
        let body = symbol_body(p, kernel, Some(quote!(name)), true);
        quote! {
            fn __internal_symbol(name: &str) -> #p::core::option::Option<::std::string::String> {
                #p::core::option::Option::Some(#body)
            }
        }
    });
    // The members, and a C++ template's instances as the Rust that loads them, for the error
    // of one a module lacks.
    let family = kernel.members.as_ref().map(|members| {
        let pattern = &kernel.symbol;
        let file = &members.file;
        let symbols = members.entries.iter().map(|m| &m.symbol);
        let instances = match kernel.cpp {
            Some(_) => instances_as_rust(krate, kernel, members),
            None => Vec::new(),
        };
        quote! {
            const __FAMILY: #p::core::option::Option<&'static #p::Family> =
                #p::core::option::Option::Some(&#p::Family {
                    pattern: #pattern,
                    file: #file,
                    members: &[#(#symbols),*],
                    instances: &[#(#instances),*],
                });
        }
    });
    // The contract, checked with the lengths a plan's handles carry.
    let check_plan = kernel.contract.as_ref().map(|_| {
        let mut memory = Vec::new();
        let mut names = Vec::new();
        for param in &kernel.params {
            let name = format_ident!("__{}", param.ident.unraw());
            memory.push(match param.kind() {
                ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => quote!(#name.__memory()),
                ParamKind::TensorMap(..) => quote!(()),
                ParamKind::Value => quote!(*#name),
            });
            names.push(name);
        }
        let names: Vec<TokenStream> = names.iter().map(|name| quote!(#name)).collect();
        let pattern = nested_tokens(&names);
        quote! {
            fn __check_plan(
                #pattern: &<Self::__Params as #p::Params>::Plan<'_>,
                config: &#p::Config,
            ) -> #p::core::result::Result<(), #p::Error> {
                Self::__contract(config, #(#memory),*)
            }
        }
    });
    // SAFETY (of the impl): the type is `#[repr(transparent)]` over `Loaded`; LAYOUT is the
    // layout of the parameters `__Params` names; the runtime only hands `__from_loaded` a
    // function it checked against it.
    let mut c = Code::new();
    c.text("unsafe impl")
        .stream(&quote!(<#(#bounded),*>))
        .text("__ck::Kernel for")
        .tokens(&ty)
        .stream(&ty_generics)
        .group(Delimiter::Brace, |c| {
            c.text("const LAYOUT: __ck::ParamLayout = Self::LAYOUT;");
            if symbol.is_none() {
                c.text("const __NAME: &str =")
                    .text(&Code::string(&kernel.symbol))
                    .text(";");
            }
            // The parameters' kinds: `(In<f32>, Out<f32>, Val<u32>)`.
            c.text("type __Params =");
            nested(c, kernel.params.len(), &|c, i| {
                let param = &kernel.params[i];
                match param.kind() {
                    ParamKind::ConstPtr(elem) if is_void(elem) => c.text("__ck::InUntyped"),
                    ParamKind::MutPtr(elem) if is_void(elem) => c.text("__ck::OutUntyped"),
                    ParamKind::ConstPtr(elem) => {
                        c.text("__ck::In<").tokens(&device_element(elem)).text(">")
                    }
                    ParamKind::MutPtr(elem) => {
                        c.text("__ck::Out<").tokens(&device_element(elem)).text(">")
                    }
                    ParamKind::TensorMap(elem, rank) => c.tokens(&quote!(#p::Tma<#elem, #rank>)),
                    ParamKind::Value => c.text("__ck::Val<").tokens(&param.ty).text(">"),
                };
            });
            c.text(";")
                .tokens(&quote!(#symbol #run_time #internal #family #check_plan));
        });
    c.finish()
}

/// The generics of the generated type: for its impl (`<T: KernelParam, const N: i32>`), its
/// uses (`<T, N>`) and its definition (`<T, const N: i32>`); empty for a plain kernel.
fn generics(p: &dyn ToTokens, kernel: &Kernel) -> (TokenStream, TokenStream, TokenStream) {
    if !kernel.is_generic() {
        return (quote!(), quote!(), quote!());
    }
    let bounded = bounded_generics(p, kernel);
    let mut uses = Vec::new();
    let mut declared = Vec::new();
    for g in &kernel.generics {
        match g {
            KernelGeneric::Type(t) => {
                declared.push(quote!(#t));
                uses.push(quote!(#t));
            }
            KernelGeneric::Const { ident, ty, .. } => {
                declared.push(quote!(const #ident: #ty));
                // Braced: a const parameter named as a type or module in scope (`Pair`,
                // `core`) is still the value.
                uses.push(quote!({ #ident }));
            }
        }
    }
    (
        quote!(<#(#bounded),*>),
        quote!(<#(#uses),*>),
        quote!(<#(#declared),*>),
    )
}

/// The generic parameters as an impl declares them: `T: KernelParam`, `const N: i32`.
fn bounded_generics(p: &dyn ToTokens, kernel: &Kernel) -> Vec<TokenStream> {
    bounded_generics_with(p, kernel, quote!())
}

/// [`bounded_generics`] with `more` added to each type parameter's bound.
fn bounded_generics_with(p: &dyn ToTokens, kernel: &Kernel, more: TokenStream) -> Vec<TokenStream> {
    kernel
        .generics
        .iter()
        .map(|g| match g {
            KernelGeneric::Type(t) => quote!(#t: #p::KernelParam #more),
            KernelGeneric::Const { ident, ty, .. } => quote!(const #ident: #ty),
        })
        .collect()
}

/// How a generic kernel's instance is named at load time: the Itanium symbol of the template
/// instance, or the family's pattern filled in; for a kernel named at run time, with `name`
/// for its run-time part (left open, in braces, without one).
fn symbol_body(
    p: &dyn ToTokens,
    kernel: &Kernel,
    name: Option<TokenStream>,
    internal: bool,
) -> TokenStream {
    let symbol = &kernel.symbol;
    if kernel.cpp.is_some() {
        // A device function parameter: the function `name` names (`ops::neg`), external;
        // loading tries it as a `static` one too (`Kernel::__internal_symbol`).
        let function = kernel.device_fn.as_ref().map(|_| {
            let params = kernel.device_fn_params().unwrap_or_default();
            let params = params.iter().map(|ty| cpp_type_tokens(p, ty));
            let name = name
                .clone()
                .unwrap_or_else(|| quote!(#p::core::concat!("{", #symbol, "}")));
            quote!(#p::TemplateArg::Function {
                name: ::std::string::ToString::to_string(#name),
                params: ::std::vec![#(#params),*],
                internal: #internal,
            })
        });
        let args = kernel.generics.iter().map(|g| match g {
            KernelGeneric::Type(t) => quote!(#p::template_arg::<#t>()),
            KernelGeneric::Const {
                ident,
                enum_name: Some(name),
                ..
            } => quote!(#p::TemplateArg::Enum {
                name: ::std::string::String::from(#name),
                value: #ident as i128,
            }),
            KernelGeneric::Const { ident, code, .. } => {
                let code = code.unwrap_or("i");
                quote!(#p::TemplateArg::Int { code: #code, value: #ident as i128 })
            }
        });
        let args = kernel.template_args(args.collect(), function);
        let generics = kernel.type_params();
        let generics: Vec<&str> = generics.iter().map(String::as_str).collect();
        let params = kernel.params.iter().map(|param| {
            // The checks refused a parameter C++ cannot spell; `int` keeps the stand-in typed.
            let ty = mangle::cpp_type(&param.ty, &generics).unwrap_or(CppType::builtin("i32"));
            // A struct by its CUDA name (`ns::shapes::Interval`), as a plain kernel's.
            if ty.names_a_class() {
                let ty = &param.ty;
                return quote!(<#ty as #p::KernelParam>::CUDA_TYPE.cpp());
            }
            cpp_type_tokens(p, &ty)
        });
        quote!(#p::itanium::mangle(#symbol, #p::core::option::Option::Some(&[#(#args),*]), &[#(#params),*]))
    } else {
        let names = kernel.type_names.iter().map(|named| {
            let (ty, text) = (&named.ty, &named.name);
            quote_spanned!(ty.span()=> (<#ty as #p::KernelParam>::CUDA_TYPE, #text))
        });
        let names = quote!(&[#(#names),*]);
        let mut subs: Vec<TokenStream> = kernel
            .generics
            .iter()
            .map(|g| match g {
                KernelGeneric::Type(t) => {
                    let name = t.to_string();
                    quote!((#name, #p::family_name_with::<#t>(#names)))
                }
                KernelGeneric::Const { ident, .. } => {
                    let name = ident.to_string();
                    quote!((#name, ::std::string::ToString::to_string(&#ident)))
                }
            })
            .collect();
        if let (Some(hole), Some(value)) = (&kernel.run_time_name, name) {
            subs.push(quote!((#hole, ::std::string::ToString::to_string(#value))));
        }
        quote!(#p::itanium::family_symbol(#symbol, &[#(#subs),*]))
    }
}

/// A `cpp` kernel taking structs (not a template): its symbol derived at load, each struct
/// by its CUDA name (`<Pair as KernelParam>::CUDA_TYPE`, which may be `geo::Pair`), as a
/// template instance's is; `None` for any other kernel, whose `NAME` is its symbol.
fn struct_symbol_body(p: &dyn ToTokens, kernel: &Kernel) -> Option<TokenStream> {
    if kernel.cpp.is_none() || kernel.name_arg.is_some() || kernel.unmangled_param.is_some() {
        return None;
    }
    let types: Vec<CppType> = kernel
        .params
        .iter()
        .map(|param| mangle::cpp_type(&param.ty, &[]))
        .collect::<Option<_>>()?;
    if !types.iter().any(CppType::names_a_class) {
        return None;
    }
    let name = kernel.cpp_name();
    let params = kernel.params.iter().zip(&types).map(|(param, cpp)| {
        if cpp.names_a_class() {
            let ty = &param.ty;
            quote!(<#ty as #p::KernelParam>::CUDA_TYPE.cpp())
        } else {
            cpp_type_tokens(p, cpp)
        }
    });
    Some(quote!(#p::itanium::mangle(#name, #p::core::option::Option::None, &[#(#params),*])))
}

/// For a `cpp` kernel the PTX check found by its structs' C++ names: a compile-time assertion
/// that each struct's CUDA name is the one the PTX's entry gives it.
fn struct_name_asserts(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    // One assertion per struct (`iv: Interval` and `offset: *const Interval` are one), at the
    // struct's name in its first parameter.
    let mut structs: Vec<(&syn::Type, &str, Vec<String>)> = Vec::new();
    for (index, name) in &kernel.cuda_names {
        let param = &kernel.params[*index];
        let mut ty = &param.ty;
        while let syn::Type::Ptr(ptr) = ty {
            ty = &ptr.elem;
        }
        match structs.iter_mut().find(|(t, _, _)| *t == ty) {
            Some((_, _, params)) => params.push(format!("`{}`", param.ident)),
            None => structs.push((ty, name, vec![format!("`{}`", param.ident)])),
        }
    }
    let asserts = structs.iter().map(|(ty, name, params)| {
        let message = format!(
            "the PTX's `{}` takes `{name}` ({} {}), and this struct's CUDA name is not `{name}`: \
             declare the struct with #[kernel_param(cuda_name = \"{name}\")]",
            kernel.cpp_name(),
            if params.len() > 1 {
                "parameters"
            } else {
                "parameter"
            },
            params.join(", ")
        );
        quote_spanned! {ty.span()=>
            const _: () = ::core::assert!(
                #p::same_name(<#ty as #p::KernelParam>::CUDA_TYPE, #name),
                #message
            );
        }
    });
    quote!(#(#asserts)*)
}

/// `ty` as an expression that builds it, for generated code.
fn cpp_type_tokens(p: &dyn ToTokens, ty: &CppType) -> TokenStream {
    match ty {
        CppType::Builtin(t) => {
            let rust = t.rust;
            quote!(#p::CppType::builtin(#rust))
        }
        CppType::Named(name) => quote!(#p::CppType::Named(::std::string::String::from(#name))),
        CppType::Param(index) => {
            let index = proc_macro2::Literal::usize_unsuffixed(*index);
            quote!(#p::CppType::Param(#index))
        }
        CppType::Pointer { to_const, to } => {
            let to = cpp_type_tokens(p, to);
            quote!(#p::CppType::Pointer { to_const: #to_const, to: ::std::boxed::Box::new(#to) })
        }
    }
}

/// The launcher's arguments after `stream` and `config`, each followed by a comma: device
/// memory borrowed, values by value. In a stand-in, unnamed (`_`, so that names the checks
/// refused cannot cause errors of their own), and a parameter whose type was refused takes any
/// value. With a contract, memory must vouch for its length (`ExactLength`). `written` is how
/// memory a `*mut T` parameter writes is borrowed: `&mut` for `launch`, `&` for
/// `check_contract`, which only reads lengths.
fn launcher_args(c: &mut Code, kernel: &Kernel, body: Body, written: &str) {
    // `&impl DeviceArg<T>`, or with a contract `&(impl DeviceArg<T> + ExactLength)`.
    let contract = kernel.contract.is_some();
    let bound = |c: &mut Code, borrow: &str, arg: &str, elem: &syn::Type| {
        c.text(borrow);
        let bound = |c: &mut Code| {
            c.text("impl")
                .text(arg)
                .tokens(&device_element(elem))
                .text(">");
        };
        if contract {
            c.group(Delimiter::Parenthesis, |c| {
                bound(c);
                c.text("+ __ck::ExactLength");
            });
        } else {
            bound(c);
        }
    };
    for param in &kernel.params {
        param_name(c, param, body);
        c.text(":");
        if param.type_error.is_some() {
            c.text("impl __ck::core::marker::Sized,");
            continue;
        }
        match param.kind() {
            // Untyped memory (`void*`): any element type.
            ParamKind::ConstPtr(elem) if is_void(elem) => {
                c.text("&impl __ck::DeviceArgUntyped");
            }
            ParamKind::MutPtr(elem) if is_void(elem) => {
                c.text(written).text("impl __ck::DeviceArgUntypedMut");
            }
            ParamKind::ConstPtr(elem) => bound(c, "&", "__ck::DeviceArg<", elem),
            ParamKind::MutPtr(elem) => bound(c, written, "__ck::DeviceArgMut<", elem),
            ParamKind::TensorMap(elem, rank) => {
                let p = runtime();
                c.tokens(&quote!(impl #p::TensorMapArg<#elem, #rank>));
            }
            ParamKind::Value => {
                c.tokens(&param.ty);
            }
        }
        c.text(",");
    }
}

/// The arguments of `__contract` from a launcher's (or `check_contract`'s): `contract::Memory`
/// of each pointer's, each value as it is.
fn contract_memory(p: &dyn ToTokens, kernel: &Kernel) -> Vec<TokenStream> {
    kernel
        .params
        .iter()
        .map(|param| {
            let name = &param.ident;
            match param.kind() {
                ParamKind::ConstPtr(elem) => {
                    let elem = device_element(elem);
                    quote!(#p::contract::Memory::of::<#elem, _>(#name))
                }
                ParamKind::MutPtr(elem) => {
                    let elem = device_element(elem);
                    quote!(#p::contract::Memory::of_mut::<#elem, _>(&*#name))
                }
                ParamKind::TensorMap(..) => quote!(()),
                ParamKind::Value => quote!(#name),
            }
        })
        .collect()
}

/// A launcher's contract methods: `__contract`, the checks, and `check_contract`, which runs
/// them on a launch's arguments without launching.
fn contract_methods(p: &dyn ToTokens, kernel: &Kernel, body: Body) -> TokenStream {
    let Some(contract) = &kernel.contract else {
        return quote!();
    };
    let real = body == Body::Real;
    let name = |param: &cuda_kernel_syntax::ast::Param| {
        if real {
            param.ident.clone()
        } else {
            format_ident!("_")
        }
    };
    let params = kernel.params.iter().map(|param| {
        let ident = name(param);
        match param.kind() {
            ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => quote!(#ident: #p::contract::Memory),
            ParamKind::TensorMap(..) => quote!(#ident: ()),
            ParamKind::Value => {
                let ty = &param.ty;
                quote!(#ident: #ty)
            }
        }
    });
    let mut args = Code::new();
    launcher_args(&mut args, kernel, body, "&");
    let args = args.finish();
    let (checks, check_body, bounds) = if real {
        let memory = contract_memory(p, kernel);
        (
            crate::contract::checks(p, kernel, contract),
            quote!(Self::__contract(&#p::core::convert::Into::into(config), #(#memory),*)),
            crate::contract::bounds(p, kernel).0,
        )
    } else {
        let unreachable = quote!(#p::core::unreachable!());
        (unreachable.clone(), unreachable, quote!())
    };
    let listed: String = contract
        .conditions
        .iter()
        .map(|c| format!(" - `{c}`\n"))
        .collect();
    let doc = format!(
        " Checks the kernel's contract for a launch with `config` and these arguments,\n \
         without launching: what [`launch`](Self::launch) checks before it calls the driver.\n\n\
         {listed}\n Returns [`Error::ContractViolated`](::cuda_kernel::Error::ContractViolated) \
         for the first condition that does not hold."
    );
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(clippy::too_many_arguments, unused_variables, non_snake_case)]
        pub fn __contract(config: &#p::Config, #(#params),*) -> #p::core::result::Result<(), #p::Error> {
            #checks
        }

        #[doc = #doc]
        #[inline]
        #[allow(clippy::too_many_arguments)]
        pub fn check_contract(
            config: impl #p::core::convert::Into<#p::Config>,
            #args
        ) -> #p::core::result::Result<(), #p::Error> #bounds {
            #check_body
        }
    }
}

/// What the device memory behind a pointer parameter holds: its pointee, or for a pointer to
/// pointers (`const float* const* rows`), device addresses as `u64`.
fn device_element(elem: &syn::Type) -> TokenStream {
    match elem {
        syn::Type::Ptr(_) => quote!(u64),
        _ => quote!(#elem),
    }
}

/// A descriptor parameter's type as written (`TensorMap<f16, 2>`), named in the expansion
/// (the launcher takes its own `TensorMapArg` bound): so the user's import of it is used, and a
/// path that does not resolve is reported where it was written. For stand-ins too.
fn tensor_map_uses(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let attrs = &kernel.attrs;
    // Outside the launcher's impl, where its generic parameters are unknown: a type naming one
    // (`TensorMap<T, 2>`) is left out.
    let generic = |ty: &syn::Type| {
        fn mentions(tokens: TokenStream, names: &[String]) -> bool {
            tokens.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
                proc_macro2::TokenTree::Group(g) => mentions(g.stream(), names),
                _ => false,
            })
        }
        let names: Vec<String> = kernel
            .generics
            .iter()
            .map(|g| g.ident().to_string())
            .collect();
        mentions(ty.to_token_stream(), &names)
    };
    let uses = kernel.params.iter().filter_map(|param| {
        let ParamKind::TensorMap(..) = param.kind() else {
            return None;
        };
        if generic(&param.ty) {
            return None;
        }
        let param_ty = &param.ty;
        Some(quote! {
            #(#attrs)*
            const _: () = {
                let _: #p::PhantomData<#param_ty>;
            };
        })
    });
    quote!(#(#uses)*)
}

/// Compile-time checks of a real launcher: each size and alignment the PTX check left to the
/// compiler is asserted (its layout is evaluated by [`layouts_evaluated`]).
fn expand_checks(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let attrs = &kernel.attrs;
    let layout_checks = kernel.params.iter().filter_map(|param| {
        let layout = param.ptx_layout.as_ref()?;
        let param_ty = &param.ty;
        let (size, align, message) = (layout.size, layout.align, &layout.message);
        let condition = quote_spanned! {param_ty.span()=>
            <#param_ty as KernelParam>::SIZE == #size && <#param_ty as KernelParam>::ALIGN == #align
        };
        Some(ptx_assertion(p, attrs, param_ty, condition, message))
    });
    quote! {
        #(#layout_checks)*
    }
}

/// A check the PTX check left to the compiler: `condition` (on `<ty as KernelParam>`) must hold,
/// or rustc reports `message` at `ty`. A trait bound rather than a const panic: rustc reports an
/// unsatisfied bound at the spanned tokens with the trait's message, but a const panic at the
/// attribute. Every token of the call is spanned on the type (paths come in through `use`), so
/// that rustc can point there.
fn ptx_assertion(
    p: &dyn ToTokens,
    attrs: &[syn::Attribute],
    ty: &syn::Type,
    condition: TokenStream,
    message: &str,
) -> TokenStream {
    // On the type itself, so that rustc's own lines read "the trait
    // `SizeAndAlignmentOfThePtx<false>` is not implemented for `Block32`", at the type.
    let call = quote_spanned! {ty.span()=> matches_ptx::<#ty, { #condition }>() };
    quote! {
        #(#attrs)*
        const _: () = {
            use #p::KernelParam;
            #[diagnostic::on_unimplemented(message = #message, label = "does not match the PTX")]
            trait SizeAndAlignmentOfThePtx<const SAME: bool> {}
            impl<T> SizeAndAlignmentOfThePtx<true> for T {}
            const fn matches_ptx<T: SizeAndAlignmentOfThePtx<SAME>, const SAME: bool>() {}
            #call
        };
    }
}

/// The user's doc comments, then a line on what the type is.
fn type_docs(c: &mut Code, kernel: &Kernel) {
    let docs = &kernel.docs;
    if !docs.is_empty() {
        c.tokens(&quote!(#(#docs)*)).text("#[doc = \"\"]");
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
    c.text(&format!("#[doc = {}]", Code::string(&line)));
}

/// Whether `launch` is unsafe, and its `# Safety` or `# Contract` section as doc attributes in
/// text (nothing for a kernel declared `safe fn`).
fn launch_safety(kernel: &Kernel) -> (bool, String) {
    let doc = |text: &str| format!("#[doc = {}]", Code::string(text));
    if let Some(contract) = &kernel.contract {
        let mut text = String::from(
            " # Contract\n\n Safe to call: before the driver is called, the launch checks that\n",
        );
        for condition in &contract.conditions {
            text.push_str(&format!(" - `{condition}`\n"));
        }
        text.push_str(
            "\n and is refused with [`Error::ContractViolated`](::cuda_kernel::Error::ContractViolated)\n \
             (inside [`Error::Launch`](::cuda_kernel::Error::Launch)) where one does not hold. The\n \
             declaration's author vouched that the kernel stays inside its memory when they do.",
        );
        return (false, format!("{} {}", doc(""), doc(&text)));
    }
    if kernel.safe {
        return (false, String::new());
    }
    let text = " The caller guarantees that the kernel, for `config`'s grid, stays inside the \
                memory of its arguments and writes none it reads through `*const`.";
    (true, format!("{} {}", doc(" # Safety"), doc(text)))
}
