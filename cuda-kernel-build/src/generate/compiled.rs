//! The compiler's facts ([`crate::facts`]) in Rust: an entry's parameters as nvcc typed them,
//! and the records and enums they reach as `#[derive(KernelParam)]` structs laid out as the
//! compiler laid them out (class-template instances, structs with methods or base classes,
//! unions, bit-fields, structs, enums and typedefs of any header).

use cuda_kernel_syntax::types;

use crate::facts::{FUNCTION, Facts, MAX_DEPTH, Member, Record, Type, TypeRef};
use crate::naming;

/// The Rust the facts give a file's kernels: the records written so far.
pub(super) struct FromFacts<'a> {
    facts: &'a Facts,
    /// How deep `value` is in a type (a type of the facts that refers to itself other than
    /// through a struct, which nvcc never writes, ends there).
    depth: usize,
    /// The typedef the record `value` reaches next is named by (`glm::vec3` for
    /// `glm::vec<3, float, (glm::qualifier)0>`, `Foo` for `typedef struct { ... } Foo`).
    alias: Option<String>,
    /// Each record written: its type's index, its C++ name, its Rust name, its item, and the
    /// C++ names of the records its fields hold.
    pub(super) records: Vec<(usize, String, String, String, Vec<String>)>,
    /// The qualified names of the structs the file's text defines: the device's debug
    /// information names a record without its namespaces (`shape_t` for `wp::shape_t`).
    known: Vec<String>,
    /// The modules holding records whose names other types have, by namespace (`b`,
    /// `global`).
    modules: Vec<(String, String)>,
    /// The build step's header: a record it defines is one of the crate's own structs.
    pub(super) crate_header: Option<String>,
}

impl<'a> FromFacts<'a> {
    pub(super) fn new(facts: &'a Facts, known: Vec<String>) -> FromFacts<'a> {
        FromFacts {
            facts,
            depth: 0,
            alias: None,
            records: Vec::new(),
            known,
            modules: Vec::new(),
            crate_header: None,
        }
    }

    /// A record's name with its namespaces: as the facts have it where it has them (from an
    /// entry's symbol), else the one struct of the file's text so named.
    fn qualified(&self, name: &str) -> String {
        if name.is_empty() || name.contains("::") || name.contains('<') {
            return name.to_string();
        }
        let suffix = format!("::{name}");
        let mut found = self
            .known
            .iter()
            .filter(|k| *k == name || k.ends_with(&suffix));
        match (found.next(), found.next()) {
            (Some(one), None) => one.clone(),
            _ => name.to_string(),
        }
    }

    /// The Rust types of the entry `symbol`'s parameters, the records they reach written
    /// (those of `structs`, the crate's and the file's, by their Rust names); `None` where the
    /// facts do not have the entry.
    /// A parameter the source takes as `const __grid_constant__` is one of `grid_constant`
    /// (a TMA descriptor must be, and is then a `RawTensorMap`).
    pub(super) fn params(
        &mut self,
        symbol: &str,
        grid_constant: &[bool],
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Option<Result<Vec<String>, String>> {
        let entry = self.facts.entry(symbol)?;
        Some(
            entry
                .params
                .iter()
                .enumerate()
                .map(|(i, &ty)| {
                    let descriptor = self.is_tensor_map(ty);
                    match (descriptor, grid_constant.get(i).copied().unwrap_or(false)) {
                        (true, true) => Ok("::cuda_kernel::RawTensorMap".to_string()),
                        (true, false) => Err("takes a `CUtensorMap` that is not `const \
                             __grid_constant__` (a TMA descriptor must be)"
                            .to_string()),
                        (false, _) => self.value(ty, structs, names, source),
                    }
                    .map_err(|why| format!("parameter {} {why}", i + 1))
                })
                .collect(),
        )
    }

    /// Whether `ty` is a TMA descriptor by value (`CUtensorMap`, its struct
    /// `CUtensorMap_st`), as the type table names it.
    fn is_tensor_map(&self, ty: TypeRef) -> bool {
        let tensor_map = |name: &str| {
            types::by_c_name(name).is_some_and(|t| t.cuda == types::TENSOR_MAP[0].cuda)
        };
        let mut ty = self.facts.unqualified(ty);
        for _ in 0..MAX_DEPTH {
            match self.facts.ty(ty) {
                Some(Type::Typedef { name, .. }) if tensor_map(name) => return true,
                Some(Type::Typedef { to, .. }) => ty = self.facts.unqualified(*to),
                Some(Type::Record(r)) => return r.name.as_deref().is_some_and(tensor_map),
                _ => return false,
            }
        }
        false
    }

    /// A parameter's, a field's or a device function's return type: its qualifiers dropped
    /// (a `const float` is passed as a `float`).
    pub(super) fn value(
        &mut self,
        ty: TypeRef,
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Result<String, String> {
        if self.depth > MAX_DEPTH {
            return Err("has types nested too deeply".to_string());
        }
        self.depth += 1;
        let value = self.value_within(ty, structs, names, source);
        self.depth -= 1;
        value
    }

    fn value_within(
        &mut self,
        ty: TypeRef,
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Result<String, String> {
        let ty = self.facts.unqualified(ty);
        let Some(index) = ty else {
            return Err("is `void`".to_string());
        };
        match &self.facts.types[index] {
            Type::Base { name, .. } => base(name),
            // A C type the table names (`size_t`, `uint32_t`, `float4`), by that name.
            Type::Typedef { name, to } => match super::builtin(name) {
                Some(t) if !t.contains("TensorMap") => Ok(t),
                Some(_) => Err(format!("takes `{name}` (declare a TMA descriptor by hand)")),
                None => {
                    // A class-template instance or an unnamed record is named after it; not
                    // after nvcc's own typedefs of its stubs (`_Z4ViewIfE`).
                    let named = match self.facts.ty(self.facts.unqualified(*to)) {
                        Some(Type::Record(r)) => r.name.as_deref().is_none_or(|n| n.contains('<')),
                        _ => false,
                    };
                    if named && !name.starts_with("_Z") && !name.is_empty() {
                        self.alias = Some(name.clone());
                    }
                    let value = self.value(*to, structs, names, source);
                    self.alias = None;
                    value
                }
            },
            Type::Pointer(to) => {
                let to_const = is_const(self.facts, *to);
                let q = if to_const { "const" } else { "mut" };
                match self.facts.unqualified(*to) {
                    None => Ok(format!("*{q} ::cuda_kernel::ffi::c_void")),
                    Some(i) => match &self.facts.types[i] {
                        Type::Record(Record {
                            size: None, name, ..
                        }) => Err(format!(
                            "takes a pointer to `{}`, {NO_LAYOUT}",
                            name.as_deref().unwrap_or("an unnamed record")
                        )),
                        // A device function's address (ccminer's `bool (*)(uint32_t*)`): a
                        // 64-bit integer, read on the host from a `__device__` variable that
                        // holds it; the symbol's check takes `u64` for it.
                        Type::Other(FUNCTION) => Ok("u64".to_string()),
                        Type::Other(what) => Err(format!("takes a pointer to {what}")),
                        _ => Ok(format!(
                            "*{q} {}",
                            self.value(Some(i), structs, names, source)?
                        )),
                    },
                }
            }
            Type::Reference(_) => Err("takes a reference".to_string()),
            Type::Record(record) => self.record(index, record, structs, names, source),
            // An enum by value: a `#[repr(C)]` struct of its underlying integer, named in
            // symbols by the enum's C++ name, its enumerators as constants.
            Type::Enum {
                name,
                base,
                enumerators,
                ..
            } => self.enumeration(
                index,
                name.as_deref(),
                *base,
                enumerators,
                structs,
                names,
                source,
            ),
            Type::Array { elem, len } => {
                let len = len.ok_or("has an array of unknown length")?;
                Ok(format!(
                    "[{}; {len}]",
                    self.value(*elem, structs, names, source)?
                ))
            }
            Type::Other(what) => Err(format!("takes {what}")),
            Type::Const(_) | Type::Volatile(_) | Type::Restrict(_) => {
                Err("has a type this generator does not read".to_string())
            }
        }
    }

    /// The Rust name of the record or enum written for the C++ name `cpp`.
    pub(super) fn rust_of_record(&self, cpp: &str) -> Option<String> {
        self.records
            .iter()
            .find(|r| r.1 == cpp && !r.2.is_empty())
            .map(|r| r.2.clone())
    }

    /// The C++ name of the record or enum written as the Rust type `rust`.
    pub(super) fn cpp_of_record(&self, rust: &str) -> Option<String> {
        self.records
            .iter()
            .find(|r| r.2 == rust)
            .map(|r| r.1.clone())
    }

    /// An enum's Rust type: the crate's where it binds one, else a `#[repr(C)]` struct of its
    /// underlying integer written here, its enumerators as constants.
    #[allow(clippy::too_many_arguments)]
    fn enumeration(
        &mut self,
        index: usize,
        name: Option<&str>,
        base: TypeRef,
        enumerators: &[(String, i128)],
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Result<String, String> {
        let Some(cpp) = name else {
            return Err("takes an unnamed enum by value".to_string());
        };
        if let Some((_, rust)) = structs.iter().find(|(c, r)| c == cpp && !r.is_empty()) {
            return Ok(rust.clone());
        }
        if let Some(done) = self.records.iter().find(|r| r.0 == index) {
            return Ok(done.2.clone());
        }
        let base = self.value(base, structs, names, source)?;
        // In UpperCamelCase (`pool_op` is `PoolOp`): a tuple struct, which no parameter of the
        // file or of a launcher (`config`) may be named as.
        let last = cpp.rsplit("::").next().unwrap_or(cpp);
        let camel = cuda_kernel_syntax::ast::upper_camel_case(last);
        let rust = match naming::free_type_name(&camel) {
            true => names.claim(&[camel.clone(), format!("{camel}Enum")]),
            false => names.claim(&[format!("{camel}Enum")]),
        };
        let consts: String = enumerators
            .iter()
            .map(|(name, value)| {
                format!(
                    "    /// `{cpp}::{name}`.\n    pub const {}: {rust} = {rust}({value});\n",
                    naming::ident(name)
                )
            })
            .collect();
        let consts = match consts.is_empty() {
            true => String::new(),
            false => format!("#[allow(non_upper_case_globals)]\nimpl {rust} {{\n{consts}}}\n"),
        };
        let item = format!(
            "/// `enum {cpp}` of {source}: a value of it.\n\
             #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::cuda_kernel::KernelParam)]\n\
             #[kernel_param(cuda_name = \"{}\")]\n#[repr(C)]\n\
             pub struct {rust}(pub {base});\n{consts}",
            spelled_cuda_name(cpp)
        );
        self.records
            .push((index, cpp.to_string(), rust.clone(), item, Vec::new()));
        Ok(rust)
    }

    /// A record's Rust type: a built-in type (`float4`, `__half`), a struct the crate or the
    /// file already has, or a struct written here with the compiler's layout.
    fn record(
        &mut self,
        index: usize,
        record: &Record,
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Result<String, String> {
        let alias = self.alias.take();
        let cpp = self.qualified(record.name.as_deref().unwrap_or_default());
        if let Some(t) = types::by_cuda_name(&cpp) {
            return Ok(t.rust_path("::cuda_kernel"));
        }
        if let Some((_, rust)) = structs.iter().find(|(c, _)| *c == cpp) {
            if !rust.is_empty() {
                return Ok(rust.clone());
            }
        }
        if let Some(done) = self.records.iter().find(|r| r.0 == index) {
            return Ok(done.2.clone());
        }
        if record.file.is_some() && record.file == self.crate_header {
            let last = cpp.rsplit("::").next().unwrap_or(&cpp);
            return Err(format!(
                "takes `{cpp}`, a #[derive(KernelParam)] struct of the crate's: name its Rust path \
                 with Build::bind_struct(\"{cpp}\", \"crate::...::{last}\")"
            ));
        }
        let shown = match (record.name.as_deref(), &alias) {
            (Some(_), _) => format!("`{cpp}`"),
            (None, Some(alias)) => format!("`{alias}`"),
            (None, None) if record.union => "an unnamed union".to_string(),
            (None, None) => "an unnamed struct".to_string(),
        };
        let size = record
            .size
            .ok_or_else(|| format!("takes {shown}, {NO_LAYOUT}"))?;
        let (_, align) = layout(self.facts, Some(index))
            .ok_or_else(|| format!("takes {shown}, whose layout is unknown"))?;
        if !align.is_power_of_two() || align > 1 << 29 {
            return Err(format!("takes {shown}, aligned to {align} bytes"));
        }
        // A plain C++ name is the struct's, as the source writes it (`bias_params`); one
        // `#[kernel]` reads as its own (`Box`, `Float4`) takes a `_`; one another type of the
        // file has (a struct of another namespace, the module type) or no identifier spells
        // (`ref`) goes in a module named after its namespace (`b::Pair`, `global::r#ref`).
        // A class template's instance is named after its arguments (`ViewF32`), or its typedef;
        // an unnamed record after the record that holds it, still being laid out (ggml's
        // `block_q4_1` holds an unnamed union: `BlockQ41Union`).
        let last = cpp.rsplit("::").next().unwrap_or(&cpp).to_string();
        let plain = alias.is_none() && !cpp.is_empty() && !cpp.contains(['<', '(']);
        let rust = match (cpp.is_empty(), &alias) {
            _ if plain => match names.is_taken(&last) || naming::ident(&last) != last {
                false => claim_free(names, last.clone()),
                true => {
                    let scope = match cpp.rsplit_once("::") {
                        Some((ns, _)) => ns.replace("::", "_"),
                        None => "global".to_string(),
                    };
                    let module = match self.modules.iter().find(|(n, _)| *n == scope) {
                        Some((_, m)) => m.clone(),
                        None => {
                            let m = names.claim(&[naming::module(&scope)]);
                            self.modules.push((scope, m.clone()));
                            m
                        }
                    };
                    format!("{module}::{}", naming::ident(&last))
                }
            },
            (true, None) => {
                let outer = self.records.iter().rev().find(|r| r.3.is_empty());
                let kind = if record.union { "Union" } else { "Struct" };
                // In UpperCamelCase, as a type is (`block_q4_1`'s is `BlockQ41Union`).
                let outer = outer.map_or("", |r| r.2.rsplit("::").next().unwrap_or_default());
                let outer = match outer.is_empty() {
                    true => String::new(),
                    false => {
                        cuda_kernel_syntax::ast::upper_camel_case(outer.trim_start_matches("r#"))
                    }
                };
                claim_free(names, format!("{outer}{kind}"))
            }
            _ => claim_free(names, rust_type_name(alias.as_deref().unwrap_or(&cpp))),
        };
        // Claimed before its fields are read: a field may point to it.
        self.records
            .push((index, cpp.clone(), rust.clone(), String::new(), Vec::new()));
        let written = |fields: &str, uses: Vec<String>, what: &str| {
            // A union is written as its bytes, aligned to 1 but by its `repr`.
            let natural = match record.union {
                true => 1,
                false => natural_align(self.facts, record),
            };
            let repr = match align > natural {
                true => format!("#[repr(C, align({align}))]"),
                false => "#[repr(C)]".to_string(),
            };
            // Symbols name an unnamed record by its typedef.
            let named = match (cpp.is_empty(), &alias) {
                (true, Some(alias)) => alias.as_str(),
                _ => cpp.as_str(),
            };
            // In a module (`b::Pair`): its item marked for the module's.
            let (scope, ident) = match rust.rsplit_once("::") {
                Some((scope, ident)) => (Some(scope), ident),
                None => (None, rust.as_str()),
            };
            let cuda_name = match !named.contains('<')
                && !named.is_empty()
                && named != ident.trim_start_matches("r#")
            {
                true => format!(
                    "#[kernel_param(cuda_name = \"{}\")]\n",
                    spelled_cuda_name(named)
                ),
                false => String::new(),
            };
            let item = format!(
                "/// {shown} of {source}{what}.\n\
                 #[derive(Clone, Copy, Debug, ::cuda_kernel::KernelParam)]\n\
                 {cuda_name}{repr}\n#[allow(non_snake_case, non_camel_case_types)]\n\
                 pub struct {ident} {{\n{fields}}}\n"
            );
            let item = match scope {
                Some(scope) => format!("{}{scope}\n{item}", super::MODULE_MARK),
                None => item,
            };
            (item, uses)
        };
        let made = self.layout_fields(record, &shown, size, align, structs, names, source);
        let (item, uses) = match made {
            Ok(fields) => written(&fields.0, fields.1, fields.2),
            Err(why) => {
                self.records.retain(|r| r.0 != index);
                return Err(why);
            }
        };
        if let Some(done) = self.records.iter_mut().find(|r| r.0 == index) {
            done.3 = item;
            done.4 = uses;
        }
        Ok(rust)
    }

    /// A record's fields as the compiler laid them out, the structs they name, and what to say
    /// of it in its doc line.
    #[allow(clippy::too_many_arguments)]
    fn layout_fields(
        &mut self,
        record: &Record,
        shown: &str,
        size: u64,
        align: u64,
        structs: &[(String, String)],
        names: &mut naming::TypeNames,
        source: &str,
    ) -> Result<(String, Vec<String>, &'static str), String> {
        if record.union {
            return Ok((
                format!("    pub bytes: [u8; {size}],\n"),
                Vec::new(),
                ": a union, its bytes",
            ));
        }
        let mut fields = String::new();
        let mut taken = Vec::new();
        let mut at = 0u64;
        let mut pads = 0;
        let mut pad = |fields: &mut String, to: u64, at: &mut u64| {
            if to > *at {
                fields.push_str(&format!("    pub _pad{pads}: [u8; {}],\n", to - *at));
                pads += 1;
                *at = to;
            }
        };
        // Sizes past this are no record's nvcc writes (and keep the arithmetic in range).
        let size_limit = 1u64 << 40;
        if size > size_limit {
            return Err(format!("takes {shown}, of {size} bytes"));
        }
        // The storage unit of the bit-fields last written: its offset, its field's text.
        let mut unit: Option<(u64, usize)> = None;
        let mut what = "";
        // A base class's members are the record's, where the compiler put them (a derived
        // class's members may sit in its base's tail padding, which no field of the base's
        // type could leave free).
        for member in flat_members(self.facts, record, 0) {
            let (m_size, m_align) = layout(self.facts, member.ty)
                .filter(|&(size, align)| size > 0 && size <= size_limit && align > 0)
                .ok_or_else(|| format!("takes {shown}, a member of which has no known layout"))?;
            let named = member.name.as_deref().unwrap_or("(unnamed)");
            // Bit-fields: the integer that holds them, once per storage unit
            // (`flags_bits: u32` for `unsigned flags : 3, kind : 5;`).
            if let Some((bit_offset, bits)) = member.bits {
                let Type::Base { .. } = self
                    .facts
                    .ty(self.facts.unqualified(member.ty))
                    .map_or(&Type::Other(""), |t| t)
                else {
                    return Err(format!(
                        "takes {shown}, whose bit-field `{named}` is not of an integer type"
                    ));
                };
                if bit_offset > 8 * size_limit {
                    return Err(format!(
                        "takes {shown}, whose bit-field `{named}` is out of it"
                    ));
                }
                let unit_offset = bit_offset / (8 * m_size) * m_size;
                if (bit_offset % (8 * m_size)).saturating_add(bits) > 8 * m_size {
                    return Err(format!(
                        "takes {shown}, whose bit-field `{named}` straddles its storage unit"
                    ));
                }
                match unit {
                    Some((offset, text_at)) if offset == unit_offset => {
                        // Another bit-field of the same unit: named in its doc line.
                        let line_end = fields[text_at..]
                            .find('\n')
                            .map_or(fields.len(), |e| text_at + e);
                        fields.insert_str(line_end - 1, &format!(", `{named}: {bits}`"));
                        continue;
                    }
                    _ => {}
                }
                if unit_offset < at {
                    return Err(format!(
                        "takes {shown}, whose bit-field `{named}` shares bytes with another member"
                    ));
                }
                if unit_offset > at.next_multiple_of(m_align) {
                    pad(&mut fields, unit_offset, &mut at);
                }
                let ty = self.value(member.ty, structs, names, source)?;
                let name = naming::param(&format!("{named}_bits"), &mut taken);
                unit = Some((unit_offset, fields.len()));
                fields.push_str(&format!(
                    "    /// The bit-fields `{named}: {bits}`.\n    pub {name}: {ty},\n"
                ));
                at = unit_offset + m_size;
                what = ", its bit-fields in the integers that hold them";
                continue;
            }
            // `#[repr(C)]` pads as C does; bytes the compiler leaves beyond that are a field.
            let natural = at.next_multiple_of(m_align);
            if member.offset > size_limit {
                return Err(format!(
                    "takes {shown}, whose member `{named}` is out of it"
                ));
            }
            if member.offset < natural {
                return Err(format!("takes {shown}, which is packed"));
            }
            if member.offset > natural {
                pad(&mut fields, member.offset, &mut at);
            }
            // An enum member is its underlying integer (`ggml_type type` is an `i32`).
            let ty = match self.facts.ty(self.facts.through_typedefs(member.ty)) {
                Some(Type::Enum { base, .. }) if base.is_some() => {
                    self.value(*base, structs, names, source)
                }
                _ => self.value(member.ty, structs, names, source),
            }
            .map_err(|why| format!("takes {shown}, whose member `{named}` {why}"))?;
            let name = naming::param(member.name.as_deref().unwrap_or("unnamed"), &mut taken);
            fields.push_str(&format!("    pub {name}: {ty},\n"));
            at = member.offset + m_size;
        }
        if at > size {
            return Err(format!("takes {shown}, whose members overlap"));
        }
        if align == 0 || size % align != 0 {
            return Err(format!(
                "takes {shown}, whose size is not a multiple of its alignment"
            ));
        }
        if at.next_multiple_of(align) != size {
            pad(&mut fields, size, &mut at);
        }
        if size % align != 0 {
            return Err(format!(
                "takes {shown}, whose size is not a multiple of its alignment"
            ));
        }
        // The structs its fields name, of the file's and of these facts.
        let uses: Vec<String> = structs
            .iter()
            .map(|(c, r)| (c, r))
            .chain(self.records.iter().map(|r| (&r.1, &r.2)))
            .filter(|(_, r)| !r.is_empty() && super::mentions(&fields, r))
            .map(|(c, _)| c.clone())
            .collect();
        Ok((fields, uses, what))
    }
}

/// A type's C++ name as `#[kernel_param(cuda_name = "...")]` spells it: without anonymous
/// namespaces, which no declaration names (their symbols hold a hash of the source's path; a
/// kernel taking such a type is bound by its C++ name).
fn spelled_cuda_name(qualified: &str) -> String {
    qualified.replace(
        &format!("{}::", cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE),
        "",
    )
}

/// A record's Rust name: `candidate`, or with a `_` where `#[kernel]` reads it as one of its
/// own (`Box`, `Float4`); unique in the file.
fn claim_free(names: &mut naming::TypeNames, candidate: String) -> String {
    match naming::free_type_name(&candidate) {
        true => names.claim(&[candidate]),
        false => names.claim(&[format!("{candidate}_")]),
    }
}

/// Why a record the facts give no size cannot be declared.
const NO_LAYOUT: &str = "whose layout the file does not give (only declared, or a class template \
                         no code instantiates)";

/// Whether `ty` is `const` (under `volatile` and `__restrict__` too).
fn is_const(facts: &Facts, mut ty: TypeRef) -> bool {
    for _ in 0..MAX_DEPTH {
        match facts.ty(ty) {
            Some(Type::Const(_)) => return true,
            Some(Type::Volatile(t) | Type::Restrict(t)) => ty = *t,
            _ => return false,
        }
    }
    false
}

/// A fundamental type by the compiler's name for it (`long unsigned int`), spelled as the
/// type table and the manual spell that C type (`::cuda_kernel::ffi::c_ulong`).
fn base(name: &str) -> Result<String, String> {
    let words: Vec<String> = name.split_whitespace().map(str::to_string).collect();
    super::builtin(&super::c_spelling(&words))
        .ok_or_else(|| format!("takes `{name}`, which no Rust type of cuda-kernel stands for"))
}

/// The size and alignment of a type, as the device lays it out (as the host does: CUDA keeps
/// the two alike).
fn layout(facts: &Facts, ty: TypeRef) -> Option<(u64, u64)> {
    layout_at(facts, ty, 0)
}

fn layout_at(facts: &Facts, ty: TypeRef, depth: usize) -> Option<(u64, u64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ty = facts.unqualified(ty);
    match facts.ty(ty)? {
        Type::Base { size, .. } | Type::Enum { size, .. } => Some((*size, (*size).max(1))),
        Type::Pointer(_) => Some((8, 8)),
        Type::Typedef { to, .. } => layout_at(facts, *to, depth + 1),
        Type::Array { elem, len } => {
            let (size, align) = layout_at(facts, *elem, depth + 1)?;
            Some((size.checked_mul((*len)?)?, align))
        }
        Type::Record(record) => {
            if let Some(t) = record.name.as_deref().and_then(types::by_cuda_name) {
                return Some((t.size as u64, t.align as u64));
            }
            let size = record.size?;
            let align = natural_align_at(facts, record, depth + 1).max(record.align.unwrap_or(1));
            Some((size, align))
        }
        _ => None,
    }
}

/// The alignment a record's members give it.
fn natural_align(facts: &Facts, record: &Record) -> u64 {
    natural_align_at(facts, record, 0)
}

fn natural_align_at(facts: &Facts, record: &Record, depth: usize) -> u64 {
    record
        .members
        .iter()
        .filter_map(|m| layout_at(facts, m.ty, depth + 1).map(|l| l.1))
        .max()
        .unwrap_or(1)
}

/// A record's data members with those of its base classes, in order, at their offsets from
/// the start of the outermost record.
fn flat_members(facts: &Facts, record: &Record, at: u64) -> Vec<Member> {
    flat_members_at(facts, record, at, 0)
}

fn flat_members_at(facts: &Facts, record: &Record, at: u64, depth: usize) -> Vec<Member> {
    let mut out = Vec::new();
    for member in &record.members {
        let anonymous = |r: &Record| member.name.is_none() && r.name.is_none();
        match (member.base, facts.ty(facts.through_typedefs(member.ty))) {
            // A base class, or an anonymous struct (`struct { float x, y; };`): its members
            // are the record's.
            (true, Some(Type::Record(inner))) | (false, Some(Type::Record(inner)))
                if depth < MAX_DEPTH && (member.base || (anonymous(inner) && !inner.union)) =>
            {
                out.extend(flat_members_at(
                    facts,
                    inner,
                    at.saturating_add(member.offset),
                    depth + 1,
                ))
            }
            // An anonymous union of one type under several names (glm's
            // `union { float x, r, s; };`): one member, by its first name.
            (false, Some(Type::Record(inner)))
                if anonymous(inner)
                    && inner.union
                    && inner.members.first().is_some_and(|first| {
                        inner.members.iter().all(|m| {
                            m.offset == 0
                                && m.bits.is_none()
                                && !m.base
                                && facts.unqualified(m.ty) == facts.unqualified(first.ty)
                        })
                    }) =>
            {
                let first = &inner.members[0];
                out.push(Member {
                    offset: at.saturating_add(member.offset),
                    ..first.clone()
                })
            }
            _ => out.push(Member {
                offset: at.saturating_add(member.offset),
                bits: member
                    .bits
                    .map(|(offset, bits)| (offset.saturating_add(at.saturating_mul(8)), bits)),
                ..member.clone()
            }),
        }
    }
    out
}

/// A Rust type name for a C++ record's name: its last segment in UpperCamelCase, its template
/// arguments' words after it (`wp::vec_t<3, float>` is `VecT3F32`).
fn rust_type_name(cpp: &str) -> String {
    let (name, args) = match cpp.split_once('<') {
        Some((name, args)) => (name, args),
        None => (cpp, ""),
    };
    let last = name.rsplit("::").next().unwrap_or(name);
    let mut out = cuda_kernel_syntax::ast::upper_camel_case(last);
    let args = args.replace("unsigned ", "u");
    for word in args
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        match types::by_fundamental_name(word).or_else(|| types::by_cuda_name(word)) {
            Some(t) if types::primitive(t.rust).is_some() => {
                let mut chars = t.rust.chars();
                if let Some(first) = chars.next() {
                    out.push(first.to_ascii_uppercase());
                    out.extend(chars);
                }
            }
            _ => out.push_str(&cuda_kernel_syntax::ast::upper_camel_case(word)),
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Record");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Entry;

    fn record(name: &str, size: u64, members: Vec<Member>) -> Type {
        Type::Record(Record {
            name: Some(name.to_string()),
            union: false,
            size: Some(size),
            align: None,
            members,
            file: None,
        })
    }

    fn member(name: &str, offset: u64, ty: usize) -> Member {
        Member {
            name: Some(name.to_string()),
            offset,
            ty: Some(ty),
            bits: None,
            base: false,
        }
    }

    /// A class-template instance by value and through a pointer, with a base class and bytes
    /// the compiler left beyond C's padding: structs whose fields sit where nvcc put them.
    #[test]
    fn records_are_laid_out_as_the_compiler_laid_them_out() {
        let facts = Facts {
            types: vec![
                Type::Base {
                    name: "float".into(),
                    size: 4,
                }, // 0
                Type::Base {
                    name: "long unsigned int".into(),
                    size: 8,
                }, // 1
                Type::Pointer(Some(0)),                       // 2
                record("Base", 4, vec![member("tag", 0, 0)]), // 3
                record(
                    "wp::View<float>",
                    32,
                    vec![
                        Member {
                            name: None,
                            offset: 0,
                            ty: Some(3),
                            bits: None,
                            base: true,
                        },
                        member("data", 8, 2),
                        member("n", 24, 1),
                    ],
                ), // 4
                Type::Const(Some(4)),                         // 5
                Type::Pointer(Some(5)),                       // 6
            ],
            entries: vec![Entry {
                symbol: "_Z1kN2wp4ViewIfEEPKS1_".into(),
                params: vec![Some(4), Some(6)],
                ..Entry::default()
            }],
            functions: Vec::new(),
            enums: Vec::new(),
        };
        let mut from = FromFacts::new(&facts, Vec::new());
        let mut names = naming::TypeNames::default();
        let params = from
            .params("_Z1kN2wp4ViewIfEEPKS1_", &[], &[], &mut names, "k.cu")
            .unwrap()
            .unwrap();
        assert_eq!(params, ["ViewF32", "*const ViewF32"]);
        let view = &from.records.iter().find(|r| r.2 == "ViewF32").unwrap().3;
        assert!(
            view.contains("pub struct ViewF32 {\n    pub tag: f32,\n    pub data: *mut f32,\n    pub _pad0: [u8; 8],\n    pub n: ::cuda_kernel::ffi::c_ulong,\n}"),
            "{view}"
        );
    }

    /// glm's `vec3`: a class-template instance named by its typedef, whose members are
    /// anonymous unions of one type under several names (`union { float x, r, s; }`).
    #[test]
    fn anonymous_unions_of_one_type_are_one_field_and_typedefs_name_instances() {
        let union_of = |names: &[&str]| {
            Type::Record(Record {
                name: None,
                union: true,
                size: Some(4),
                align: None,
                members: names.iter().map(|n| member(n, 0, 0)).collect(),
                file: None,
            })
        };
        let facts = Facts {
            types: vec![
                Type::Base {
                    name: "float".into(),
                    size: 4,
                }, // 0
                union_of(&["x", "r", "s"]), // 1
                union_of(&["y", "g", "t"]), // 2
                union_of(&["z", "b", "p"]), // 3
                record(
                    "glm::vec<3, float, (glm::qualifier)0>",
                    12,
                    vec![
                        Member {
                            name: None,
                            ..member("", 0, 1)
                        },
                        Member {
                            name: None,
                            ..member("", 4, 2)
                        },
                        Member {
                            name: None,
                            ..member("", 8, 3)
                        },
                    ],
                ), // 4
                Type::Typedef {
                    name: "glm::vec3".into(),
                    to: Some(4),
                }, // 5
                Type::Pointer(Some(5)),     // 6
            ],
            entries: vec![Entry {
                symbol: "_Z10preprocessPN3glm3vecILi3EfLNS_9qualifierE0EEE".into(),
                params: vec![Some(6), Some(5)],
                ..Entry::default()
            }],
            functions: Vec::new(),
            enums: Vec::new(),
        };
        let mut from = FromFacts::new(&facts, Vec::new());
        let mut names = naming::TypeNames::default();
        let params = from
            .params(&facts.entries[0].symbol, &[], &[], &mut names, "k.cu")
            .unwrap()
            .unwrap();
        assert_eq!(params, ["*mut Vec3", "Vec3"]);
        let item = &from.records[0].3;
        assert!(
            item.starts_with("/// `glm::vec<3, float, (glm::qualifier)0>` of k.cu.")
                && item.contains(
                    "pub struct Vec3 {\n    pub x: f32,\n    pub y: f32,\n    pub z: f32,\n}"
                ),
            "{item}"
        );
    }

    /// A record the facts name without namespaces takes the one struct of the file's text so
    /// named; two such structs, or a name with its namespaces, are left as they are.
    #[test]
    fn records_take_their_namespaces_from_the_text() {
        let facts = Facts::default();
        let from = FromFacts::new(
            &facts,
            vec!["wp::shape_t".into(), "a::Pair".into(), "b::Pair".into()],
        );
        assert_eq!(from.qualified("shape_t"), "wp::shape_t");
        assert_eq!(from.qualified("Pair"), "Pair");
        assert_eq!(from.qualified("x::shape_t"), "x::shape_t");
        assert_eq!(from.qualified("View<float>"), "View<float>");
        assert_eq!(from.qualified("Other"), "Other");
    }
}
