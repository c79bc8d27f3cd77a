//! A kernel called as the function it is declared as (`vector_add(a, b, c, n)`, the way its
//! FFI binding was called): one error at the call, naming the launch to write.

use proc_macro2::{Delimiter, Ident, TokenStream};
use syn::ext::IdentExt;

use cuda_kernel_syntax::ast::{Block, Kernel};

use crate::code::Code;

/// For each kernel of the block, a function of its name that no argument satisfies, whose error
/// says how the kernel is launched. They are brought in by a glob import from a module of the
/// block's own, so that any item of a kernel's name the user's module defines or imports by
/// name (a safe wrapper `fn vector_add`) shadows it without a clash. None for a kernel without
/// parameters or a generic one (whose launch takes its type arguments), nor for the prelude's
/// functions and constructors (`drop`, `Some`, ...), nor for a renamed kernel: two blocks of a
/// module may declare kernels of one name only renamed, and two glob imports of one name would
/// make it ambiguous there, a parameter of that name too.
pub(super) fn expand_call_guards(block: &Block, module: Option<&Ident>) -> TokenStream {
    const PRELUDE: [&str; 5] = ["drop", "Some", "None", "Ok", "Err"];
    let guarded: Vec<&Kernel> = block
        .kernels
        .iter()
        .filter(|k| {
            !k.params.is_empty()
                && !k.is_generic()
                && k.rename.is_none()
                && !PRELUDE.contains(&k.ident.unraw().to_string().as_str())
        })
        .collect();
    let Some(first) = guarded.first() else {
        return TokenStream::new();
    };
    // Named after the block's first launcher, unique in the module (two blocks may declare
    // kernels of one name, renamed).
    let module_name = format!("{}_kernels", first.type_ident());
    // The traits in a module of their own, which the glob import brings in as a module, not as
    // traits: a trait in scope is one more that rustc considers for every method call and
    // associated item of the user's module (200 declarations: 2% of their build). The
    // functions name them by path, not through a glob import, which would make rustc's messages
    // spell the trait with its module.
    let traits = format!("{}_traits", first.type_ident());
    let mut c = Code::new();
    c.text("#[doc(hidden)] #[allow(non_snake_case, non_camel_case_types, dead_code, unreachable_pub, clippy::too_many_arguments)] mod")
        .text(&module_name)
        .group(Delimiter::Brace, |c| {
            c.text(&format!("pub(super) mod {traits}"))
                .group(Delimiter::Brace, |c| {
                    for kernel in &guarded {
                        guard_trait(c, kernel, module);
                    }
                });
            for kernel in &guarded {
                guard_fn(c, kernel, &traits);
            }
        });
    c.text(&format!("#[allow(unused_imports)] use {module_name}::*;"));
    for kernel in &guarded {
        cfgs(&mut c, kernel);
        c.text(&format!(
            "impl {module_name}::{traits}::Launch{}",
            kernel.type_ident()
        ))
        .text("for")
        .tokens(&kernel.type_ident())
        .text("{}");
    }
    c.finish()
}

/// The `#[cfg]`s of a kernel, on what is generated for it.
fn cfgs(c: &mut Code, kernel: &Kernel) {
    for attr in kernel.attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        c.tokens(attr);
    }
}

/// The trait (`LaunchVectorAdd`) whose error a kernel's function gives.
fn guard_trait(c: &mut Code, kernel: &Kernel, module: Option<&Ident>) {
    let name = kernel.ident.unraw();
    let ty = kernel.type_ident();
    let args: Vec<String> = kernel.params.iter().map(|p| p.ident.to_string()).collect();
    let launch = format!(".launch(&stream, config, {})", args.join(", "));
    let (label, loaded) = match module {
        Some(m) => (
            format!("launch it: `kernels.{name}{launch}`"),
            format!("`{m}::load(&ctx)?` loads every kernel of the block, `kernels.{name}`"),
        ),
        None => (
            format!("launch it: `{ty}::load(&module)?{launch}`"),
            format!("`{ty}::load(&module)?` loads it"),
        ),
    };
    let message = format!("`{name}` is a kernel: it is launched through its launcher, not called");
    let note = format!(
        "#[kernel] declares the launcher `{ty}`: {loaded}; `launch` takes the stream, the grid \
         (`Config::for_elements(n, 256)`) and the arguments"
    );
    cfgs(c, kernel);
    c.text(&format!(
        "#[diagnostic::on_unimplemented(message = {}, label = {}, note = {})] pub trait",
        Code::string(&message),
        Code::string(&label),
        Code::string(&note)
    ))
    .text(&format!("Launch{ty} {{}}"));
}

/// A kernel's function of its name, bound by its trait (in the module `traits`).
fn guard_fn(c: &mut Code, kernel: &Kernel, traits: &str) {
    let ty = kernel.type_ident();
    let generics: Vec<String> = (0..kernel.params.len()).map(|i| format!("A{i}")).collect();
    cfgs(c, kernel);
    // The user's name and span: rustc's "required by a bound" points at the declaration.
    let span = kernel.ident.span();
    let module = Ident::new(traits, span);
    let bound = Ident::new(&format!("Launch{ty}"), span);
    let bound = quote::quote_spanned!(span=> #module::#bound);
    c.text("pub fn")
        .tokens(&kernel.ident)
        .text(&format!("<{}:", generics[0]))
        .tokens(&bound)
        .text(&format!(
            ", {}>({}) {{}}",
            generics[1..].join(", "),
            generics
                .iter()
                .map(|g| format!("_: {g}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
}
