//! The compiler's own facts about a file's kernels: what each entry of the PTX takes, read
//! from the debug information of the host object nvcc makes of the same source
//! (`nvcc -c -g`, which the build step runs and keeps beside the PTX for a file that needs it).
//!
//! For every kernel instance it compiles, nvcc writes a host function
//! `__device_stub__<symbol>` (the device symbol without its leading `_`), whose parameters are
//! the kernel's, in order, with their types: the kernel's entry and its parameter types, as
//! the compiler itself resolved them (typedefs, class-template instances, enums of any header,
//! structs with methods or base classes), with every record's size, alignment and member
//! offsets. The DWARF is read with gimli; nothing here reads C++ text.

use std::collections::HashMap;

use gimli::{AttributeValue, constants as dw};
use object::{Object as _, ObjectSection as _};

/// A type of the facts, by its index in [`Facts::types`]; `None` is `void`.
pub type TypeRef = Option<usize>;

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

/// One kernel instance: its device symbol and its parameters' types, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The device symbol as the stub names it (`_Z5applyIfEvP4ViewIT_E`; for an `extern "C"`
    /// kernel, the C++ symbol its stub is named after).
    pub symbol: String,
    /// Each parameter's type, as the kernel takes it.
    pub params: Vec<TypeRef>,
}

/// The facts of one host object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Every kernel instance nvcc compiled.
    pub entries: Vec<Entry>,
    /// The types they reach.
    pub types: Vec<Type>,
}

const STUB: &str = "__device_stub__";

impl Facts {
    /// Reads the facts of a host object (ELF, as `nvcc -c -g` writes it).
    pub fn read(object: &[u8]) -> Result<Facts, String> {
        let file = object::File::parse(object).map_err(|e| format!("not an object file: {e}"))?;
        let sections = gimli::DwarfSections::load(|id| -> Result<_, String> {
            match file.section_by_name(id.name()) {
                Some(section) => Ok((
                    section
                        .uncompressed_data()
                        .map_err(|e| format!("cannot read {}: {e}", id.name()))?
                        .into_owned(),
                    section
                        .relocation_map()
                        .map_err(|e| format!("cannot read {}'s relocations: {e}", id.name()))?,
                )),
                None => Ok((Vec::new(), object::read::RelocationMap::default())),
            }
        })?;
        let dwarf = sections.borrow(|(data, relocations)| {
            gimli::RelocateReader::new(
                gimli::EndianSlice::new(data, gimli::LittleEndian),
                Relocations(relocations),
            )
        });
        let mut facts = Facts::default();
        let mut units = dwarf.units();
        while let Some(header) = units.next().map_err(dwarf_error)? {
            let unit = dwarf.unit(header).map_err(dwarf_error)?;
            let dies = Dies::read(&dwarf, &unit)?;
            dies.entries(&mut facts);
        }
        Ok(facts)
    }

    /// The facts of the PTX entry `symbol`: the instance whose stub names it, nvcc's
    /// run-dependent internal names aside (the host object and the PTX come from two nvcc
    /// runs); an `extern "C"` entry by its kernel's name.
    pub fn entry(&self, symbol: &str) -> Option<&Entry> {
        use cuda_kernel_syntax::itanium::{without_internal_parts, without_nv_static_prefix};
        let masked = without_internal_parts(without_nv_static_prefix(symbol));
        let mut found = self
            .entries
            .iter()
            .filter(|e| without_internal_parts(&e.symbol) == masked);
        if let (Some(one), None) = (found.next(), found.next()) {
            return Some(one);
        }
        if symbol.starts_with("_Z") {
            return None;
        }
        let mut named = self.entries.iter().filter(|e| {
            cuda_kernel_syntax::demangle::function_name(&e.symbol).as_deref() == Some(symbol)
        });
        match (named.next(), named.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// The type `ty` refers to.
    pub fn ty(&self, ty: TypeRef) -> Option<&Type> {
        ty.and_then(|i| self.types.get(i))
    }
}

fn dwarf_error(e: gimli::Error) -> String {
    format!("cannot read the host object's debug information: {e}")
}

/// The relocations of a section of a relocatable object, applied as gimli reads it (the
/// offsets into `.debug_str` and the other sections are relocations there).
#[derive(Clone, Copy, Debug)]
struct Relocations<'a>(&'a object::read::RelocationMap);

impl gimli::read::Relocate<usize> for Relocations<'_> {
    fn relocate_address(&self, offset: usize, value: u64) -> gimli::Result<u64> {
        Ok(self.0.relocate(offset as u64, value))
    }

    fn relocate_offset(&self, offset: usize, value: usize) -> gimli::Result<usize> {
        <usize as gimli::ReaderOffset>::from_u64(self.0.relocate(offset as u64, value as u64))
    }
}

/// One debugging-information entry, with what is read of it.
#[derive(Debug)]
struct Die {
    tag: gimli::DwTag,
    depth: isize,
    /// Its parent's index.
    parent: Option<usize>,
    name: Option<String>,
    ty: Option<usize>,
    byte_size: Option<u64>,
    alignment: Option<u64>,
    member_offset: Option<u64>,
    bit_size: Option<u64>,
    bit_offset: Option<u64>,
    count: Option<u64>,
    upper_bound: Option<u64>,
    declaration: bool,
    external: bool,
    children: Vec<usize>,
}

/// A unit's entries, flat, their references as indices.
struct Dies {
    dies: Vec<Die>,
}

impl Dies {
    fn read<R: gimli::Reader<Offset = usize>>(
        dwarf: &gimli::Dwarf<R>,
        unit: &gimli::Unit<R>,
    ) -> Result<Dies, String> {
        let mut dies: Vec<Die> = Vec::new();
        let mut at: HashMap<usize, usize> = HashMap::new();
        // References, resolved once every entry is read.
        let mut refs: Vec<(usize, gimli::UnitOffset)> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cursor = unit.entries();
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
                ty: None,
                byte_size: None,
                alignment: None,
                member_offset: None,
                bit_size: None,
                bit_offset: None,
                count: None,
                upper_bound: None,
                declaration: false,
                external: false,
                children: Vec::new(),
            };
            let mut attrs = entry.attrs();
            while let Some(attr) = attrs.next().map_err(dwarf_error)? {
                match attr.name() {
                    dw::DW_AT_name => {
                        if let Ok(s) = dwarf.attr_string(unit, attr.value()) {
                            die.name = s.to_string_lossy().ok().map(|s| s.into_owned());
                        }
                    }
                    dw::DW_AT_type => {
                        if let AttributeValue::UnitRef(offset) = attr.value() {
                            refs.push((index, offset));
                        }
                    }
                    dw::DW_AT_byte_size => die.byte_size = attr.udata_value(),
                    dw::DW_AT_alignment => die.alignment = attr.udata_value(),
                    dw::DW_AT_data_member_location => die.member_offset = attr.udata_value(),
                    dw::DW_AT_bit_size => die.bit_size = attr.udata_value(),
                    dw::DW_AT_data_bit_offset => die.bit_offset = attr.udata_value(),
                    dw::DW_AT_count => die.count = attr.udata_value(),
                    dw::DW_AT_upper_bound => die.upper_bound = attr.udata_value(),
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
            dies[index].ty = at.get(&offset.0).copied();
        }
        Ok(Dies { dies })
    }

    /// Each stub's instance, its parameters' types into `facts`.
    fn entries(&self, facts: &mut Facts) {
        let mut types: HashMap<usize, usize> = HashMap::new();
        for die in &self.dies {
            if die.tag != dw::DW_TAG_subprogram || die.declaration {
                continue;
            }
            let Some(symbol) = die.name.as_deref().and_then(|n| n.strip_prefix(STUB)) else {
                continue;
            };
            let params: Vec<TypeRef> = die
                .children
                .iter()
                .map(|&c| &self.dies[c])
                .filter(|c| c.tag == dw::DW_TAG_formal_parameter)
                // A class passed by value reaches the stub by reference.
                .map(|c| match c.ty.map(|t| &self.dies[t]) {
                    Some(r) if r.tag == dw::DW_TAG_reference_type => r.ty,
                    _ => c.ty,
                })
                .map(|t| t.map(|t| self.ty(t, facts, &mut types)))
                .collect();
            facts.entries.push(Entry {
                symbol: format!("_{symbol}"),
                params,
            });
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
                    let base = child.tag == dw::DW_TAG_inheritance;
                    // Static members are DW_TAG_variable (DWARF 5) or declared members.
                    if !(base || child.tag == dw::DW_TAG_member)
                        || child.declaration
                        || child.external
                    {
                        continue;
                    }
                    members.push(Member {
                        name: child.name.clone(),
                        offset: child.member_offset.unwrap_or(0),
                        ty: of(child.ty, facts),
                        bits: child.bit_size.map(|bits| {
                            let offset = child.member_offset.unwrap_or(0).saturating_mul(8);
                            (child.bit_offset.unwrap_or(offset), bits)
                        }),
                        base,
                    });
                }
                Type::Record(Record {
                    name: self.qualified(index),
                    union: die.tag == dw::DW_TAG_union_type,
                    size: (!die.declaration).then_some(die.byte_size).flatten(),
                    align: die.alignment,
                    members,
                })
            }
            dw::DW_TAG_enumeration_type => Type::Enum {
                name: self.qualified(index),
                size: die.byte_size.unwrap_or(0),
                base: of(die.ty, facts),
            },
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
            dw::DW_TAG_subroutine_type => Type::Other("a function"),
            dw::DW_TAG_ptr_to_member_type => Type::Other("a pointer to member"),
            _ => Type::Other("a type this generator does not read"),
        };
        facts.types[at] = ty;
        at
    }

    /// An entry's name with its enclosing namespaces and classes (`wp::vec_t<3, float>`).
    fn qualified(&self, index: usize) -> Option<String> {
        let die = &self.dies[index];
        let name = die.name.clone()?;
        let mut parts = vec![name];
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
                    parts.push(scope.name.clone()?)
                }
                _ => break,
            }
            parent = scope.parent;
        }
        parts.reverse();
        Some(parts.join("::"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stub's symbol matches the PTX entry whatever nvcc's internal names, and an
    /// `extern "C"` entry by its kernel's name.
    #[test]
    fn entries_are_found_by_symbol_internal_names_aside() {
        let facts = Facts {
            entries: vec![
                Entry {
                    symbol: "_ZN33_GLOBAL__N__3163d41d_4_k_cu_plain4anonEPd".into(),
                    params: vec![None],
                },
                Entry {
                    symbol: "_Z5plainPfy".into(),
                    params: vec![None, None],
                },
            ],
            types: Vec::new(),
        };
        let anon = facts.entry("_ZN33_GLOBAL__N__0000aaaa_4_k_cu_plain4anonEPd");
        assert_eq!(anon.map(|e| e.params.len()), Some(1));
        assert_eq!(facts.entry("plain").map(|e| e.params.len()), Some(2));
        assert!(facts.entry("other").is_none());
    }
}
