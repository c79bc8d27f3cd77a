//! The code a contract (`#[requires(...)]`) adds to a launcher: its checks, run before the
//! driver is called, each through `::cuda_kernel::__private::contract`; and the bounds that
//! keep addresses out of values no contract sees.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use cuda_kernel_syntax::ast::{Kernel, ParamKind};
use cuda_kernel_syntax::contract::{Arith, Compare, ConfigTerm, Contract, Term, Test};
use cuda_kernel_syntax::types;

/// The body of the launcher's `__contract`, the one home of its checks: its parameters are
/// `config: &Config` and the kernel's, a pointer's as a `contract::Memory` (length and NULL)
/// and a value as itself. Each condition that does not hold returns its error.
pub fn checks(p: &dyn ToTokens, kernel: &Kernel, contract: &Contract) -> TokenStream {
    let (_, assertions) = bounds(p, kernel);
    let mut reads = Vec::new();
    let mut read: Vec<String> = Vec::new();
    for condition in &contract.conditions {
        for leaf in condition.test.leaves() {
            let key = leaf.to_string();
            if read.contains(&key) {
                continue;
            }
            read.push(key);
            match &leaf {
                Term::Len(ident) => {
                    let var = var("len", ident);
                    reads.push(quote!(let #var = #p::contract::len(#ident.len);));
                }
                Term::Value(ident) => {
                    let var = var("val", ident);
                    reads.push(quote!(let #var = #p::contract::value(#ident);));
                }
                _ => {}
            }
        }
        for ident in nulls(&condition.test) {
            let key = format!("{ident}.is_null()");
            if !read.contains(&key) {
                read.push(key);
                let var = var("null", &ident);
                reads.push(quote!(let #var: bool = #ident.null;));
            }
        }
    }
    let tests = contract.conditions.iter().map(|condition| {
        let test = test(p, &condition.test);
        let text = condition.to_string();
        let mut values: Vec<TokenStream> = condition
            .test
            .leaves()
            .iter()
            .map(|leaf| {
                let (shown, value) = (leaf.to_string(), term(p, leaf));
                quote!((#shown, #value, false))
            })
            .collect();
        values.extend(arithmetic(&condition.test).iter().map(|t| {
            let (shown, value) = (t.to_string(), term(p, t));
            quote!((#shown, #value, true))
        }));
        quote_spanned! {condition.span=>
            if !(#test) {
                return #p::core::result::Result::Err(#p::contract::violated(
                    #text,
                    &[#(#values),*],
                ));
            }
        }
    });
    quote! {
        #assertions
        #(#reads)*
        #(#tests)*
        #p::core::result::Result::Ok(())
    }
}

/// What keeps addresses out of values no contract sees: every value type and pointee that
/// is not a built-in number must be `AddressFree`. For a type naming a type parameter, a
/// `where` clause of the launcher's methods; for a concrete type (a struct), an assertion in
/// `__contract` spanned on the type, so the error points at it.
pub fn bounds(p: &dyn ToTokens, kernel: &Kernel) -> (TokenStream, TokenStream) {
    let type_params: Vec<String> = kernel.type_params();
    let mut bounds = Vec::new();
    let mut assertions = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for param in &kernel.params {
        let ty: &Type = match param.kind() {
            ParamKind::ConstPtr(elem) | ParamKind::MutPtr(elem) => elem,
            ParamKind::Value => &param.ty,
            // A descriptor is not a value a contract reads.
            ParamKind::TensorMap(..) => continue,
        };
        if builtin(ty) {
            continue;
        }
        let key = quote!(#ty).to_string();
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let generic = quote!(#ty)
            .into_iter()
            .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if type_params.contains(&i.to_string())));
        if generic {
            bounds.push(quote_spanned!(ty.span()=> #ty: #p::AddressFree));
        } else {
            assertions.push(quote_spanned!(ty.span()=> free_of_device_addresses::<#ty>();));
        }
    }
    let clause = if bounds.is_empty() {
        quote!()
    } else {
        quote!(where #(#bounds),*)
    };
    // A function of the body's own, so that rustc's note names it ("required by a bound in
    // `free_of_device_addresses`") rather than the runtime's hidden module.
    let assertions = match assertions.is_empty() {
        true => quote!(),
        false => quote! {
            const fn free_of_device_addresses<T: #p::AddressFree + ?#p::core::marker::Sized>() {}
            #(#assertions)*
        },
    };
    (clause, assertions)
}

/// A built-in number, vector or low-precision type, named by its last path segment as the type
/// table reads declarations.
fn builtin(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last().is_some_and(|s| {
            s.arguments.is_empty() && types::by_name(&s.ident.to_string()).is_some()
        }),
        Type::Paren(p) => builtin(&p.elem),
        Type::Group(g) => builtin(&g.elem),
        _ => false,
    }
}

fn var(what: &str, ident: &Ident) -> Ident {
    format_ident!("__{what}_{}", ident.unraw())
}

/// The pointers whose NULL a test reads.
fn nulls(test: &Test) -> Vec<Ident> {
    match test {
        Test::Null(ident, _) => vec![ident.clone()],
        Test::And(a, b) | Test::Or(a, b) => {
            let mut out = nulls(a);
            out.extend(nulls(b));
            out
        }
        Test::Compare(..) => Vec::new(),
    }
}

/// The compared terms that compute (`rows * cols`), whose overflow a broken condition names.
fn arithmetic(test: &Test) -> Vec<Term> {
    match test {
        Test::Compare(a, _, b) => [a, b]
            .into_iter()
            .filter(|t| matches!(t, Term::Arith(..)))
            .cloned()
            .collect(),
        Test::And(a, b) | Test::Or(a, b) => {
            let mut out = arithmetic(a);
            out.extend(arithmetic(b));
            out
        }
        Test::Null(..) => Vec::new(),
    }
}

fn test(p: &dyn ToTokens, test_: &Test) -> TokenStream {
    match test_ {
        Test::Compare(a, op, b) => {
            let f = format_ident!(
                "{}",
                match op {
                    Compare::Ge => "ge",
                    Compare::Gt => "gt",
                    Compare::Le => "le",
                    Compare::Lt => "lt",
                    Compare::Eq => "eq",
                    Compare::Ne => "ne",
                }
            );
            let (a, b) = (term(p, a), term(p, b));
            quote!(#p::contract::#f(#a, #b))
        }
        Test::And(a, b) => {
            let (a, b) = (test(p, a), test(p, b));
            quote!((#a && #b))
        }
        Test::Or(a, b) => {
            let (a, b) = (test(p, a), test(p, b));
            quote!((#a || #b))
        }
        Test::Null(ident, true) => {
            let var = var("null", ident);
            quote!(#var)
        }
        Test::Null(ident, false) => {
            let var = var("null", ident);
            quote!(!#var)
        }
    }
}

fn term(p: &dyn ToTokens, term_: &Term) -> TokenStream {
    match term_ {
        Term::Literal(value) => {
            let lit = Literal::i128_suffixed(*value);
            quote!(#p::core::option::Option::Some(#lit))
        }
        Term::Value(ident) => {
            let var = var("val", ident);
            quote!(#var)
        }
        Term::Len(ident) => {
            let var = var("len", ident);
            quote!(#var)
        }
        Term::Config(config) => match config {
            ConfigTerm::Threads => quote!(#p::contract::threads(config)),
            ConfigTerm::Blocks => quote!(#p::contract::blocks(config)),
            ConfigTerm::BlockThreads => quote!(#p::contract::block_threads(config)),
            ConfigTerm::Grid(axis) => quote!(#p::contract::grid(config, #axis)),
            ConfigTerm::Block(axis) => quote!(#p::contract::block(config, #axis)),
            ConfigTerm::SharedMemBytes => quote!(#p::contract::shared_mem_bytes(config)),
        },
        Term::SizeOf(ty) => quote!(#p::contract::value(<#ty as #p::KernelParam>::SIZE)),
        Term::Arith(a, op, b) => {
            let f = format_ident!(
                "{}",
                match op {
                    Arith::Add => "add",
                    Arith::Sub => "sub",
                    Arith::Mul => "mul",
                    Arith::Div => "div",
                    Arith::Rem => "rem",
                }
            );
            let (a, b) = (term(p, a), term(p, b));
            quote!(#p::contract::#f(#a, #b))
        }
    }
}
