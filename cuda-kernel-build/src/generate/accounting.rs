//! What a file's declarations came to: the generated text and the account of every entry of
//! the PTX (declared, by hand, elsewhere, warned, or instantiated by toolkit headers).

/// What generating a file's declarations gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// The Rust source of the block (empty when no kernel could be declared).
    pub rust: String,
    /// The kernels declared, by name.
    pub declared: Vec<String>,
    /// Kernels left out, each with why.
    pub warnings: Vec<String>,
    /// The patterns of [`Options::families`](super::Options::families) declared.
    pub named_families: Vec<String>,
    /// What became of each entry of the PTX: "N entries, N declared or warned".
    pub accounting: Accounting,
    /// The kernels declared that a header defines, not the file itself: the blocks of other
    /// files including that header leave them out ([`Options::elsewhere`](super::Options::elsewhere)).
    pub from_headers: Vec<String>,
    /// Kernel templates of the file or its headers that its PTX has no instance of, qualified:
    /// worded once for the whole build, where no file declares them.
    pub no_instance: Vec<String>,
}

/// The warning for a kernel template that no PTX of the build has an instance of, naming the
/// files (`shown`, in build order) that define or include it, the first three by name.
pub fn no_instance(qualified: &str, shown: &[String]) -> String {
    const NAMED: usize = 3;
    let files = match shown {
        [] => String::from("the build"),
        [one] => one.clone(),
        [first @ .., last] if shown.len() <= NAMED => format!("{} and {last}", first.join(", ")),
        _ => format!(
            "{} and {} more files",
            shown[..NAMED].join(", "),
            shown.len() - NAMED
        ),
    };
    let whose = match shown.len() {
        0 | 1 => "the PTX has no",
        _ => "none of their PTX has an",
    };
    format!(
        "{files}: `{qualified}` is not generated: a template {whose} instance of (nvcc \
         compiles the instances a .cu names: add an explicit instantiation)"
    )
}

/// What became of the PTX's entries: every one is declared (here, by hand, or in the block of
/// another file that includes the same header) or named in a warning.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    /// The PTX's `.entry` count.
    pub entries: usize,
    /// Entries of kernels this block declares.
    pub declared: usize,
    /// Entries of kernels the crate declares by hand.
    pub by_hand: usize,
    /// Entries of kernels from a header that another file's block declares.
    pub elsewhere: usize,
    /// Entries of kernels named in a warning.
    pub warned: usize,
    /// Entries of kernels that toolkit headers define (CUB's, Thrust's), which the file's host
    /// code instantiates and those headers' host code launches: no Rust launches them.
    pub toolkit: usize,
}

impl Accounting {
    /// Whether every entry is accounted for.
    pub fn complete(&self) -> bool {
        self.declared + self.by_hand + self.elsewhere + self.warned + self.toolkit == self.entries
    }
}

impl std::fmt::Display for Accounting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} entries in the PTX: {} declared here, {} by hand, {} in another file's block, {} named in warnings",
            self.entries, self.declared, self.by_hand, self.elsewhere, self.warned
        )?;
        if self.toolkit > 0 {
            write!(
                f,
                ", {} instantiated by toolkit headers and launched by their host code",
                self.toolkit
            )?;
        }
        Ok(())
    }
}

/// The kernel an entry symbol is an instance of, as C++ names it, nvcc's internal names aside:
/// `scale` of `scale<float>(...)`, `ns::scale` in a namespace, `(anonymous namespace)::fill`,
/// the symbol itself for `extern "C"`.
pub fn entry_function(entry: &str) -> String {
    match cuda_kernel_syntax::demangle::instance_name(entry) {
        Some(name) => match name.find('<') {
            Some(at) => name[..at].to_string(),
            None => name,
        },
        None => entry.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::no_instance;

    #[test]
    fn a_template_without_instances_is_said_with_its_files() {
        let files = |n: usize| (0..n).map(|i| format!("f{i}.cu")).collect::<Vec<_>>();
        assert_eq!(
            no_instance("scale", &files(1)),
            "f0.cu: `scale` is not generated: a template the PTX has no instance of (nvcc \
             compiles the instances a .cu names: add an explicit instantiation)"
        );
        assert!(
            no_instance("ns::scale", &files(2))
                .starts_with("f0.cu and f1.cu: `ns::scale` is not generated: a template none of their PTX has an instance of")
        );
        assert!(no_instance("s", &files(3)).starts_with("f0.cu, f1.cu and f2.cu: `s`"));
        assert!(
            no_instance("s", &files(18)).starts_with("f0.cu, f1.cu, f2.cu and 15 more files: `s`")
        );
    }
}
