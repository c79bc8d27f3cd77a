//! The compiler's own facts about a file's kernels: what each entry of the PTX takes, read
//! from the debug information nvcc writes into PTX compiled with `-G` (`nvcc -ptx -G`, which
//! the build step runs and keeps beside the PTX for a file that needs it).
//!
//! cicc writes the DWARF of the device code it compiles into the PTX's `.debug_info` and
//! `.debug_abbrev` sections, as byte directives: a subprogram for every kernel instance, named
//! by its entry's symbol, with its parameters, in order, with their types as the compiler
//! itself resolved them (typedefs, class-template instances, enums of any header, structs with
//! methods or base classes), every record's size and member offsets, bit-fields. The DWARF is
//! read with gimli; nothing here reads C++ text. Two facts DWARF 2 does not carry come from
//! elsewhere: a by-value record's alignment from its parameter in the PTX, a record's
//! namespaces from the symbols of the entries that take it.

use std::collections::HashMap;

use gimli::{AttributeValue, constants as dw};

/// A type of the facts, by its index in [`Facts::types`]; `None` is `void`.
pub type TypeRef = Option<usize>;

/// What [`Type::Other`] says of a function type (what a pointer to a device function points at).
pub const FUNCTION: &str = "a function";

/// What the compiler says of one type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// A fundamental type as the host compiler names it (`float`, `long unsigned int`).
    Base {
        /// Its name.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// `T *`.
    Pointer(TypeRef),
    /// `T &` or `T &&`.
    Reference(TypeRef),
    /// `const T`.
    Const(TypeRef),
    /// `volatile T`.
    Volatile(TypeRef),
    /// `T __restrict__`.
    Restrict(TypeRef),
    /// A typedef or alias, by its qualified name.
    Typedef {
        /// `size_t`, `wp::vec3`.
        name: String,
        /// What it names.
        to: TypeRef,
    },
    /// A struct, class or union.
    Record(Record),
    /// An enumeration.
    Enum {
        /// Its qualified name, if it has one.
        name: Option<String>,
        /// Its size in bytes.
        size: u64,
        /// Its underlying integer type.
        base: TypeRef,
        /// Its enumerators, by their own names, with their values.
        enumerators: Vec<(String, i128)>,
    },
    /// `T[N]` (`None` for `T[]`).
    Array {
        /// The element type.
        elem: TypeRef,
        /// Its length.
        len: Option<u64>,
    },
    /// A type no declaration of ours spells (a function type, a pointer to member,
    /// `nullptr_t`), by what it is.
    Other(&'static str),
}

/// A struct, class or union as the compiler laid it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Its qualified name as the compiler prints it (`View<float>`, `wp::vec_t<3, float>`),
    /// an anonymous namespace as `(anonymous namespace)`; `None` for an unnamed one.
    pub name: Option<String>,
    /// A union.
    pub union: bool,
    /// Its size in bytes (`None`: only declared, its definition not in the file).
    pub size: Option<u64>,
    /// An alignment written on it (`alignas`, `__align__`).
    pub align: Option<u64>,
    /// Its non-static data members and base classes, in order.
    pub members: Vec<Member>,
    /// The file that defines it, as the PTX's `.file` directives name it.
    pub file: Option<String>,
}

/// A non-static data member, or a base class, of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its name (`None` for a base class or an unnamed member).
    pub name: Option<String>,
    /// Its offset in bytes.
    pub offset: u64,
    /// Its type.
    pub ty: TypeRef,
    /// A bit-field's offset in bits from the record's start, and its width.
    pub bits: Option<(u64, u64)>,
    /// A base class rather than a member.
    pub base: bool,
}

/// One kernel instance: its device symbol, its parameters' types and names, in order, and the
/// file that defines it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The device symbol (`_Z5applyIfEvP4ViewIT_E`; an `extern "C"` kernel's name).
    pub symbol: String,
    /// Each parameter's type, as the kernel takes it.
    pub params: Vec<TypeRef>,
    /// Each parameter's name as the definition writes it (`None` for an unnamed one).
    pub names: Vec<Option<String>>,
    /// The file that defines the kernel, as the PTX's `.file` directives name it (the
    /// source, a header of the code base, a header of the toolkit).
    pub file: Option<String>,
    /// How many parameters the PTX's entry takes: more than [`params`](Entry::params) where
    /// the debug information leaves one out (cicc leaves out a `__grid_constant__` parameter
    /// the kernel never reads).
    pub ptx_params: usize,
}

/// The facts of one file's PTX.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Every kernel instance nvcc compiled.
    pub entries: Vec<Entry>,
    /// Every other function of the device code: its symbol, its return type, its parameters'
    /// count (a device function a template takes as an argument is found here).
    pub functions: Vec<(String, TypeRef, usize)>,
    /// Every named enum of the device code, by its qualified name (an enum a template takes
    /// a value of, which no parameter reaches).
    pub enums: Vec<(String, usize)>,
    /// The types they reach.
    pub types: Vec<Type>,
}

impl Facts {
    /// Reads the facts of PTX that carries its debug information (`nvcc -ptx -G`): the
    /// `.debug_info` and `.debug_abbrev` sections, written in the PTX as byte directives, read
    /// as DWARF; each of the PTX's entries with the parameters of its subprogram there.
    pub fn read(ptx: &str) -> Result<Facts, String> {
        let entries = cuda_kernel_syntax::ptx::entries(ptx)
            .map_err(|e| format!("line {}: {}", e.line, e.message))?;
        let sections = debug_sections(ptx)?;
        let files = file_table(ptx);
        let empty: &[u8] = &[];
        let dwarf = gimli::Dwarf::load(|id| -> Result<_, String> {
            let data = sections
                .get(id.name())
                .map_or(empty, |data| data.as_slice());
            Ok(gimli::EndianSlice::new(data, gimli::LittleEndian))
        })?;
        let mut facts = Facts::default();
        let mut units = dwarf.units();
        while let Some(header) = units.next().map_err(dwarf_error)? {
            // Not `Dwarf::unit`: the PTX has no line program (ptxas writes it from `.loc`).
            let abbreviations = dwarf.abbreviations(&header).map_err(dwarf_error)?;
            let mut dies = Dies::read(&dwarf, &header, &abbreviations)?;
            dies.files.clone_from(&files);
            // One type of the facts per entry of the unit, whoever reaches it first (an enum
            // a parameter takes and a template's values are one enum).
            let mut types: HashMap<usize, usize> = HashMap::new();
            dies.entries(&entries, &mut facts, &mut types);
            dies.enums(&mut facts, &mut types);
        }
        facts.names_from_symbols();
        Ok(facts)
    }

    /// The facts of the PTX entry `symbol`: the instance of that symbol, nvcc's run-dependent
    /// internal names aside (the facts and the PTX come from two nvcc runs); an `extern "C"`
    /// entry by its kernel's name.
    pub fn entry(&self, symbol: &str) -> Option<&Entry> {
        use cuda_kernel_syntax::itanium::{without_internal_parts, without_nv_static_prefix};
        let masked = without_internal_parts(without_nv_static_prefix(symbol));
        let mut found = self
            .entries
            .iter()
            .filter(|e| without_internal_parts(without_nv_static_prefix(&e.symbol)) == masked);
        match (found.next(), found.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// What the device function `name` (as C++ names it, `ops::neg`, nvcc's internal names
    /// aside) of `count` parameters returns: `Some(None)` for `void`; `None` where the facts
    /// have no one such function.
    pub fn returns(&self, name: &str, count: usize) -> Option<TypeRef> {
        let mut found = self.functions.iter().filter(|(symbol, _, n)| {
            *n == count
                && cuda_kernel_syntax::demangle::instance_name(symbol).as_deref() == Some(name)
        });
        match (found.next(), found.next()) {
            (Some(one), None) => Some(one.1),
            _ => None,
        }
    }

    /// `ty` as C writes it before a declarator's name (`const float *`, `unsigned int`,
    /// `Pair`), for messages.
    pub fn c_type(&self, ty: TypeRef) -> String {
        self.c_type_at(ty, 0)
    }

    fn c_type_at(&self, ty: TypeRef, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "...".to_string();
        }
        let Some(t) = self.ty(ty) else {
            return "void".to_string();
        };
        match t {
            Type::Base { name, .. } => name.clone(),
            Type::Typedef { name, .. } => name.clone(),
            Type::Record(r) => r.name.clone().unwrap_or_else(|| "(unnamed)".to_string()),
            Type::Enum { name, .. } => name.clone().unwrap_or_else(|| "(unnamed)".to_string()),
            Type::Pointer(to) | Type::Reference(to) => {
                let mark = match t {
                    Type::Pointer(_) => '*',
                    _ => '&',
                };
                let inner = self.c_type_at(*to, depth + 1);
                match inner.ends_with(['*', '&']) {
                    true => format!("{inner}{mark}"),
                    false => format!("{inner} {mark}"),
                }
            }
            Type::Const(to) | Type::Volatile(to) | Type::Restrict(to) => {
                let word = match t {
                    Type::Const(_) => "const",
                    Type::Volatile(_) => "volatile",
                    _ => "__restrict__",
                };
                let inner = self.c_type_at(*to, depth + 1);
                match inner.ends_with(['*', '&']) {
                    true => format!("{inner} {word} "),
                    false => format!("{word} {inner}"),
                }
            }
            Type::Array { elem, len } => format!(
                "{}[{}]",
                self.c_type_at(*elem, depth + 1),
                len.map(|n| n.to_string()).unwrap_or_default()
            ),
            Type::Other(what) => what.to_string(),
        }
    }

    /// The type `ty` refers to.
    pub fn ty(&self, ty: TypeRef) -> Option<&Type> {
        ty.and_then(|i| self.types.get(i))
    }

    /// A record's name with its namespaces, as the entries' symbols spell it: the device's
    /// debug information names a record without its enclosing namespaces (`Mesh` for
    /// `wp::Mesh`), and spells template arguments its own way (`vec_t<3U,float>`).
    fn names_from_symbols(&mut self) {
        let mut named: Vec<(usize, String)> = Vec::new();
        for entry in &self.entries {
            let Some(written) = cuda_kernel_syntax::demangle::param_types(&entry.symbol) else {
                continue;
            };
            if written.len() != entry.params.len() {
                continue;
            }
            for (&param, text) in entry.params.iter().zip(&written) {
                let Some(index) = self.record_of(param) else {
                    continue;
                };
                let Type::Record(record) = &self.types[index] else {
                    continue;
                };
                let Some(name) = record.name.as_deref() else {
                    continue;
                };
                // The class under the demangled parameter's pointers and qualifiers (a class
                // template's too, which `#[kernel]`'s C++ type model does not read).
                let mut bare = text.trim();
                loop {
                    let before = bare;
                    for suffix in ["*", "&", " const", " volatile"] {
                        bare = bare.strip_suffix(suffix).unwrap_or(bare).trim_end();
                    }
                    bare = bare.strip_prefix("const ").unwrap_or(bare);
                    if before == bare {
                        break;
                    }
                }
                if bare != name && bare.ends_with(&format!("::{name}")) {
                    named.push((index, bare.to_string()));
                }
            }
        }
        for (index, name) in named {
            if let Type::Record(record) = &mut self.types[index] {
                record.name = Some(name);
            }
        }
    }

    /// The type under `ty`'s `const`, `volatile` and `__restrict__`.
    pub fn unqualified(&self, mut ty: TypeRef) -> TypeRef {
        for _ in 0..MAX_DEPTH {
            match self.ty(ty) {
                Some(Type::Const(t) | Type::Volatile(t) | Type::Restrict(t)) => ty = *t,
                _ => break,
            }
        }
        ty
    }

    /// The type under `ty`'s qualifiers and typedefs.
    pub fn through_typedefs(&self, ty: TypeRef) -> TypeRef {
        let mut ty = self.unqualified(ty);
        for _ in 0..MAX_DEPTH {
            match self.ty(ty) {
                Some(Type::Typedef { to, .. }) => ty = self.unqualified(*to),
                _ => break,
            }
        }
        ty
    }

    /// The record a parameter of this type is or points to, through qualifiers and typedefs.
    fn record_of(&self, ty: TypeRef) -> Option<usize> {
        let mut ty = self.through_typedefs(ty);
        for _ in 0..MAX_DEPTH {
            match self.ty(ty)? {
                Type::Record(_) => return ty,
                Type::Pointer(to) | Type::Reference(to) => ty = self.through_typedefs(*to),
                _ => return None,
            }
        }
        None
    }
}

/// The deepest the reader and the generator follow a type: nvcc's types are shallower by far;
/// a type that refers to itself other than through a struct (damaged debug information) stops
/// there.
pub(crate) const MAX_DEPTH: usize = 64;

/// The PTX's `.file N "path"` directives, by number: the files the debug information's
/// `DW_AT_decl_file` numbers (the PTX carries no line program of its own).
fn file_table(ptx: &str) -> HashMap<u64, String> {
    let mut files = HashMap::new();
    for line in ptx.lines() {
        let Some(rest) = line.trim_start().strip_prefix(".file") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some((number, path)) = rest.split_once(char::is_whitespace) else {
            continue;
        };
        let (Ok(number), Some(path)) = (number.parse::<u64>(), path.trim().split('"').nth(1))
        else {
            continue;
        };
        files.insert(number, path.to_string());
    }
    files
}

fn dwarf_error(e: gimli::Error) -> String {
    format!("cannot read the PTX's debug information: {e}")
}

/// The PTX's `.debug_*` sections as bytes: `.section .debug_info { .b8 2 ... }`. A label where
/// a number is written (`.b32 .debug_abbrev`, `.b64 global`) is an address or a section offset,
/// which a single unit at the start of each section reads as 0.
fn debug_sections(ptx: &str) -> Result<HashMap<&str, Vec<u8>>, String> {
    let mut sections: HashMap<&str, Vec<u8>> = HashMap::new();
    let mut lines = ptx.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        let Some(name) = line.trim().strip_prefix(".section") else {
            continue;
        };
        let name = name.trim();
        if !name.starts_with(".debug_") {
            continue;
        }
        let mut bytes = Vec::new();
        let mut opened = false;
        for (number, line) in lines.by_ref() {
            let line = line.trim();
            match line {
                "{" if !opened => {
                    opened = true;
                    continue;
                }
                "}" => break,
                "" => continue,
                _ => {}
            }
            let (directive, values) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let size = match directive {
                ".b8" => 1,
                ".b16" => 2,
                ".b32" => 4,
                ".b64" => 8,
                _ if line.ends_with(':') => continue,
                _ => {
                    return Err(format!(
                        "line {}: `{line}` in the section {name}",
                        number + 1
                    ));
                }
            };
            for value in values.split(',') {
                let value = value.trim();
                // A negative number as its two's complement; a label as 0.
                let n: u64 = match value.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16)
                        .map_err(|_| format!("line {}: `{value}` is not a number", number + 1))?,
                    None => value
                        .parse::<u64>()
                        .or_else(|_| value.parse::<i64>().map(|v| v as u64))
                        .unwrap_or(0),
                };
                bytes.extend_from_slice(&n.to_le_bytes()[..size]);
            }
        }
        sections.entry(name).or_default().extend(bytes);
    }
    Ok(sections)
}

/// One debugging-information entry, with what is read of it.
#[derive(Debug)]
struct Die {
    tag: gimli::DwTag,
    depth: isize,
    /// Its parent's index.
    parent: Option<usize>,
    name: Option<String>,
    /// A subprogram's symbol.
    linkage: Option<String>,
    ty: Option<usize>,
    byte_size: Option<u64>,
    member_offset: Option<u64>,
    bit_size: Option<u64>,
    /// DWARF 2's bit offset, counted from the most significant bit of the storage unit.
    bit_offset: Option<u64>,
    count: Option<u64>,
    upper_bound: Option<u64>,
    /// An enumerator's value.
    value: Option<i128>,
    /// The number of the file that declares it, in the `.file` directives.
    decl_file: Option<u64>,
    declaration: bool,
    external: bool,
    children: Vec<usize>,
}

/// A unit's entries, flat, their references as indices.
struct Dies {
    dies: Vec<Die>,
    /// The PTX's `.file` directives, by number.
    files: HashMap<u64, String>,
}

/// `DW_OP_plus_uconst n`, as DWARF 2 writes a member's offset.
fn plus_uconst<R: gimli::Reader>(expression: gimli::Expression<R>) -> Option<u64> {
    let mut reader = expression.0;
    match reader.read_u8().ok()? {
        0x23 => reader.read_uleb128().ok(),
        _ => None,
    }
}

impl Dies {
    fn read<R: gimli::Reader<Offset = usize>>(
        dwarf: &gimli::Dwarf<R>,
        unit: &gimli::UnitHeader<R>,
        abbreviations: &gimli::Abbreviations,
    ) -> Result<Dies, String> {
        let mut dies: Vec<Die> = Vec::new();
        let mut at: HashMap<usize, usize> = HashMap::new();
        // References, resolved once every entry is read.
        let mut refs: Vec<(usize, gimli::UnitOffset)> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cursor = unit.entries(abbreviations);
        let mut depth = 0isize;
        while let Some((delta, entry)) = cursor.next_dfs().map_err(dwarf_error)? {
            let index = dies.len();
            depth += delta;
            while stack.last().is_some_and(|&p| dies[p].depth >= depth) {
                stack.pop();
            }
            let parent = stack.last().copied();
            let mut die = Die {
                tag: entry.tag(),
                depth,
                parent,
                name: None,
                linkage: None,
                ty: None,
                byte_size: None,
                member_offset: None,
                bit_size: None,
                bit_offset: None,
                count: None,
                upper_bound: None,
                value: None,
                decl_file: None,
                declaration: false,
                external: false,
                children: Vec::new(),
            };
            let string = |value| {
                let text = match value {
                    AttributeValue::String(text) => text,
                    AttributeValue::DebugStrRef(at) => dwarf.debug_str.get_str(at).ok()?,
                    _ => return None,
                };
                text.to_string_lossy().ok().map(|s| s.into_owned())
            };
            let mut attrs = entry.attrs();
            while let Some(attr) = attrs.next().map_err(dwarf_error)? {
                match attr.name() {
                    dw::DW_AT_name => die.name = string(attr.value()),
                    dw::DW_AT_linkage_name | dw::DW_AT_MIPS_linkage_name => {
                        die.linkage = string(attr.value())
                    }
                    dw::DW_AT_type => {
                        if let AttributeValue::UnitRef(offset) = attr.value() {
                            refs.push((index, offset));
                        }
                    }
                    dw::DW_AT_byte_size => die.byte_size = attr.udata_value(),
                    dw::DW_AT_data_member_location => {
                        die.member_offset = match attr.value() {
                            AttributeValue::Exprloc(e) => plus_uconst(e),
                            AttributeValue::Block(b) => plus_uconst(gimli::Expression(b)),
                            _ => attr.udata_value(),
                        }
                    }
                    dw::DW_AT_bit_size => die.bit_size = attr.udata_value(),
                    dw::DW_AT_bit_offset => die.bit_offset = attr.udata_value(),
                    dw::DW_AT_count => die.count = attr.udata_value(),
                    dw::DW_AT_upper_bound => die.upper_bound = attr.udata_value(),
                    dw::DW_AT_const_value => {
                        // cicc writes an enumerator's value as `DW_FORM_sdata`.
                        die.value = match attr.value() {
                            AttributeValue::Udata(v) => Some(i128::from(v)),
                            _ => attr.sdata_value().map(i128::from),
                        };
                    }
                    dw::DW_AT_decl_file => die.decl_file = attr.udata_value(),
                    dw::DW_AT_declaration => die.declaration = true,
                    dw::DW_AT_external => die.external = true,
                    _ => {}
                }
            }
            if let Some(p) = parent {
                dies[p].children.push(index);
            }
            at.insert(entry.offset().0, index);
            stack.push(index);
            dies.push(die);
        }
        for (index, offset) in refs {
            // cicc names `void` as an unspecified type; DWARF's `void` is no type at all.
            dies[index].ty = at.get(&offset.0).copied().filter(|&t| {
                dies[t].tag != dw::DW_TAG_unspecified_type
                    || dies[t].name.as_deref() != Some("void")
            });
        }
        Ok(Dies {
            dies,
            files: HashMap::new(),
        })
    }

    /// Each PTX entry's subprogram, its parameters' types into `facts`.
    fn entries(
        &self,
        entries: &[cuda_kernel_syntax::ptx::Entry],
        facts: &mut Facts,
        types: &mut HashMap<usize, usize>,
    ) {
        for die in &self.dies {
            if die.tag != dw::DW_TAG_subprogram || die.declaration || die.depth > 1 {
                continue;
            }
            // An `extern "C"` kernel has no symbol but its name.
            let Some(symbol) = die.linkage.as_deref().or(die.name.as_deref()) else {
                continue;
            };
            let Some(entry) = entries.iter().find(|e| e.name == symbol) else {
                if !facts.functions.iter().any(|f| f.0 == symbol) {
                    let returns = die.ty.map(|t| self.ty(t, facts, types));
                    let count = die
                        .children
                        .iter()
                        .filter(|&&c| self.dies[c].tag == dw::DW_TAG_formal_parameter)
                        .count();
                    facts.functions.push((symbol.to_string(), returns, count));
                }
                continue;
            };
            if facts.entries.iter().any(|e| e.symbol == symbol) {
                continue;
            }
            let formal: Vec<&Die> = die
                .children
                .iter()
                .map(|&c| &self.dies[c])
                .filter(|c| c.tag == dw::DW_TAG_formal_parameter)
                .collect();
            let params: Vec<TypeRef> = formal
                .iter()
                .map(|c| c.ty.map(|t| self.ty(t, facts, types)))
                .collect();
            let names: Vec<Option<String>> = formal.iter().map(|c| c.name.clone()).collect();
            // A record by value is as aligned as its parameter (an alignment written on a
            // type, `__align__(16)`, is not in DWARF 2).
            for (&param, ptx) in params.iter().zip(&entry.params) {
                let ty = facts.through_typedefs(param);
                if let Some(Type::Record(record)) = ty.and_then(|t| facts.types.get_mut(t)) {
                    let align = ptx.align as u64;
                    if record.align.is_none_or(|a| a < align) {
                        record.align = Some(align);
                    }
                }
            }
            facts.entries.push(Entry {
                symbol: symbol.to_string(),
                params,
                names,
                file: die.decl_file.and_then(|n| self.files.get(&n).cloned()),
                ptx_params: entry.params.len(),
            });
        }
    }

    /// Every named enum, into `facts.enums`.
    fn enums(&self, facts: &mut Facts, types: &mut HashMap<usize, usize>) {
        for (index, die) in self.dies.iter().enumerate() {
            if die.tag != dw::DW_TAG_enumeration_type || die.declaration {
                continue;
            }
            let Some(name) = self.qualified(index) else {
                continue;
            };
            if !facts.enums.iter().any(|(n, _)| *n == name) {
                let ty = self.ty(index, facts, types);
                facts.enums.push((name, ty));
            }
        }
    }

    /// The entry at `index` as a type of `facts`, each once.
    fn ty(&self, index: usize, facts: &mut Facts, done: &mut HashMap<usize, usize>) -> usize {
        if let Some(&t) = done.get(&index) {
            return t;
        }
        let at = facts.types.len();
        // A placeholder first: a record may point to itself.
        facts.types.push(Type::Other("incomplete"));
        done.insert(index, at);
        let die = &self.dies[index];
        let mut of = |t: Option<usize>, facts: &mut Facts| t.map(|t| self.ty(t, facts, done));
        let ty = match die.tag {
            dw::DW_TAG_base_type => Type::Base {
                name: die.name.clone().unwrap_or_default(),
                size: die.byte_size.unwrap_or(0),
            },
            dw::DW_TAG_pointer_type => Type::Pointer(of(die.ty, facts)),
            dw::DW_TAG_reference_type | dw::DW_TAG_rvalue_reference_type => {
                Type::Reference(of(die.ty, facts))
            }
            dw::DW_TAG_const_type => Type::Const(of(die.ty, facts)),
            dw::DW_TAG_volatile_type => Type::Volatile(of(die.ty, facts)),
            dw::DW_TAG_restrict_type => Type::Restrict(of(die.ty, facts)),
            dw::DW_TAG_typedef => Type::Typedef {
                name: self.qualified(index).unwrap_or_default(),
                to: of(die.ty, facts),
            },
            dw::DW_TAG_structure_type | dw::DW_TAG_class_type | dw::DW_TAG_union_type => {
                let mut members = Vec::new();
                for &c in &die.children {
                    let child = &self.dies[c];
                    // EDG names a base class's subobject `__b_<mangled name>`.
                    let base = child.tag == dw::DW_TAG_inheritance
                        || child.name.as_deref().is_some_and(|n| n.starts_with("__b_"));
                    if !(base || child.tag == dw::DW_TAG_member)
                        || child.declaration
                        || child.external
                    {
                        continue;
                    }
                    let offset = child.member_offset.unwrap_or(0);
                    // DWARF 2 counts a bit-field's offset from the most significant bit of its
                    // storage unit; the device is little-endian.
                    let bits = child.bit_size.map(|width| {
                        let unit = child
                            .byte_size
                            .or_else(|| child.ty.and_then(|t| self.dies[t].byte_size))
                            .unwrap_or(0)
                            .saturating_mul(8);
                        let from_msb = child.bit_offset.unwrap_or(0);
                        let within = unit.saturating_sub(from_msb).saturating_sub(width);
                        (offset.saturating_mul(8).saturating_add(within), width)
                    });
                    members.push(Member {
                        name: if base { None } else { child.name.clone() },
                        offset,
                        ty: of(child.ty, facts),
                        bits,
                        base,
                    });
                }
                Type::Record(Record {
                    name: self.qualified(index),
                    union: die.tag == dw::DW_TAG_union_type,
                    // A class template that nothing instantiates has size 0 and no members.
                    size: (!die.declaration && (!members.is_empty() || die.byte_size != Some(0)))
                        .then_some(die.byte_size)
                        .flatten(),
                    align: None,
                    members,
                    file: die.decl_file.and_then(|n| self.files.get(&n).cloned()),
                })
            }
            dw::DW_TAG_enumeration_type => self.enum_type(index, facts),
            dw::DW_TAG_array_type => {
                let range = die
                    .children
                    .iter()
                    .map(|&c| &self.dies[c])
                    .find(|c| c.tag == dw::DW_TAG_subrange_type);
                let len =
                    range.and_then(|r| r.count.or(r.upper_bound.map(|u| u.saturating_add(1))));
                let nested = die
                    .children
                    .iter()
                    .filter(|&&c| self.dies[c].tag == dw::DW_TAG_subrange_type)
                    .count();
                match nested {
                    1 => Type::Array {
                        elem: of(die.ty, facts),
                        len,
                    },
                    _ => Type::Other("a multidimensional array"),
                }
            }
            dw::DW_TAG_subroutine_type => Type::Other(FUNCTION),
            dw::DW_TAG_ptr_to_member_type => Type::Other("a pointer to member"),
            _ => Type::Other("a type this generator does not read"),
        };
        facts.types[at] = ty;
        at
    }

    /// The enumeration type at `index`. DWARF 2 gives an enum no underlying type: the integer of
    /// its size, signed where an enumerator is negative.
    fn enum_type(&self, index: usize, facts: &mut Facts) -> Type {
        let die = &self.dies[index];
        let size = die.byte_size.unwrap_or(0);
        // An enum of `int`'s size is an `int` (C++'s choice for an enum without a fixed
        // type, and an `enum class`'s default) unless a value does not fit one.
        let values = || die.children.iter().filter_map(|&c| self.dies[c].value);
        let signed = values().any(|v| v < 0)
            || (size == 4 && values().all(|v| v <= i128::from(i32::MAX)))
            || (size == 8 && values().all(|v| v <= i128::from(i64::MAX)));
        let base = match (size, signed) {
            (1, false) => Some("unsigned char"),
            (1, true) => Some("signed char"),
            (2, false) => Some("unsigned short"),
            (2, true) => Some("short"),
            (4, false) => Some("unsigned int"),
            (4, true) => Some("int"),
            (8, false) => Some("unsigned long long"),
            (8, true) => Some("long long"),
            _ => None,
        };
        let base = base.map(|name| {
            facts.types.push(Type::Base {
                name: name.to_string(),
                size,
            });
            facts.types.len() - 1
        });
        // EDG names an enumerator by its symbol too (`_ZN2ns1E1AE`): its last segment.
        let enumerators = die
            .children
            .iter()
            .map(|&c| &self.dies[c])
            .filter(|c| c.tag == dw::DW_TAG_enumerator)
            .filter_map(|c| {
                let name = c.name.as_deref()?;
                let name = match name.starts_with("_Z") {
                    true => cuda_kernel_syntax::demangle::demangle(name)?
                        .rsplit("::")
                        .next()?
                        .to_string(),
                    false => name.to_string(),
                };
                Some((name, c.value?))
            })
            .collect();
        Type::Enum {
            name: self.qualified(index),
            size,
            base,
            enumerators,
        }
    }

    /// An entry's name with its enclosing namespaces and classes (`wp::vec_t<3, float>`).
    fn qualified(&self, index: usize) -> Option<String> {
        let die = &self.dies[index];
        let name = die.name.as_deref()?;
        // EDG names an unnamed class `__C<n>` (an anonymous union of glm's `vec3`): unnamed.
        if name
            .strip_prefix("__C")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        // EDG names an enum by its symbol (`_ZN3__x3mod8overrideE`): its qualified name.
        if name.starts_with("_Z") {
            return cuda_kernel_syntax::demangle::demangle(name);
        }
        let mut parts = vec![spelled(name)];
        let mut parent = die.parent;
        while let Some(p) = parent {
            let scope = &self.dies[p];
            match scope.tag {
                dw::DW_TAG_namespace => parts.push(match scope.name.as_deref() {
                    // gcc names an anonymous namespace after nvcc's hash; C++ does not.
                    None => cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE.to_string(),
                    Some(n) if n.starts_with("_GLOBAL__N_") => {
                        cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE.to_string()
                    }
                    Some(n) => n.to_string(),
                }),
                dw::DW_TAG_structure_type | dw::DW_TAG_class_type | dw::DW_TAG_union_type => {
                    parts.push(spelled(scope.name.as_deref()?))
                }
                _ => break,
            }
            parent = scope.parent;
        }
        parts.reverse();
        Some(parts.join("::"))
    }
}

/// A name as the demangler and a C++ programmer write it: the device's debug information
/// spells template arguments without spaces and with their literals' suffixes
/// (`vec_t<3U,float>` for `vec_t<3, float>`).
fn spelled(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut chars = name.chars().peekable();
    let mut word_start = true;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() && word_start {
            // A literal: its digits, without `U`, `L` or `UL`.
            out.push(c);
            while let Some(&d) = chars.peek() {
                if d.is_ascii_alphanumeric() && !matches!(d, 'u' | 'U' | 'l' | 'L') {
                    out.push(d);
                } else if !matches!(d, 'u' | 'U' | 'l' | 'L') {
                    break;
                }
                chars.next();
            }
            word_start = false;
            continue;
        }
        out.push(c);
        if c == ',' && chars.peek() != Some(&' ') {
            out.push(' ');
        }
        word_start = !(c.is_ascii_alphanumeric() || c == '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subprogram's symbol matches the PTX entry whatever nvcc's internal names (the facts
    /// and the PTX come from two runs), and an `extern "C"` entry by its kernel's name.
    #[test]
    fn entries_are_found_by_symbol_internal_names_aside() {
        let facts = Facts {
            entries: vec![
                Entry {
                    symbol: "_ZN33_GLOBAL__N__3163d41d_4_k_cu_plain4anonEPd".into(),
                    params: vec![None],
                    ..Entry::default()
                },
                Entry {
                    symbol: "plain".into(),
                    params: vec![None, None],
                    ..Entry::default()
                },
            ],
            types: Vec::new(),
            functions: Vec::new(),
            enums: Vec::new(),
        };
        let anon = facts.entry("_ZN33_GLOBAL__N__0000aaaa_4_k_cu_plain4anonEPd");
        assert_eq!(anon.map(|e| e.params.len()), Some(1));
        assert_eq!(facts.entry("plain").map(|e| e.params.len()), Some(2));
        assert!(facts.entry("other").is_none());
    }

    /// cicc's spelling of a template's arguments, as C++ and the demangler write them.
    #[test]
    fn names_are_spelled_as_cpp_writes_them() {
        assert_eq!(spelled("vec_t<3U,float>"), "vec_t<3, float>");
        assert_eq!(spelled("mat_t<2UL,3ULL,half>"), "mat_t<2, 3, half>");
        assert_eq!(spelled("float2"), "float2");
        assert_eq!(spelled("Box<0x1fU, u8_t>"), "Box<0x1f, u8_t>");
        assert_eq!(spelled("plain"), "plain");
    }

    /// The sections of PTX compiled with `-G`: byte directives read as bytes, labels as 0, a
    /// directive that is none an error.
    #[test]
    fn debug_sections_are_read_from_byte_directives() {
        let ptx = ".section\t.debug_abbrev\n{\n.b8 1,17\n.b8 0\n}\n\
                   .section\t.debug_info\n{\n.b32 7\n.b16 2\n.b32 .debug_abbrev\n.b64 -1\n}\n";
        let sections = debug_sections(ptx).unwrap();
        assert_eq!(sections[".debug_abbrev"], [1, 17, 0]);
        let mut info = vec![7, 0, 0, 0, 2, 0, 0, 0, 0, 0];
        info.extend([0xff; 8]);
        assert_eq!(sections[".debug_info"], info);
        assert!(debug_sections(".section .debug_info\n{\n.weird 1\n}\n").is_err());
    }

    /// A record the device's DWARF names without namespaces takes them from the symbols of
    /// the entries that take it, class templates included.
    #[test]
    fn records_take_their_namespaces_from_the_entries_symbols() {
        let record = |name: &str| {
            Type::Record(Record {
                name: Some(name.to_string()),
                union: false,
                size: Some(4),
                align: None,
                members: Vec::new(),
                file: None,
            })
        };
        let mut facts = Facts {
            entries: vec![Entry {
                symbol: "_Z1kPN2wp10HashGrid_tIfEENS_4MeshE".into(),
                params: vec![Some(1), Some(3)],
                ..Entry::default()
            }],
            types: vec![
                record("HashGrid_t<float>"),
                Type::Pointer(Some(0)),
                record("Mesh"),
                Type::Const(Some(2)),
            ],
            functions: Vec::new(),
            enums: Vec::new(),
        };
        facts.names_from_symbols();
        let name = |i: usize| match &facts.types[i] {
            Type::Record(r) => r.name.clone(),
            _ => None,
        };
        assert_eq!(name(0).as_deref(), Some("wp::HashGrid_t<float>"));
        assert_eq!(name(2).as_deref(), Some("wp::Mesh"));
    }
}
