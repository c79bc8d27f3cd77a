//! Workspace root package: hosts the top-level examples/ and tests/.
