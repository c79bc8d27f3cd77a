//! What a parameter is at run time, by kind: the one table every writer of a launcher reads
//! (its `LAYOUT`, `pack`, `launch`, the `LaunchArg` it hands the runtime, the `Kernel` impl's
//! `__Params`, the contract's methods and a plan's check). A new kind of parameter is a row here
//! and a constructor in the runtime.
//!
//! A spelling is text with placeholders, filled per parameter: `$e` the device element type
//! (`u64` for a pointer to pointers), `$r` a descriptor's rank, `$t` the declared type and `$i`
//! the parameter's name (both as the user's tokens, spans kept), `$n` a name as text, `$w` how
//! memory the kernel writes is borrowed (`&mut`, or `&` where only lengths are read), `$b` the
//! buffer type a value of a type not ours goes through.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;

use cuda_kernel_syntax::ast::{Kernel, Param, ParamKind, is_void};

use crate::code::Code;

/// A parameter's kind as the launcher's writers tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `*const c_void`: untyped memory read.
    InUntyped,
    /// `*mut c_void`: untyped memory written.
    OutUntyped,
    /// `*const T` (or a `*mut T` declared read-only).
    In,
    /// `*mut T`.
    Out,
    /// `TensorMap<T, N>`.
    TensorMap,
    /// A value of one of the runtime's types (a primitive, a vector or low-precision type).
    Value,
    /// A value of a type not ours, which goes through `val` (spanned on its type, where the
    /// layout reports a type that is not a parameter type).
    ValueOfUsers,
}

/// Every spelling of one kind.
struct Row {
    kind: Kind,
    /// The `Kernel` impl's `__Params` entry.
    params: &'static str,
    /// The launcher's parameter type (`launch`, `check_contract`).
    launcher: &'static str,
    /// The same where a contract needs memory to vouch for its length.
    launcher_exact: &'static str,
    /// What `launch` hands the runtime.
    launch_arg: &'static str,
    /// `pack`'s parameter type.
    pack: &'static str,
    /// What `pack` hands the runtime.
    pack_arg: &'static str,
    /// The type `LAYOUT` places.
    layout: &'static str,
    /// `__contract`'s parameter type.
    contract: &'static str,
    /// `__contract`'s argument from a launcher's.
    memory: &'static str,
    /// `__contract`'s argument from a plan's handle (`$n` is `__<name>`).
    plan: &'static str,
}

const TABLE: [Row; 7] = [
    Row {
        kind: Kind::InUntyped,
        params: "__ck_InUntyped",
        launcher: "&impl __ck_DeviceArgUntyped",
        launcher_exact: "&impl __ck_DeviceArgUntyped",
        launch_arg: "__ck_LaunchArg::input_untyped($n)",
        pack: "__ck_CUdeviceptr",
        pack_arg: "$n",
        layout: "$t",
        contract: "__ck_contract::Memory",
        memory: "__ck_contract::Memory::of::<$e, _>($i)",
        plan: "$n.__memory()",
    },
    Row {
        kind: Kind::OutUntyped,
        params: "__ck_OutUntyped",
        launcher: "$w impl __ck_DeviceArgUntypedMut",
        launcher_exact: "$w impl __ck_DeviceArgUntypedMut",
        launch_arg: "__ck_LaunchArg::output_untyped($n)",
        pack: "__ck_CUdeviceptr",
        pack_arg: "$n",
        layout: "$t",
        contract: "__ck_contract::Memory",
        memory: "__ck_contract::Memory::of_mut::<$e, _>(&*$i)",
        plan: "$n.__memory()",
    },
    Row {
        kind: Kind::In,
        params: "__ck_In<$e>",
        launcher: "&impl __ck_DeviceArg<$e>",
        launcher_exact: "&(impl __ck_DeviceArg<$e> + __ck_ExactLength)",
        launch_arg: "__ck_LaunchArg::input::<$e, _>($n)",
        pack: "__ck_CUdeviceptr",
        pack_arg: "$n",
        layout: "$t",
        contract: "__ck_contract::Memory",
        memory: "__ck_contract::Memory::of::<$e, _>($i)",
        plan: "$n.__memory()",
    },
    Row {
        kind: Kind::Out,
        params: "__ck_Out<$e>",
        launcher: "$w impl __ck_DeviceArgMut<$e>",
        launcher_exact: "$w (impl __ck_DeviceArgMut<$e> + __ck_ExactLength)",
        launch_arg: "__ck_LaunchArg::output::<$e, _>($n)",
        pack: "__ck_CUdeviceptr",
        pack_arg: "$n",
        layout: "$t",
        contract: "__ck_contract::Memory",
        memory: "__ck_contract::Memory::of_mut::<$e, _>(&*$i)",
        plan: "$n.__memory()",
    },
    Row {
        kind: Kind::TensorMap,
        params: "__ck_Tma<$e, $r>",
        launcher: "impl __ck_TensorMapArg<$e, $r>",
        launcher_exact: "impl __ck_TensorMapArg<$e, $r>",
        launch_arg: "__ck_LaunchArg::tensor_map::<$e, $r, _>(&mut { $n })",
        pack: "__ck_RawTensorMap",
        pack_arg: "$n",
        layout: "__ck_RawTensorMap",
        contract: "()",
        memory: "()",
        plan: "()",
    },
    Row {
        kind: Kind::Value,
        params: "__ck_Val<$t>",
        launcher: "$t",
        launcher_exact: "$t",
        launch_arg: "__ck_LaunchArg::value(&$n)",
        pack: "$t",
        pack_arg: "$n",
        layout: "$t",
        contract: "$t",
        memory: "$i",
        plan: "*$n",
    },
    Row {
        kind: Kind::ValueOfUsers,
        params: "__ck_Val<$t>",
        launcher: "$t",
        launcher_exact: "$t",
        // Spanned on the type (see `Kind::ValueOfUsers`).
        launch_arg: "__ck_LaunchArg::value_of(&__ck_val::<$t, $b>($i))",
        pack: "$t",
        pack_arg: "__ck_val::<$t, $b>($i)",
        layout: "$t",
        contract: "$t",
        memory: "$i",
        plan: "*$n",
    },
];

/// Which spelling a writer wants.
#[derive(Clone, Copy)]
pub(super) enum Spelling {
    Params,
    Launcher,
    LauncherExact,
    LaunchArg,
    Pack,
    PackArg,
    Layout,
    Contract,
    Memory,
    Plan,
}

/// One parameter as the table sees it: its kind, looked up once, and what fills the
/// placeholders.
pub(super) struct ParamSpelling<'a> {
    pub(super) kind: Kind,
    param: &'a Param,
    /// `$e`: a pointer's element type (`u64` where it is a pointer too: memory of addresses),
    /// or a descriptor's.
    elem: Option<&'a syn::Type>,
    /// `$r`: a descriptor's rank.
    rank: Option<&'a syn::GenericArgument>,
}

/// Every parameter of `kernel` as the table sees it.
pub(super) fn kinds(kernel: &Kernel) -> Vec<ParamSpelling<'_>> {
    kernel.params.iter().map(ParamSpelling::new).collect()
}

impl<'a> ParamSpelling<'a> {
    fn new(param: &'a Param) -> ParamSpelling<'a> {
        let (kind, elem, rank) = match param.kind() {
            ParamKind::ConstPtr(elem) if is_void(elem) => (Kind::InUntyped, Some(elem), None),
            ParamKind::MutPtr(elem) if is_void(elem) => (Kind::OutUntyped, Some(elem), None),
            ParamKind::ConstPtr(elem) => (Kind::In, Some(elem), None),
            ParamKind::MutPtr(elem) => (Kind::Out, Some(elem), None),
            ParamKind::TensorMap(elem, rank) => (Kind::TensorMap, Some(elem), Some(rank)),
            // The one lookup of the type (`Param::builtin`, made when parsed): a type the table
            // lacks is the user's.
            ParamKind::Value => match param.builtin.is_some() {
                true => (Kind::Value, None, None),
                false => (Kind::ValueOfUsers, None, None),
            },
        };
        ParamSpelling {
            kind,
            param,
            elem,
            rank,
        }
    }

    /// Writes the spelling into `c`: `name` fills `$n`, `written` `$w`, `buffer` `$b`.
    pub(super) fn write(
        &self,
        c: &mut Code,
        spelling: Spelling,
        name: &str,
        written: &str,
        buffer: Option<&TokenStream>,
    ) {
        let row = TABLE
            .iter()
            .find(|r| r.kind == self.kind)
            .unwrap_or(&TABLE[0]);
        let template = match spelling {
            Spelling::Params => row.params,
            Spelling::Launcher => row.launcher,
            Spelling::LauncherExact => row.launcher_exact,
            Spelling::LaunchArg => row.launch_arg,
            Spelling::Pack => row.pack,
            Spelling::PackArg => row.pack_arg,
            Spelling::Layout => row.layout,
            Spelling::Contract => row.contract,
            Spelling::Memory => row.memory,
            Spelling::Plan => row.plan,
        };
        let spanned = self.kind == Kind::ValueOfUsers
            && matches!(spelling, Spelling::LaunchArg | Spelling::PackArg);
        let nodes = parse(template);
        if !spanned {
            self.emit(c, &nodes, name, written, buffer, None);
            return;
        }
        // Spanned on the declared type, as `quote_spanned!` spans its own tokens: the text's
        // tokens (groups too) take the type's span, the spliced ones keep theirs.
        let mut text = Code::new();
        self.emit(&mut text, &nodes, name, written, buffer, Some(HOLE));
        let span = self.param.ty.span();
        c.stream(&self.respanned(text.finish(), span, buffer));
    }

    /// Writes `nodes`; with `marker`, each spliced placeholder as the identifier `marker<hole>`
    /// (replaced by [`respanned`](Self::respanned)).
    fn emit(
        &self,
        c: &mut Code,
        nodes: &[Node<'_>],
        name: &str,
        written: &str,
        buffer: Option<&TokenStream>,
        marker: Option<&str>,
    ) {
        for node in nodes {
            match node {
                Node::Text(text) => {
                    c.text(text);
                }
                Node::Group(delimiter, inside) => {
                    c.group(*delimiter, |c| {
                        self.emit(c, inside, name, written, buffer, marker)
                    });
                }
                Node::Hole('n') => {
                    c.text(name);
                }
                Node::Hole('w') => {
                    c.text(written);
                }
                Node::Hole(hole) => match marker {
                    Some(marker) => {
                        c.text(&format!("{marker}{hole}"));
                    }
                    None => self.splice(c, *hole, buffer),
                },
            }
        }
    }

    /// Writes the user's tokens (or the buffer type) a placeholder stands for.
    fn splice(&self, c: &mut Code, hole: char, buffer: Option<&TokenStream>) {
        match hole {
            // A pointer to pointers: memory of addresses.
            'e' if self.kind != Kind::TensorMap && matches!(self.elem, Some(syn::Type::Ptr(_))) => {
                c.text("u64");
            }
            'e' => {
                c.tokens(&self.elem);
            }
            'r' => {
                c.tokens(&self.rank);
            }
            't' => {
                c.tokens(&self.param.ty);
            }
            'i' => {
                c.tokens(&self.param.ident);
            }
            'b' => {
                c.stream(buffer.unwrap_or(&TokenStream::new()));
            }
            _ => {}
        }
    }

    /// The tokens [`splice`](Self::splice) writes.
    fn hole(&self, hole: char, buffer: Option<&TokenStream>) -> TokenStream {
        let mut c = Code::new();
        self.splice(&mut c, hole, buffer);
        c.finish()
    }

    /// `tokens` with every span, in groups too, set to `span`, and each marked placeholder
    /// replaced by its tokens, spans kept.
    fn respanned(
        &self,
        tokens: TokenStream,
        span: Span,
        buffer: Option<&TokenStream>,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for tree in tokens {
            match tree {
                TokenTree::Group(g) => {
                    let inside = self.respanned(g.stream(), span, buffer);
                    let mut group = proc_macro2::Group::new(g.delimiter(), inside);
                    group.set_span(span);
                    out.extend([TokenTree::Group(group)]);
                }
                TokenTree::Ident(ident) if ident.to_string().starts_with(HOLE) => {
                    let hole = ident.to_string().chars().last().unwrap_or(' ');
                    out.extend(self.hole(hole, buffer));
                }
                mut other => {
                    other.set_span(span);
                    out.extend([other]);
                }
            }
        }
        out
    }
}

/// The identifier a placeholder is written as before [`ParamSpelling::respanned`] replaces it.
const HOLE: &str = "__cuda_kernel_hole_";

/// A spelling's template read: text, placeholders, and the groups its delimiters make (a
/// placeholder inside parentheses, `($i)`, makes a group of spliced tokens, which [`Code`]
/// writes as a group).
enum Node<'t> {
    Text(&'t str),
    Hole(char),
    Group(Delimiter, Vec<Node<'t>>),
}

/// `template` as nodes; the tables' templates are balanced.
fn parse(template: &str) -> Vec<Node<'_>> {
    fn nodes<'t>(text: &'t str, at: &mut usize) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut start = *at;
        let bytes = text.as_bytes();
        while *at < bytes.len() {
            let delimiter = match bytes[*at] {
                b'(' => Some(Delimiter::Parenthesis),
                b'{' => Some(Delimiter::Brace),
                b'[' => Some(Delimiter::Bracket),
                _ => None,
            };
            let closes = matches!(bytes[*at], b')' | b'}' | b']');
            let hole = bytes[*at] == b'$';
            if delimiter.is_none() && !closes && !hole {
                *at += 1;
                continue;
            }
            if start < *at {
                out.push(Node::Text(&text[start..*at]));
            }
            if closes {
                *at += 1;
                return out;
            }
            if hole {
                let name = text[*at + 1..].chars().next().unwrap_or(' ');
                out.push(Node::Hole(name));
                *at += 1 + name.len_utf8();
            } else if let Some(delimiter) = delimiter {
                *at += 1;
                out.push(Node::Group(delimiter, nodes(text, at)));
            }
            start = *at;
        }
        if start < *at {
            out.push(Node::Text(&text[start..*at]));
        }
        out
    }
    let mut at = 0;
    nodes(template, &mut at)
}

/// The placeholders of `nodes`, in order.
#[cfg(test)]
fn holes(nodes: &[Node<'_>], out: &mut Vec<char>) {
    for node in nodes {
        match node {
            Node::Hole(h) => out.push(*h),
            Node::Group(_, inside) => holes(inside, out),
            Node::Text(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind has one row, and every row's spellings use only the placeholders there are.
    #[test]
    fn the_table_has_a_row_per_kind_and_known_placeholders() {
        let kinds = [
            Kind::InUntyped,
            Kind::OutUntyped,
            Kind::In,
            Kind::Out,
            Kind::TensorMap,
            Kind::Value,
            Kind::ValueOfUsers,
        ];
        for kind in kinds {
            assert_eq!(TABLE.iter().filter(|r| r.kind == kind).count(), 1);
        }
        for row in &TABLE {
            for template in [
                row.params,
                row.launcher,
                row.launcher_exact,
                row.launch_arg,
                row.pack,
                row.pack_arg,
                row.layout,
                row.contract,
                row.memory,
                row.plan,
            ] {
                let mut found = Vec::new();
                holes(&parse(template), &mut found);
                for h in found {
                    assert!("ertinwb".contains(h), "{template}");
                }
            }
        }
    }
}
