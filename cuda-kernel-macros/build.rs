//! Whether this compiler evaluates `TypeId::of` in a constant (Rust 1.91 and later): a module
//! type's kernel cache is then keyed with `const { TypeId::of::<K>() }`, which the crate that
//! launches does not compile as one more function per launcher type (a debug build of a backend
//! instantiates hundreds). A compiler that cannot be asked leaves the call as it was.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    autocfg::emit_possibility("const_type_id");
    let code = "extern crate core; \
                pub fn probe() -> core::any::TypeId { const { core::any::TypeId::of::<u8>() } }";
    if let Ok(probe) = autocfg::AutoCfg::new() {
        if probe.probe_raw(code).is_ok() {
            autocfg::emit("const_type_id");
        }
    }
}
