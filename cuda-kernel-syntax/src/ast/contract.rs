//! The model of a contract (`#[requires(...)]`), as parsed by
//! [`contract::parse`](crate::contract::parse): the conditions under which a launch is
//! memory-safe. [`Condition`]'s `Display` is the condition as errors show it.

use std::fmt;

use proc_macro2::Span;
use syn::{Ident, Type};

/// A kernel's contract: every condition of its `#[requires(...)]` attributes, in order.
#[derive(Clone, Debug)]
pub struct Contract {
    /// The conditions, each checked before every launch.
    pub conditions: Vec<Condition>,
    /// The first `#[requires]`, for errors about the contract as a whole.
    pub span: Span,
}

/// One condition, as written between two commas of `#[requires(...)]`.
#[derive(Clone, Debug)]
pub struct Condition {
    /// What must hold.
    pub test: Test,
    /// Where it is written.
    pub span: Span,
}

/// A condition's logic.
#[derive(Clone, Debug)]
pub enum Test {
    /// `left OP right` over integers.
    Compare(Term, Compare, Term),
    /// `a && b`.
    And(Box<Test>, Box<Test>),
    /// `a || b`.
    Or(Box<Test>, Box<Test>),
    /// `p.is_null()` (`true`) or `!p.is_null()` (`false`), for a pointer parameter.
    Null(Ident, bool),
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// Integer arithmetic; overflow, or a division by zero, breaks the condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (rounding toward zero)
    Div,
    /// `%`
    Rem,
}

/// An integer a condition computes with.
#[derive(Clone, Debug)]
pub enum Term {
    /// An integer literal.
    Literal(i128),
    /// An integer parameter's value (or a const generic's).
    Value(Ident),
    /// `p.len()`: the length in elements of the memory given for pointer parameter `p`.
    Len(Ident),
    /// A number of the launch configuration.
    Config(ConfigTerm),
    /// `size_of::<T>()`: the size in bytes of a parameter type on the device (for dynamic
    /// shared memory of a template's element type).
    SizeOf(Box<Type>),
    /// Arithmetic on two terms.
    Arith(Box<Term>, Arith, Box<Term>),
}

/// A number of the launch configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigTerm {
    /// `config.threads()`: threads in the whole grid.
    Threads,
    /// `config.blocks()`: blocks in the grid.
    Blocks,
    /// `config.block_threads()`: threads in a block.
    BlockThreads,
    /// `config.grid.0` (`.1`, `.2`): blocks along one dimension.
    Grid(u8),
    /// `config.block.0` (`.1`, `.2`): threads of a block along one dimension.
    Block(u8),
    /// `config.shared_mem_bytes`: dynamic shared memory per block, in bytes.
    SharedMemBytes,
}

impl Test {
    /// Whether the test reads the memory of pointer `param` (its length or its NULL).
    pub fn names_memory(&self, param: &Ident) -> bool {
        match self {
            Test::Compare(a, _, b) => a.names_memory(param) || b.names_memory(param),
            Test::And(a, b) | Test::Or(a, b) => a.names_memory(param) || b.names_memory(param),
            Test::Null(p, _) => p == param,
        }
    }

    /// The terms whose values explain a broken condition, each once, in order.
    pub fn leaves(&self) -> Vec<Term> {
        let mut out: Vec<Term> = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<Term>) {
        match self {
            Test::Compare(a, _, b) => {
                a.collect(out);
                b.collect(out);
            }
            Test::And(a, b) | Test::Or(a, b) => {
                a.collect(out);
                b.collect(out);
            }
            Test::Null(p, _) => push_once(out, Term::Len(p.clone())),
        }
    }
}

fn push_once(out: &mut Vec<Term>, term: Term) {
    let shown = term.to_string();
    if !out.iter().any(|t| t.to_string() == shown) {
        out.push(term);
    }
}

impl Term {
    fn names_memory(&self, param: &Ident) -> bool {
        match self {
            Term::Len(p) => p == param,
            Term::Arith(a, _, b) => a.names_memory(param) || b.names_memory(param),
            _ => false,
        }
    }

    fn collect(&self, out: &mut Vec<Term>) {
        match self {
            Term::Literal(_) => {}
            Term::Arith(a, _, b) => {
                a.collect(out);
                b.collect(out);
            }
            leaf => push_once(out, leaf.clone()),
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Term::Arith(_, Arith::Add | Arith::Sub, _) => 1,
            Term::Arith(..) => 2,
            _ => 3,
        }
    }
}

impl fmt::Display for Compare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compare::Ge => ">=",
            Compare::Gt => ">",
            Compare::Le => "<=",
            Compare::Lt => "<",
            Compare::Eq => "==",
            Compare::Ne => "!=",
        })
    }
}

impl fmt::Display for Arith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Rem => "%",
        })
    }
}

impl fmt::Display for ConfigTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigTerm::Threads => f.write_str("config.threads()"),
            ConfigTerm::Blocks => f.write_str("config.blocks()"),
            ConfigTerm::BlockThreads => f.write_str("config.block_threads()"),
            ConfigTerm::Grid(axis) => write!(f, "config.grid.{axis}"),
            ConfigTerm::Block(axis) => write!(f, "config.block.{axis}"),
            ConfigTerm::SharedMemBytes => f.write_str("config.shared_mem_bytes"),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Literal(value) => write!(f, "{value}"),
            Term::Value(ident) => write!(f, "{ident}"),
            Term::Len(ident) => write!(f, "{ident}.len()"),
            Term::Config(term) => write!(f, "{term}"),
            Term::SizeOf(ty) => write!(f, "size_of::<{}>()", crate::text::type_text(ty)),
            Term::Arith(a, op, b) => {
                let own = self.precedence();
                // Left-associative: the right side needs parentheses at equal precedence.
                if a.precedence() < own {
                    write!(f, "({a})")?;
                } else {
                    write!(f, "{a}")?;
                }
                write!(f, " {op} ")?;
                if b.precedence() <= own {
                    write!(f, "({b})")
                } else {
                    write!(f, "{b}")
                }
            }
        }
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Test::Compare(a, op, b) => write!(f, "{a} {op} {b}"),
            Test::Null(p, true) => write!(f, "{p}.is_null()"),
            Test::Null(p, false) => write!(f, "!{p}.is_null()"),
            Test::And(a, b) => {
                for (i, side) in [a, b].into_iter().enumerate() {
                    if i == 1 {
                        f.write_str(" && ")?;
                    }
                    match **side {
                        Test::Or(..) => write!(f, "({side})")?,
                        _ => write!(f, "{side}")?,
                    }
                }
                Ok(())
            }
            Test::Or(a, b) => write!(f, "{a} || {b}"),
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.test)
    }
}
