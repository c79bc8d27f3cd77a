//! What a launcher generated from a declaration with `#[requires(...)]` calls to check its
//! contract before the driver is called: integer arithmetic in `i128` that reports overflow
//! (and division by zero) as "no value", comparisons that fail on no value, and the error of a
//! broken condition. Every condition costs a few comparisons; the error is built only when one
//! fails.

use crate::{Config, Error};

pub use crate::declare::device_arg::Memory;

/// A term's value: `None` where a length is unknown or the arithmetic overflowed, which breaks
/// any condition comparing it.
pub type Value = Option<i128>;

/// An integer parameter's value.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn value<T: Integer>(v: T) -> Value {
    Some(v.widen())
}

/// A memory's length in elements.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn len(count: Option<usize>) -> Value {
    count.map(|n| n as i128)
}

/// The integers a contract computes with: every Rust integer type (and so `ffi`'s C integer
/// types, which are aliases of them).
pub trait Integer: Copy {
    /// The value, in `i128`, which holds every one.
    fn widen(self) -> i128;
}

macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl Integer for $ty {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn widen(self) -> i128 {
                self as i128
            }
        }
    )*};
}
integers!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize, i128);

/// `a + b`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn add(a: Value, b: Value) -> Value {
    a?.checked_add(b?)
}

/// `a - b`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn sub(a: Value, b: Value) -> Value {
    a?.checked_sub(b?)
}

/// `a * b`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn mul(a: Value, b: Value) -> Value {
    a?.checked_mul(b?)
}

/// `a / b`, rounding toward zero; no value for `b = 0`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn div(a: Value, b: Value) -> Value {
    a?.checked_div(b?)
}

/// `a % b`; no value for `b = 0`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn rem(a: Value, b: Value) -> Value {
    a?.checked_rem(b?)
}

macro_rules! comparisons {
    ($($name:ident $op:tt),*) => {$(
        #[doc = concat!("`a ", stringify!($op), " b`, false where either has no value.")]
        #[cfg_attr(debug_assertions, inline)]
        #[cfg_attr(not(debug_assertions), inline(always))]
        pub fn $name(a: Value, b: Value) -> bool {
            matches!((a, b), (Some(a), Some(b)) if a $op b)
        }
    )*};
}
comparisons!(ge >=, gt >, le <=, lt <, eq ==, ne !=);

/// `config.threads()`: threads in the whole grid.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn threads(config: &Config) -> Value {
    mul(blocks(config), block_threads(config))
}

/// `config.blocks()`: blocks in the grid.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn blocks(config: &Config) -> Value {
    let (x, y, z) = config.grid;
    Some(x as i128 * y as i128 * z as i128)
}

/// `config.block_threads()`: threads in a block.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn block_threads(config: &Config) -> Value {
    let (x, y, z) = config.block;
    Some(x as i128 * y as i128 * z as i128)
}

/// `config.grid.N`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn grid(config: &Config, axis: u8) -> Value {
    let (x, y, z) = config.grid;
    Some([x, y, z][axis as usize % 3] as i128)
}

/// `config.block.N`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn block(config: &Config, axis: u8) -> Value {
    let (x, y, z) = config.block;
    Some([x, y, z][axis as usize % 3] as i128)
}

/// `config.shared_mem_bytes`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn shared_mem_bytes(config: &Config) -> Value {
    Some(config.shared_mem_bytes as i128)
}

/// The error of a broken condition: the condition as written and the values of the terms it
/// names, then of the arithmetic it compares (`true` in the third place): a length the memory
/// does not report is "unknown", arithmetic without a value "overflows" (or divides by zero).
#[cold]
#[inline(never)]
pub fn violated(condition: &'static str, values: &[(&'static str, Value, bool)]) -> Error {
    let shown: Vec<String> = values
        .iter()
        .filter_map(|(term, value, computed)| match (value, computed) {
            (Some(v), false) => Some(format!("{term} = {v}")),
            (None, false) => Some(format!("{term} unknown")),
            (None, true) => Some(format!("{term} overflows")),
            (Some(_), true) => None,
        })
        .collect();
    Error::ContractViolated {
        condition,
        values: shown.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_overflow_and_unknown_lengths_break_conditions() {
        assert!(ge(len(Some(10)), value(10u32)));
        assert!(!ge(len(Some(9)), value(10u32)));
        assert!(ge(len(Some(0)), value(-1i32)));
        assert!(!ge(len(None), value(0u8)));
        let big = value(u64::MAX);
        assert_eq!(
            mul(big, value(u32::MAX)),
            Some(u64::MAX as i128 * u32::MAX as i128)
        );
        assert_eq!(mul(big, big), None);
        assert!(!ge(mul(big, big), value(0u8)));
        assert_eq!(div(value(7), value(0)), None);
        assert_eq!(rem(value(7), value(0)), None);
        assert_eq!(sub(value(2u32), value(3u32)), Some(-1));
        let config = Config::new((4, 2, 1), (256, 1, 1));
        assert_eq!(threads(&config), Some(2048));
        assert_eq!(blocks(&config), Some(8));
        assert_eq!(block_threads(&config), Some(256));
        assert_eq!(grid(&config, 1), Some(2));
        assert_eq!(block(&config, 0), Some(256));
    }

    #[test]
    fn a_broken_condition_names_its_values() {
        let e = violated(
            "c.len() >= n",
            &[("c.len()", Some(10), false), ("n", Some(16), false)],
        );
        assert_eq!(
            e.to_string(),
            "the contract `c.len() >= n` does not hold: c.len() = 10, n = 16"
        );
        let e = violated(
            "x.len() >= n",
            &[("x.len()", None, false), ("n", Some(1), false)],
        );
        assert!(e.to_string().ends_with("x.len() unknown, n = 1"), "{e}");
        let big = Some(u64::MAX as i128);
        let e = violated(
            "c.len() >= rows * cols * 2",
            &[
                ("c.len()", Some(4), false),
                ("rows", big, false),
                ("cols", big, false),
                ("rows * cols * 2", None, true),
            ],
        );
        assert!(e.to_string().ends_with("rows * cols * 2 overflows"), "{e}");
    }
}
