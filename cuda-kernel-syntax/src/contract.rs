//! Contracts: `#[requires(...)]` on a kernel declaration, the conditions under which a launch
//! is memory-safe, in the terms a kernel author thinks in: lengths of device memory in
//! elements (`c.len() >= n`), integer parameters and products of them
//! (`out.len() >= rows * cols`), the launch configuration (`config.threads()`) and `NULL` for
//! optional pointers (`bias.is_null() || bias.len() >= n`).
//!
//! Parsed and checked here once, for the macro (which generates the checks a launch runs) and
//! for anything else that reads declarations; [`Condition`]'s `Display` is the condition as
//! errors show it.

use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, BinOp, Expr, Ident, Lit, Token, Type, UnOp};

pub use crate::ast::contract::{Arith, Compare, Condition, ConfigTerm, Contract, Term, Test};
use crate::ast::{KernelGeneric, Param, ParamKind};
use crate::report::Errors;
use crate::types::{self, Class};

const SHAPES: &str = "a condition compares integers (`c.len() >= n`, `out.len() >= rows * cols`, \
                      `config.threads() <= n`) or tests an optional pointer \
                      (`bias.is_null() || bias.len() >= n`)";

/// Reads every `#[requires(...)]` of a kernel and checks it against the kernel's parameters;
/// `None` where there is none. Mistakes are errors on their spans (the contract is then
/// dropped: the launcher stays `unsafe`, and the errors say why).
pub fn parse(
    cx: &mut Errors,
    attrs: &[Attribute],
    params: &[Param],
    generics: &[KernelGeneric],
) -> Option<Contract> {
    let first = attrs.first()?;
    let before = cx.len();
    let mut conditions = Vec::new();
    let scope = Scope { params, generics };
    for attr in attrs {
        let parsed = attr.parse_args_with(Punctuated::<Expr, Token![,]>::parse_terminated);
        match parsed {
            Ok(list) if list.is_empty() => cx.error(
                attr,
                "#[requires] takes one or more conditions: `#[requires(c.len() >= n)]`",
            ),
            Ok(list) => {
                for expr in &list {
                    if let Some(test) = scope.test(cx, expr) {
                        conditions.push(Condition {
                            test,
                            span: expr.span(),
                        });
                    }
                }
            }
            Err(e) => cx.push(e),
        }
    }
    // Memory the contract does not describe keeps the launch unsafe (said only of a contract
    // read whole: a condition in error may be the one that names it).
    let read_whole = cx.len() == before;
    for param in params {
        let (ParamKind::ConstPtr(elem) | ParamKind::MutPtr(elem)) = param.kind() else {
            continue;
        };
        if crate::ast::is_void(elem) {
            cx.error(
                &param.ty,
                format!(
                    "a contract cannot make this launch safe: `{}` is untyped memory (`void*`), \
                     whose length in elements no condition can state (leave this kernel without \
                     #[requires]: its launch stays `unsafe`)",
                    param.ident
                ),
            );
        } else if matches!(elem, Type::Ptr(_)) {
            cx.error(
                &param.ty,
                format!(
                    "a contract cannot make this launch safe: `{}` points to pointers, and no \
                     length checks the memory they point to (leave this kernel without \
                     #[requires]: its launch stays `unsafe`)",
                    param.ident
                ),
            );
        } else if read_whole && !conditions.iter().any(|c| c.test.names_memory(&param.ident)) {
            cx.error(
                &param.ident,
                format!(
                    "the contract says nothing of `{0}`: a safe launch needs a condition on the \
                     memory of every pointer (`{0}.len() >= n`, or `{0}.is_null() || \
                     {0}.len() >= n` for an optional one)",
                    param.ident
                ),
            );
        }
    }
    (cx.len() == before).then_some(Contract {
        conditions,
        span: first.span(),
    })
}

/// What a contract may name.
struct Scope<'a> {
    params: &'a [Param],
    generics: &'a [KernelGeneric],
}

impl Scope<'_> {
    fn test(&self, cx: &mut Errors, expr: &Expr) -> Option<Test> {
        match expr {
            Expr::Paren(p) => self.test(cx, &p.expr),
            Expr::Group(g) => self.test(cx, &g.expr),
            Expr::Binary(b) => {
                let compare = match b.op {
                    BinOp::And(_) | BinOp::Or(_) => {
                        let (left, right) = (self.test(cx, &b.left), self.test(cx, &b.right));
                        let (left, right) = (Box::new(left?), Box::new(right?));
                        return Some(match b.op {
                            BinOp::And(_) => Test::And(left, right),
                            _ => Test::Or(left, right),
                        });
                    }
                    BinOp::Ge(_) => Compare::Ge,
                    BinOp::Gt(_) => Compare::Gt,
                    BinOp::Le(_) => Compare::Le,
                    BinOp::Lt(_) => Compare::Lt,
                    BinOp::Eq(_) => Compare::Eq,
                    BinOp::Ne(_) => Compare::Ne,
                    _ => {
                        cx.error(expr, format!("not a condition: {SHAPES}"));
                        return None;
                    }
                };
                let (left, right) = (self.term(cx, &b.left), self.term(cx, &b.right));
                Some(Test::Compare(left?, compare, right?))
            }
            Expr::MethodCall(_) => self.null_test(cx, expr, true),
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => match &*u.expr {
                inner @ Expr::MethodCall(_) => self.null_test(cx, inner, false),
                _ => {
                    cx.error(expr, format!("not a condition: {SHAPES}"));
                    None
                }
            },
            _ => {
                cx.error(expr, format!("not a condition: {SHAPES}"));
                None
            }
        }
    }

    /// `p.is_null()`.
    fn null_test(&self, cx: &mut Errors, expr: &Expr, is_null: bool) -> Option<Test> {
        let Expr::MethodCall(call) = expr else {
            unreachable!("called for method calls")
        };
        if call.method != "is_null" || !call.args.is_empty() {
            cx.error(expr, format!("not a condition: {SHAPES}"));
            return None;
        }
        let param = self.pointer(cx, &call.receiver, "is_null()")?;
        Some(Test::Null(param, is_null))
    }

    /// The pointer parameter a `.len()` or `.is_null()` is called on.
    fn pointer(&self, cx: &mut Errors, receiver: &Expr, method: &str) -> Option<Ident> {
        let Some(ident) = plain_ident(receiver) else {
            cx.error(
                receiver,
                format!("`.{method}` is called on a pointer parameter by its name"),
            );
            return None;
        };
        match self.params.iter().find(|p| p.ident == *ident) {
            Some(p) if !matches!(p.kind(), ParamKind::Value) => Some(ident.clone()),
            Some(_) => {
                cx.error(
                    receiver,
                    format!(
                        "`{ident}` is not a pointer: `.{method}` is for the memory a pointer \
                         parameter is given (`{ident}` itself is compared as it is: `{ident} >= \
                         1`)"
                    ),
                );
                None
            }
            None => {
                self.unknown(cx, receiver, ident);
                None
            }
        }
    }

    fn unknown(&self, cx: &mut Errors, at: &Expr, ident: &Ident) {
        let names: Vec<String> = self.params.iter().map(|p| p.ident.to_string()).collect();
        cx.error(
            at,
            format!(
                "the contract names `{ident}`, which is not a parameter of this kernel (its \
                 parameters are {}; the launch configuration is `config`)",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
    }

    fn term(&self, cx: &mut Errors, expr: &Expr) -> Option<Term> {
        match expr {
            Expr::Paren(p) => self.term(cx, &p.expr),
            Expr::Group(g) => self.term(cx, &g.expr),
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(int) => match int.base10_parse::<i128>() {
                    Ok(value) => Some(Term::Literal(value)),
                    Err(e) => {
                        cx.push(e);
                        None
                    }
                },
                _ => {
                    cx.error(
                        expr,
                        format!("a contract computes with integers, not this literal: {SHAPES}"),
                    );
                    None
                }
            },
            Expr::Binary(b) => {
                let op = match b.op {
                    BinOp::Add(_) => Arith::Add,
                    BinOp::Sub(_) => Arith::Sub,
                    BinOp::Mul(_) => Arith::Mul,
                    BinOp::Div(_) => Arith::Div,
                    BinOp::Rem(_) => Arith::Rem,
                    _ => {
                        cx.error(
                            expr,
                            format!(
                                "a contract's integers combine with `+`, `-`, `*`, `/` and `%`: \
                                 {SHAPES}"
                            ),
                        );
                        return None;
                    }
                };
                let (left, right) = (self.term(cx, &b.left), self.term(cx, &b.right));
                Some(Term::Arith(Box::new(left?), op, Box::new(right?)))
            }
            Expr::MethodCall(call) => {
                if is_config(&call.receiver) && call.args.is_empty() {
                    let term = match call.method.to_string().as_str() {
                        "threads" => Some(ConfigTerm::Threads),
                        "blocks" => Some(ConfigTerm::Blocks),
                        "block_threads" => Some(ConfigTerm::BlockThreads),
                        _ => None,
                    };
                    return match term {
                        Some(term) => Some(Term::Config(term)),
                        None => {
                            cx.error(&call.method, CONFIG_TERMS);
                            None
                        }
                    };
                }
                if call.method != "len" || !call.args.is_empty() {
                    cx.error(
                        expr,
                        format!("a contract reads lengths with `.len()`: {SHAPES}"),
                    );
                    return None;
                }
                Some(Term::Len(self.pointer(cx, &call.receiver, "len()")?))
            }
            Expr::Call(call) => match size_of_type(call) {
                Some(ty) => Some(Term::SizeOf(Box::new(ty.clone()))),
                None => {
                    cx.error(
                        expr,
                        format!(
                            "the one function a contract calls is `size_of::<T>()`, the device \
                             size of a parameter type: {SHAPES}"
                        ),
                    );
                    None
                }
            },
            Expr::Field(field) => match config_field(field) {
                Some(term) => Some(Term::Config(term)),
                None => {
                    cx.error(expr, CONFIG_TERMS);
                    None
                }
            },
            Expr::Path(_) => {
                let Some(ident) = plain_ident(expr) else {
                    cx.error(expr, format!("not a term of a contract: {SHAPES}"));
                    return None;
                };
                if ident == "config" {
                    cx.error(expr, CONFIG_TERMS);
                    return None;
                }
                if let Some(param) = self.params.iter().find(|p| p.ident == *ident) {
                    return self
                        .value(cx, expr, param)
                        .then(|| Term::Value(ident.clone()));
                }
                let is_const = self.generics.iter().any(|g| {
                    matches!(g, KernelGeneric::Const { ident: c, code: Some(_), .. } if c == ident)
                });
                if is_const {
                    return Some(Term::Value(ident.clone()));
                }
                self.unknown(cx, expr, ident);
                None
            }
            _ => {
                cx.error(expr, format!("not a term of a contract: {SHAPES}"));
                None
            }
        }
    }

    /// Whether `param`'s value is an integer a contract can compute with (else an error).
    fn value(&self, cx: &mut Errors, at: &Expr, param: &Param) -> bool {
        let ident = &param.ident;
        if !matches!(param.kind(), ParamKind::Value) {
            cx.error(
                at,
                format!(
                    "`{ident}` is a pointer: a contract compares the length of its memory, \
                     `{ident}.len()`, in elements"
                ),
            );
            return false;
        }
        let builtin = match &param.ty {
            Type::Path(p) if p.qself.is_none() => p
                .path
                .segments
                .last()
                .and_then(|s| types::by_name(&s.ident.to_string())),
            _ => None,
        };
        match builtin {
            Some(t) if t.class == Class::Integer && t.rust != "bool" => true,
            Some(_) => {
                cx.error(
                    at,
                    format!(
                        "a contract compares integers, and `{ident}` is `{}`",
                        crate::text::type_text(&param.ty)
                    ),
                );
                false
            }
            None => {
                cx.error(
                    at,
                    format!(
                        "a contract compares integers, and `{ident}` is `{}`, not a built-in \
                         integer type",
                        crate::text::type_text(&param.ty)
                    ),
                );
                false
            }
        }
    }
}

const CONFIG_TERMS: &str = "the launch configuration gives `config.threads()` (threads in the \
                            grid), `config.blocks()`, `config.block_threads()`, `config.grid.0` \
                            (`.1`, `.2`), `config.block.0` (`.1`, `.2`) and \
                            `config.shared_mem_bytes`";

fn plain_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => p.path.get_ident(),
        _ => None,
    }
}

/// `size_of::<T>()` (or `core::mem::size_of`, `std::mem::size_of`): `T`.
fn size_of_type(call: &syn::ExprCall) -> Option<&Type> {
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "size_of" || !call.args.is_empty() || path.qself.is_some() {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        },
        _ => None,
    }
}

fn is_config(expr: &Expr) -> bool {
    plain_ident(expr).is_some_and(|i| i == "config")
}

/// `config.grid.0`, `config.block.2`, `config.shared_mem_bytes`.
fn config_field(field: &syn::ExprField) -> Option<ConfigTerm> {
    match (&*field.base, &field.member) {
        (base, syn::Member::Named(name)) if is_config(base) && name == "shared_mem_bytes" => {
            Some(ConfigTerm::SharedMemBytes)
        }
        (Expr::Field(inner), syn::Member::Unnamed(index)) if is_config(&inner.base) => {
            let axis = u8::try_from(index.index).ok().filter(|i| *i < 3)?;
            match &inner.member {
                syn::Member::Named(name) if name == "grid" => Some(ConfigTerm::Grid(axis)),
                syn::Member::Named(name) if name == "block" => Some(ConfigTerm::Block(axis)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(decl: &str) -> (Errors, Option<Contract>) {
        let f: syn::ForeignItemFn = syn::parse_str(decl).unwrap();
        let mut cx = Errors::default();
        let block = crate::parse::parse_block(
            &mut cx,
            syn::parse_quote!(unsafe extern "C" { #f }),
            &Default::default(),
        );
        let contract = block.kernels[0].contract.clone();
        (cx, contract)
    }

    fn errors(decl: &str) -> Vec<String> {
        kernel(decl).0.messages()
    }

    #[test]
    fn conditions_read_back_as_written() {
        let (cx, contract) = kernel(
            "#[requires(a.len() >= n, c.len() >= (rows * cols), config.threads() <= a.len() + 1)]
             #[requires(bias.is_null() || bias.len() >= n && n > 0, !c.is_null())]
             #[requires(c.len() >= rows - (cols - 1), config.grid.1 * config.block.0 >= 2)]
             #[requires(config.shared_mem_bytes >= config.block.0 * size_of::<f32>())]
             fn k(a: *const f32, bias: *const f32, c: *mut f32, n: i32, rows: u32, cols: usize);",
        );
        assert!(cx.is_empty(), "{:?}", cx.messages());
        let shown: Vec<String> = contract
            .unwrap()
            .conditions
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            shown,
            [
                "a.len() >= n",
                "c.len() >= rows * cols",
                "config.threads() <= a.len() + 1",
                "bias.is_null() || bias.len() >= n && n > 0",
                "!c.is_null()",
                "c.len() >= rows - (cols - 1)",
                "config.grid.1 * config.block.0 >= 2",
                "config.shared_mem_bytes >= config.block.0 * size_of::<f32>()",
            ]
        );
    }

    #[test]
    fn mistakes_are_errors_on_their_terms() {
        let e = errors("#[requires(c.len() >= m)] fn k(c: *mut f32, n: i32);");
        assert!(
            e[0].contains("names `m`, which is not a parameter"),
            "{e:?}"
        );
        let e = errors("#[requires(c.len() >= alpha)] fn k(c: *mut f32, alpha: f32);");
        assert_eq!(e, ["a contract compares integers, and `alpha` is `f32`"]);
        let e = errors("#[requires(c >= n)] fn k(c: *mut f32, n: i32);");
        assert!(e[0].contains("`c` is a pointer"), "{e:?}");
        let e = errors("#[requires(n.len() >= 1)] fn k(c: *mut f32, n: i32);");
        assert!(
            e.iter().any(|e| e.contains("`n` is not a pointer")),
            "{e:?}"
        );
        let e = errors("#[requires(a.len() >= n)] fn k(a: *const f32, b: *const f32, n: i32);");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("says nothing of `b`"), "{e:?}");
        let e = errors("#[requires(p.len() >= n)] fn k(p: *const *const f32, n: i32);");
        assert!(e[0].contains("points to pointers"), "{e:?}");
        let e = errors("#[requires(config.warps() >= 1)] fn k(n: i32);");
        assert!(e[0].contains("config.threads()"), "{e:?}");
        let e = errors("#[requires(n)] fn k(n: i32);");
        assert!(e[0].starts_with("not a condition"), "{e:?}");
        let e = errors("#[requires(n >= 1.5)] fn k(n: i32);");
        assert!(e[0].contains("not this literal"), "{e:?}");
        let e = errors("#[requires()] fn k(n: i32);");
        assert!(e[0].contains("one or more conditions"), "{e:?}");
    }
}
