//! A deterministic mutator of text inputs, for the robustness tests: nothing a user can write
//! (declarations, names, PTX, Rust sources, `.cu` files) may panic the macro, the build step or
//! the runtime's readers. Each test feeds mutations of real inputs (the repository's PTX, its
//! declarations, the mangled names in its PTX) through one entry point under `catch_unwind`.
//!
//! The count per entry point is `CUDA_KERNEL_MUTATIONS` (20,000 by default, which CI runs).

use std::panic::{AssertUnwindSafe, catch_unwind};

/// How many mutated inputs each entry point gets: `CUDA_KERNEL_MUTATIONS`, else 20,000.
pub fn count() -> usize {
    std::env::var("CUDA_KERNEL_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000)
}

/// A xorshift generator: the same seed gives the same mutations on every machine.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is replaced, as xorshift needs a non-zero state).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 for `n` = 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.bits() % n as u64) as usize
        }
    }
}

/// Fragments worth splicing into the inputs: what the front end treats specially.
const SPLICES: &[&str] = &[
    "{",
    "}",
    "{T}",
    "{op}",
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ":",
    "::",
    "*",
    "*const ",
    "*mut ",
    "&",
    "'",
    "\"",
    "\\",
    "_Z",
    "I",
    "E",
    "S_",
    "T_",
    "Li",
    "L",
    "0",
    "-1",
    "18446744073709551615",
    ".param",
    ".entry",
    ".u64",
    ".b8",
    ".align",
    ".ptr",
    ".global",
    ".const",
    "//",
    "/*",
    "*/",
    "\n",
    " ",
    "\0",
    "é",
    "fn",
    "static",
    "#[kernel(",
    "name = ",
    "cpp",
    "names(",
    "rename = ",
    "read_only",
    "grid_constant",
    "TensorMap<",
    "RawTensorMap",
    ".align 128",
    "__grid_constant__",
    "CUtensorMap",
    "usize",
    "f16",
    "T",
    "const N: i32",
    "u32",
];

/// One mutation of `input`: bytes deleted, duplicated, replaced or swapped, or a fragment
/// spliced in, one to four times. The result is valid UTF-8 (cuts fall on char boundaries).
pub fn mutate(input: &str, rng: &mut Rng) -> String {
    let mut text = input.to_string();
    for _ in 0..1 + rng.below(4) {
        let len = text.len();
        let at = boundary(&text, rng.below(len + 1));
        let end = boundary(&text, (at + 1 + rng.below(16)).min(len));
        match rng.below(6) {
            0 => text.replace_range(at..end, ""),
            1 => {
                let piece = text[at..end].to_string();
                text.insert_str(at, &piece);
            }
            2 => text.replace_range(at..end, SPLICES[rng.below(SPLICES.len())]),
            3 => text.insert_str(at, SPLICES[rng.below(SPLICES.len())]),
            4 => {
                // Swap with another span of the input.
                let other = boundary(&text, rng.below(len + 1));
                let other_end = boundary(&text, (other + (end - at)).min(len));
                if other_end <= at || other >= end {
                    let (a, b) = (
                        text[at..end].to_string(),
                        text[other..other_end].to_string(),
                    );
                    if other < at {
                        text.replace_range(at..end, &b);
                        text.replace_range(other..other_end, &a);
                    } else {
                        text.replace_range(other..other_end, &a);
                        text.replace_range(at..end, &b);
                    }
                }
            }
            _ => {
                // A digit run replaced by another number (array lengths, alignments, counts).
                if let Some(i) = text[at..].find(|c: char| c.is_ascii_digit()) {
                    let start = at + i;
                    let stop = text[start..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(text.len(), |j| start + j);
                    let numbers = ["0", "1", "3", "8", "4294967296", "99999999999999999999"];
                    text.replace_range(start..stop, numbers[rng.below(numbers.len())]);
                }
            }
        }
    }
    text
}

/// The `extern "C" { ... }` blocks of a Rust source, as written (`unsafe` added), for corpora
/// of declarations.
pub fn extern_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest
        .find("extern \"C\" {")
        .or_else(|| rest.find("extern {"))
    {
        let open = start + rest[start..].find('{').unwrap_or(0);
        let mut depth = 0;
        let mut end = None;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        blocks.push(format!("unsafe {}", &rest[start..end]));
        rest = &rest[end..];
    }
    blocks
}

fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Runs `check` on `count()` mutations of the `corpus` (round robin), seeded by `seed`, and
/// fails with the first input that panicked.
pub fn run(name: &str, seed: u64, corpus: &[String], mut check: impl FnMut(&str)) {
    assert!(!corpus.is_empty(), "{name}: empty corpus");
    let mut rng = Rng::new(seed);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failure = None;
    let total = count();
    for i in 0..total {
        let input = mutate(&corpus[i % corpus.len()], &mut rng);
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            failure = Some((i, input));
            break;
        }
    }
    std::panic::set_hook(previous);
    if let Some((i, input)) = failure {
        panic!("{name}: mutated input {i} of {total} panicked:\n{input}");
    }
    report(name, total);
}

/// The line a robustness suite prints when it passes (`--nocapture` shows it; CI does).
pub fn report(name: &str, inputs: usize) {
    eprintln!("robustness: {name}: {inputs} mutated inputs, no panic");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_valid_utf8() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let (x, y) = (
                mutate("fn é(x: *mut f32);", &mut a),
                mutate("fn é(x: *mut f32);", &mut b),
            );
            assert_eq!(x, y);
        }
    }

    #[test]
    fn a_panicking_check_is_reported_with_its_input() {
        let corpus = vec!["abc".to_string()];
        let result = std::panic::catch_unwind(|| run("t", 1, &corpus, |_| panic!("boom")));
        assert!(result.is_err());
    }
}
