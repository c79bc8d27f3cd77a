//! A kernel's launcher: its type, `load`, `launch`, `pack`, the contract's methods and the
//! `Kernel` impl through which the runtime loads and launches it; or, after an error, the same
//! signatures with `unreachable!()` bodies.

use proc_macro2::{Delimiter, Ident, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::Path;
use syn::ext::IdentExt;

use cuda_kernel_syntax::ast::{Kernel, KernelGeneric};
use cuda_kernel_syntax::check;

use crate::code::Code;

use super::*;

/// The generated type with its constants and methods, and the compile-time checks of a real
/// launcher. Every method delegates to the runtime (`__ck`, the block's glob import) in one
/// call. Written as [`Code`]: text, with the declaration's names and types spliced in.
pub(super) fn expand_launcher(krate: &Path, kernel: &Kernel, body: Body) -> TokenStream {
    let full = format!("{}::__private", quote!(#krate));
    let ty = kernel.type_ident();
    let ck = runtime();
    let p = &ck;
    let attrs = &kernel.attrs;
    let symbol = &kernel.symbol;
    let real = body == Body::Real;
    let contract_methods = contract_methods(p, kernel, body);
    let contract_bounds = match (&kernel.contract, body) {
        (Some(_), Body::Real) => crate::contract::bounds(p, kernel).0,
        _ => quote!(),
    };
    // A method that only calls the runtime, or in a stand-in `unreachable!()`.
    let delegate = |call: &str| match body {
        Body::Real => format!("{{ {call} }}"),
        Body::StandIn => STAND_IN_BODY.to_string(),
    };
    let run_time = kernel
        .run_time_name
        .as_ref()
        .map(|name| format_ident!("{}", sanitized(name)));
    let (load, load_library, name_param) = match &run_time {
        Some(arg) => (
            delegate(&format!("__ck_Kernel::load_named(module, {arg})")),
            delegate(&format!("__ck_Kernel::load_library_named(library, {arg})")),
            format!(", {arg}: &str"),
        ),
        None => (
            delegate("__ck_Kernel::load(module)"),
            delegate("__ck_Kernel::load_library(library)"),
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
    let symbol_item = symbol_item(p, kernel, run_time.as_ref(), real);
    let struct_names = real.then(|| struct_name_asserts(p, kernel));
    // The declaration's attributes (`#[cfg]`, `#[allow]`) go on the impl, which a stand-in
    // has none of: there they would be attributes on nothing.
    let kernel_impl = real.then(|| {
        let kernel_impl = expand_kernel_impl(krate, kernel);
        quote!(#(#attrs)* #kernel_impl)
    });

    // The parameters' names in text, where their spans do not matter (rustc points at `launch`'s).
    let names: Vec<String> = kernel.params.iter().map(|p| p.ident.to_string()).collect();
    let kinds = kinds(kernel);
    let mut c = Code::new();
    // The type.
    type_docs(&mut c, kernel);
    let stand_in_allows = match real {
        true => "",
        false => "#[allow(dead_code, unused_variables, clippy::diverging_sub_expression)]",
    };
    type_item(&mut c, kernel, &full, &struct_generics, stand_in_allows);

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
        layout_const(c, kernel, &kinds, real);

        let doc = format!(" Looks up `{symbol}` in `module`, checked against the layout.");
        c.text(&format!(
            "#[doc = {}] #[inline] pub fn load(module: &__ck_Arc<__ck_CudaModule> {name_param}) \
             -> __ck_Result<Self>",
            Code::string(&doc)
        ))
        .stream(&member_bound)
        .text(&load);
        let doc = format!(
            " Looks up `{symbol}` in `library`, for every GPU, checked against the layout."
        );
        c.text(&format!(
            "#[doc = {}] #[inline] pub fn load_library(library: &__ck_Arc<__ck_Library> \
             {name_param}) -> __ck_Result<Self>",
            Code::string(&doc)
        ))
        .stream(&member_bound)
        .text(&load_library);
        c.text(
            "/// The function, for attributes and occupancy (`None` from a library).\n\
             #[inline] pub fn function(&self) -> __ck_core::option::Option<&__ck_CudaFunction>",
        )
        .text(&delegate("__ck_Kernel::function(self)"));

        pack_method(c, kernel, &names, &kinds, body);

        c.stream(&contract_methods);

        launch_method(c, kernel, body, &names, &kinds, &contract_bounds);
    });

    c.tokens(&quote! {
        #kernel_impl
        #struct_names
        #checks
        #tensor_map_uses
        #member_trait
    });
    c.finish()
}

/// `symbol_named` or `symbol` of a launcher whose symbol is made at run time or per instance.
/// The body is the `Kernel` impl's (which loading calls); these delegate to it, so that a
/// crate that only loads compiles one function per kernel.
fn symbol_item(p: &Ident, kernel: &Kernel, run_time: Option<&Ident>, real: bool) -> TokenStream {
    let symbol = &kernel.symbol;
    if let Some(arg) = run_time {
        let body = if real {
            quote!(#p::Cow::into_owned(<Self as #p::Kernel>::symbol_named(#arg)))
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
            quote!(#p::Cow::into_owned(<Self as #p::Kernel>::symbol()))
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
    }
}

/// The launcher's type: `#[repr(transparent)]` over the function it launches.
fn type_item(
    c: &mut Code,
    kernel: &Kernel,
    full: &str,
    struct_generics: &TokenStream,
    stand_in_allows: &str,
) {
    let attrs = &kernel.attrs;
    let ty = kernel.type_ident();
    let type_params: Vec<&Ident> = kernel
        .generics
        .iter()
        .filter_map(|g| match g {
            KernelGeneric::Type(ident) => Some(ident),
            KernelGeneric::Const { .. } => None,
        })
        .collect();
    c.stream(&quote!(#(#attrs)*))
        .text(stand_in_allows)
        .text("#[derive(Debug, Clone)] #[repr(transparent)]")
        .stream(&kernel.vis.to_token_stream())
        .text("struct")
        .tokens(&ty)
        .stream(struct_generics)
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
}

/// `LAYOUT`: where each parameter sits in the launch's parameter buffer.
fn layout_const(c: &mut Code, kernel: &Kernel, kinds: &[ParamSpelling<'_>], real: bool) {
    c.text(
        "/// Where each parameter sits in the launch's parameter buffer.\n\
         pub const LAYOUT: __ck_ParamLayout =",
    );
    if real {
        c.text("__ck_layout!").group(Delimiter::Parenthesis, |c| {
            for (i, (param, kind)) in kernel.params.iter().zip(kinds).enumerate() {
                if i > 0 {
                    c.text(",");
                }
                c.text(&Code::string(&param.ident.unraw().to_string()))
                    .text(":");
                // The declared type's own tokens, so that a type that is not a parameter
                // type is reported there.
                kind.write(c, Spelling::Layout, "", "", None);
            }
        });
    } else {
        c.text("__ck_ParamLayout::EMPTY");
    }
    c.text(";");
}

/// `pack`: the parameter buffer `launch` would pass, taking device memory as addresses and
/// everything else as `launch` does.
fn pack_method(
    c: &mut Code,
    kernel: &Kernel,
    names: &[String],
    kinds: &[ParamSpelling<'_>],
    body: Body,
) {
    let real = body == Body::Real;
    // `pack` takes device memory as addresses, everything else as for `launch`.
    c.text(
        "/// The parameter buffer `launch` would pass, device memory given as addresses.\n\
         #[inline] pub fn pack",
    )
    .group(Delimiter::Parenthesis, |c| {
        for ((param, name), kind) in kernel.params.iter().zip(names).zip(kinds) {
            c.text(if real { name } else { "_" }).text(":");
            match &param.type_error {
                Some(_) => {
                    c.text("impl __ck_core::marker::Sized");
                }
                None => kind.write(c, Spelling::Pack, "", "", None),
            }
            c.text(",");
        }
    })
    .text("-> __ck_ParamBytes");
    if real {
        c.group(Delimiter::Brace, |c| {
            c.text("__ck_pack::<Self, _>")
                .group(Delimiter::Parenthesis, |c| {
                    arguments(c, kernel, names, kinds);
                });
        });
    } else {
        c.text(STAND_IN_BODY);
    }
}

/// `launch`: the contract checked where there is one, then the runtime's launch.
fn launch_method(
    c: &mut Code,
    kernel: &Kernel,
    body: Body,
    names: &[String],
    kinds: &[ParamSpelling<'_>],
    contract_bounds: &TokenStream,
) {
    let p = &runtime();
    let symbol = &kernel.symbol;
    let (unsafety, safety_doc) = launch_safety(kernel);
    let doc = format!(
        " Launches `{symbol}` on `stream`: each argument at its [`LAYOUT`](Self::LAYOUT) \
         offset, ordered after earlier work on its memory."
    );
    c.text(&format!("#[doc = {}] {safety_doc}", Code::string(&doc)))
        .text("#[track_caller] pub")
        .text(if unsafety {
            "unsafe fn launch<'__config>"
        } else {
            "fn launch<'__config>"
        })
        .group(Delimiter::Parenthesis, |c| {
            c.text(
                "&self, stream: &__ck_CudaStream, \
                 config: impl __ck_IntoConfig<'__config>,",
            );
            launcher_args(c, kernel, body, "&mut");
        })
        .text("-> __ck_Result<()>")
        .stream(contract_bounds);
    if body == Body::Real {
        // SAFETY (in the generated code): the caller's (an unsafe launcher) or the
        // declaration's author's (a safe one).
        c.group(Delimiter::Brace, |c| {
            if kernel.contract.is_some() {
                let memory = contract_memory(kernel);
                c.tokens(&quote! {
                    let config: #p::Attributed<'_> = #p::IntoConfig::into_config(config);
                    #p::contract_holds(self, Self::__contract(&config.config, #(#memory),*))?;
                });
            }
            c.text("unsafe").group(Delimiter::Brace, |c| {
                c.text("__ck_launch").group(Delimiter::Parenthesis, |c| {
                    c.text(
                        "&self.0, &<Self as __ck_Kernel>::LAYOUT, stream, \
                         __ck_IntoConfig::into_config(config),",
                    )
                    .stream(&launch_arguments(kernel, names, kinds));
                });
            });
        });
    } else {
        c.text(STAND_IN_BODY);
    }
}

/// A stand-in method's body.
const STAND_IN_BODY: &str = "{ __ck_core::unreachable!() }";

/// A parameter's name in a generated signature: as declared, or `_` in a stand-in (so that names
/// the checks refused cannot cause errors of their own).
pub(super) fn param_name(c: &mut Code, param: &cuda_kernel_syntax::ast::Param, body: Body) {
    match body {
        Body::Real => c.tokens(&param.ident),
        Body::StandIn => c.text("_"),
    };
}

/// The arguments as `pack` hands them to the runtime, as one tuple (see [`nested`]): each by
/// name, but a value of a type not ours, which goes through `val`, whose bound is spanned on the
/// declared type (where the layout reports a type that is not a parameter type: rustc then
/// reports it once). Spelled by the table of kinds ([`kinds`](super::kinds)).
pub(super) fn arguments(
    c: &mut Code,
    kernel: &Kernel,
    names: &[String],
    kinds: &[ParamSpelling<'_>],
) {
    let buffer = user_values(kinds).then(|| buffer_type(&runtime(), kernel));
    nested(c, names.len(), &|c, i| {
        kinds[i].write(c, Spelling::PackArg, &names[i], "", buffer.as_ref());
    });
}

/// The arguments as `launch` hands them to the runtime: one `LaunchArg` per parameter, each
/// made by its kind's constructor (compiled once per argument type, whatever the kernel), as
/// one tuple (see [`nested`]); a value of a type not ours through `val` as in [`arguments`].
pub(super) fn launch_arguments(
    kernel: &Kernel,
    names: &[String],
    kinds: &[ParamSpelling<'_>],
) -> TokenStream {
    let buffer = user_values(kinds).then(|| buffer_type(&runtime(), kernel));
    let mut c = Code::new();
    nested(&mut c, kernel.params.len(), &|c, i| {
        kinds[i].write(c, Spelling::LaunchArg, &names[i], "", buffer.as_ref());
    });
    c.finish()
}

/// Whether a parameter is a value of a type not ours (which `val` takes, with a buffer type).
fn user_values(kinds: &[ParamSpelling<'_>]) -> bool {
    kinds.iter().any(|k| k.kind == Kind::ValueOfUsers)
}

/// Items (`item` writes the `i`th) as one tuple, nested in tuples of at most
/// [`MAX_TUPLE`](cuda_kernel_syntax::layout::MAX_TUPLE) (the runtime's impls) where there are
/// more: `(a, b, c,)`, `((a, ..., l,), (m,),)`.
pub(super) fn nested(c: &mut Code, count: usize, item: &dyn Fn(&mut Code, usize)) {
    use cuda_kernel_syntax::layout::MAX_TUPLE;
    // How many items each element of the outermost tuple holds.
    let mut per = 1;
    while count.div_ceil(per) > MAX_TUPLE {
        per *= MAX_TUPLE;
    }
    pub(super) fn tuple(
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
pub(super) fn nested_tokens(items: &[TokenStream]) -> TokenStream {
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
pub(super) fn buffer_type(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let ty = kernel.type_ident();
    if kernel.is_generic() {
        quote!(#p::ParamBytes)
    } else {
        quote!(#p::ParamBuffer<{ #ty::LAYOUT.size }>)
    }
}

/// The method bodies of a launcher: real, or `unreachable!()` in a stand-in.
/// `Kernel`: the hooks through which the runtime loads, launches, records and updates any
/// launcher (cxx's generated `UniquePtrTarget` impls, with `UniquePtr<T>` doing the rest): its
/// layout, its parameters' kinds, its buffer and, where the declaration derives it, its symbol.
pub(super) fn expand_kernel_impl(krate: &Path, kernel: &Kernel) -> TokenStream {
    let p = &runtime();
    let ty = kernel.type_ident();
    let (_, ty_generics, _) = generics(p, kernel);
    let bounded = bounded_generics(p, kernel);
    // A family's symbol as data (`__SYMBOL`, with the functions reading it), else functions.
    let family_symbol = family_symbol(p, kernel);
    let symbol = if family_symbol.is_some() {
        None
    } else if kernel.run_time_name.is_some() || kernel.is_generic() {
        Some(symbol_body(p, kernel, None, false))
    } else {
        struct_symbol_body(p, kernel)
    };
    // `__NAMED`'s name (below) is what the default `symbol()` returns: a kernel that overrides it
    // has only `LAYOUT`.
    let symbol = symbol.map(|body| {
        quote! {
            fn symbol() -> #p::Cow<'static, str> {
                #p::Cow::Owned(#body)
            }
        }
    });
    let run_time = kernel.run_time_name.as_ref().map(|name| {
        let symbol_named = family_symbol.is_none().then(|| {
            let named_body = symbol_body(p, kernel, Some(quote!(name)), false);
            quote! {
                fn symbol_named(name: &str) -> #p::Cow<'static, str> {
                    #p::Cow::Owned(#named_body)
                }
            }
        });
        quote! {
            const RUN_TIME_NAME: #p::core::option::Option<&'static str> =
                #p::core::option::Option::Some(#name);
            #symbol_named
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
        for (param, kind) in kernel.params.iter().zip(kinds(kernel)) {
            let name = format_ident!("__{}", param.ident.unraw());
            let mut c = Code::new();
            kind.write(&mut c, Spelling::Plan, &name.to_string(), "", None);
            memory.push(c.finish());
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
        .text("__ck_Kernel for")
        .tokens(&ty)
        .stream(&ty_generics)
        .group(Delimiter::Brace, |c| {
            // The name and layout as one constant where the kernel has both (one item less per
            // declaration than two); the trait's `LAYOUT` reads it.
            if symbol.is_none() && family_symbol.is_none() {
                c.text("const __NAMED: (&str, __ck_ParamLayout) = (")
                    .text(&Code::string(&kernel.symbol))
                    .text(", Self::LAYOUT);");
            } else {
                c.text("const LAYOUT: __ck_ParamLayout = Self::LAYOUT;");
            }
            // The parameters' kinds: `(In<f32>, Out<f32>, Val<u32>)`.
            c.text("type __Params =");
            let kinds = kinds(kernel);
            nested(c, kernel.params.len(), &|c, i| {
                kinds[i].write(c, Spelling::Params, "", "", None);
            });
            c.text(";")
                .tokens(&quote!(#symbol #family_symbol #run_time #internal #family #check_plan));
        });
    c.finish()
}

/// The launcher's arguments after `stream` and `config`, each followed by a comma: device
/// memory borrowed, values by value. In a stand-in, unnamed (`_`, so that names the checks
/// refused cannot cause errors of their own), and a parameter whose type was refused takes any
/// value. With a contract, memory must vouch for its length (`ExactLength`). `written` is how
/// memory a `*mut T` parameter writes is borrowed: `&mut` for `launch`, `&` for
/// `check_contract`, which only reads lengths.
pub(super) fn launcher_args(c: &mut Code, kernel: &Kernel, body: Body, written: &str) {
    // `&impl DeviceArg<T>`, or with a contract `&(impl DeviceArg<T> + ExactLength)`.
    let spelling = match kernel.contract.is_some() {
        true => Spelling::LauncherExact,
        false => Spelling::Launcher,
    };
    for (param, kind) in kernel.params.iter().zip(kinds(kernel)) {
        param_name(c, param, body);
        c.text(":");
        if param.type_error.is_some() {
            c.text("impl __ck_core::marker::Sized,");
            continue;
        }
        kind.write(c, spelling, "", written, None);
        c.text(",");
    }
}

/// The arguments of `__contract` from a launcher's (or `check_contract`'s): `contract::Memory`
/// of each pointer's, each value as it is.
pub(super) fn contract_memory(kernel: &Kernel) -> Vec<TokenStream> {
    kinds(kernel)
        .iter()
        .map(|kind| {
            let mut c = Code::new();
            kind.write(&mut c, Spelling::Memory, "", "", None);
            c.finish()
        })
        .collect()
}

/// A launcher's contract methods: `__contract`, the checks, and `check_contract`, which runs
/// them on a launch's arguments without launching.
pub(super) fn contract_methods(p: &dyn ToTokens, kernel: &Kernel, body: Body) -> TokenStream {
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
    let params = kernel
        .params
        .iter()
        .zip(kinds(kernel))
        .map(|(param, kind)| {
            let ident = name(param);
            let mut c = Code::new();
            c.tokens(&ident).text(":");
            kind.write(&mut c, Spelling::Contract, "", "", None);
            c.finish()
        });
    let mut args = Code::new();
    launcher_args(&mut args, kernel, body, "&");
    let args = args.finish();
    let (checks, check_body, bounds) = if real {
        let memory = contract_memory(kernel);
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

/// The user's doc comments, then a line on what the type is.
pub(super) fn type_docs(c: &mut Code, kernel: &Kernel) {
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
pub(super) fn launch_safety(kernel: &Kernel) -> (bool, String) {
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
